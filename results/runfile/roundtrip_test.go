package runfile

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// run.json is the golden file, as WriteRunJSON writes it (the rest of the
// run's files are render's golden writers).
func TestGoldenRunJSON(t *testing.T) {
	for _, variant := range resultstest.Variants {
		run := resultstest.FixtureRun(variant.Slow)
		resultstest.Golden(t, variant.Name+"/run.json", resultstest.Render(t, func(w io.Writer) error { return WriteRunJSON(w, run) }))
	}
}

// The golden run.json reads back as the run that wrote it, and renders the
// same report: run → run.json → report gives the same numbers.
func TestRunJSONRoundTrip(t *testing.T) {
	run := resultstest.FixtureRun(true)
	got, err := LoadRun(filepath.Join(resultstest.Testdata, "new", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, run) {
		t.Fatalf("run.json read back differs:\n got %+v\nwant %+v", got, run)
	}
	want, sums := resultstest.Sums(run), resultstest.Sums(got)
	for _, w := range []func(io.Writer, []*results.Summary) error{
		func(w io.Writer, s []*results.Summary) error { render.WriteTable(w, s); return nil },
		render.WriteArmsCSV,
		func(w io.Writer, s []*results.Summary) error {
			render.WriteMarkdown(w, got, s, resultstest.Labs)
			return nil
		},
		func(w io.Writer, s []*results.Summary) error {
			return render.WriteSummaryJSON(w, got, s, resultstest.Labs)
		},
	} {
		a := resultstest.Render(t, func(out io.Writer) error { return w(out, want) })
		b := resultstest.Render(t, func(out io.Writer) error { return w(out, sums) })
		if !bytes.Equal(a, b) {
			t.Errorf("report from run.json differs from the report of the run:\n%s\n---\n%s", b, a)
		}
	}
}

// A syscalls.csv rebuilds the per-op figures to the precision it carries:
// ops/s to 0.1, per-op times to 1 ns.
func TestSyscallCSVRebuild(t *testing.T) {
	run := resultstest.FixtureRun(false)
	want := resultstest.Sums(run)
	got, err := LoadRun(filepath.Join(resultstest.Testdata, "old", "syscalls.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sums := resultstest.Sums(got)
	byKey := map[results.CaseID]*results.Summary{}
	for _, s := range sums {
		byKey[s.CaseID] = s
	}
	near := func(what string, a, b, tol float64) {
		if math.Abs(a-b) > tol {
			t.Errorf("%s: rebuilt %.3f, want %.3f", what, a, b)
		}
	}
	for _, w := range want {
		if w.Traced == nil {
			continue // the CSV has rows only for traced arms
		}
		g := byKey[w.CaseID]
		if g == nil {
			t.Errorf("%s: missing from the rebuilt run", w.Name())
			continue
		}
		near(w.Name()+" ops/s", g.OpsPerS.Center, w.OpsPerS.Center, 0.06)
		near(w.Name()+" wall/op", g.WallNsPerOp, w.WallNsPerOp, 1)
		near(w.Name()+" user/op", g.UserNsPerOp, w.UserNsPerOp, 1)
		for _, c := range w.Classes {
			gc := g.Stage(c.Class, c.Stage)
			near(w.Name()+" "+c.Class+" ns/op", gc.NsPerOp, c.NsPerOp, 1)
			near(w.Name()+" "+c.Class+" off/op", gc.OffNsPerOp, c.OffNsPerOp, 1)
			if gc.Calls != c.Calls {
				t.Errorf("%s %s: %d calls, want %d", w.Name(), c.Class, gc.Calls, c.Calls)
			}
		}
	}
}

// saved are the files runfile's tests save a run as: the two LoadRun reads.
func saved(run *results.Run) []File {
	sums := resultstest.Sums(run)
	return []File{RunJSON(run, sums), {"syscalls.csv", func(w io.Writer) error { return render.WriteSyscallCSV(w, run, sums) }}}
}

// saveRunDir saves files as dir as a run does: checked before, whole.
func saveRunDir(dir string, files []File) error {
	if err := CheckRunDir(dir); err != nil {
		return err
	}
	return WriteRunDir(dir, HeldNow(dir), true, files)
}

// A run directory holds the files it was handed, no temp file, and reads
// back as the run; files that do not start with run.json, or name a file
// no saved run holds, are refused before anything is written.
func TestWriteRunDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "saved")
	run := resultstest.FixtureRun(false)
	files := saved(run)
	for _, bad := range [][]File{nil, files[1:], append(saved(run), File{"notes.txt", files[1].Write})} {
		if err := saveRunDir(dir, bad); err == nil {
			t.Errorf("saved %d files, the first %v", len(bad), bad)
		}
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 0 {
		t.Errorf("a refused save left %v", entries)
	}
	if err := saveRunDir(dir, files); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "run.json syscalls.csv" {
		t.Errorf("files %v: want exactly the files handed, no temp files", names)
	}
	back, err := LoadRun(dir)
	if err != nil || !reflect.DeepEqual(back, run) {
		t.Errorf("LoadRun(dir) = %v: want the run back", err)
	}
}

// A syscalls.csv read back writes itself again, byte for byte: every
// column, p50/p95/p99 and the intervals included.
func TestSyscallCSVRoundTrip(t *testing.T) {
	for _, variant := range []string{"old", "new"} {
		want := resultstest.GoldenBytes(t, variant+"/syscalls.csv")
		run, err := ReadRun(bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		got := resultstest.Render(t, func(w io.Writer) error { return render.WriteSyscallCSV(w, run, resultstest.Sums(run)) })
		if !bytes.Equal(got, want) {
			t.Errorf("%s/syscalls.csv read back writes differently:\n--- got\n%s\n--- want\n%s", variant, got, want)
		}
	}
}

// A run's functions and call sites read back from its syscalls.csv as
// they were written: the file rebuilt writes the same bytes, and its
// report says where in the code the time went in the same words.
func TestCodeCSVRoundTrip(t *testing.T) {
	for _, run := range []*results.Run{resultstest.CodeRun(), resultstest.AppTrace(true)} {
		sums := results.SummarizeAll(run, resultstest.CodeLabs.Baselines)
		want := resultstest.Render(t, func(w io.Writer) error { return render.WriteSyscallCSV(w, run, sums) })
		back, err := ReadRun(bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		backSums := results.SummarizeAll(back, resultstest.CodeLabs.Baselines)
		if got := resultstest.Render(t, func(w io.Writer) error { return render.WriteSyscallCSV(w, back, backSums) }); !bytes.Equal(got, want) {
			t.Errorf("%s: syscalls.csv read back writes differently:\n--- got\n%s\n--- want\n%s", run.Args, got, want)
		}
		code := func(run *results.Run, sums []*results.Summary) []string {
			var out []string
			for _, a := range report.New(report.Input{Run: run, Sums: sums, Labs: resultstest.CodeLabs}, report.Options{}).Arms {
				for _, s := range a.Code {
					out = append(out, s.Text, s.Short)
				}
			}
			return out
		}
		if got, want := code(back, backSums), code(run, sums); !slices.Equal(got, want) || len(want) == 0 {
			t.Errorf("%s: read back, the report says\n%q\nwritten, it said\n%q", run.Args, got, want)
		}
	}
}
