package results

import (
	"bytes"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func render(t *testing.T, write func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGoldenWriters(t *testing.T) {
	for _, variant := range []struct {
		name string
		slow bool
	}{{"old", false}, {"new", true}} {
		run := fixtureRun(variant.slow)
		sums := fixtureSums(run)
		golden(t, variant.name+"/run.json", render(t, func(w io.Writer) error { return WriteRunJSON(w, run) }))
		golden(t, variant.name+"/arms.csv", render(t, func(w io.Writer) error { return WriteArmsCSV(w, sums) }))
		golden(t, variant.name+"/syscalls.csv", render(t, func(w io.Writer) error { return WriteSyscallCSV(w, run, sums) }))
		golden(t, variant.name+"/report.md", render(t, func(w io.Writer) error { WriteMarkdown(w, run, sums, fixtureLabs); return nil }))
		golden(t, variant.name+"/report.json", render(t, func(w io.Writer) error { return WriteSummaryJSON(w, run, sums) }))
	}
}

func TestGoldenDiff(t *testing.T) {
	rep := Diff("old", fixtureRun(false), "new", fixtureRun(true), fixtureLabs.Baselines, DefaultMinEffectPct, 10)
	golden(t, "diff.txt", render(t, func(w io.Writer) error { WriteDiffText(w, rep); return nil }))
	golden(t, "diff.md", render(t, func(w io.Writer) error { WriteDiffMarkdown(w, rep); return nil }))
	golden(t, "diff.json", render(t, func(w io.Writer) error { return WriteDiffJSON(w, rep) }))
	drift := Diff("old", fixtureRun(false), "slow", scaled(fixtureRun(false), 1.25), fixtureLabs.Baselines, DefaultMinEffectPct, 10)
	golden(t, "diff-drift.txt", render(t, func(w io.Writer) error { WriteDiffText(w, drift); return nil }))
	three := DiffMany([]string{"old", "new", "slow"}, []*Run{fixtureRun(false), fixtureRun(true), scaled(fixtureRun(false), 1.25)},
		fixtureLabs.Baselines, DefaultMinEffectPct)
	golden(t, "diff3.txt", render(t, func(w io.Writer) error { WriteMatrixText(w, three); return nil }))
	golden(t, "diff3.md", render(t, func(w io.Writer) error { WriteMatrixMarkdown(w, three); return nil }))
	golden(t, "diff3.json", render(t, func(w io.Writer) error { return WriteMatrixJSON(w, three) }))
}

// The golden run.json reads back as the run that wrote it, and renders the
// same report: run → run.json → report gives the same numbers.
func TestRunJSONRoundTrip(t *testing.T) {
	run := fixtureRun(true)
	got, err := LoadRun(filepath.Join("testdata", "new", "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, run) {
		t.Fatalf("run.json read back differs:\n got %+v\nwant %+v", got, run)
	}
	want, sums := fixtureSums(run), fixtureSums(got)
	for _, w := range []func(io.Writer, []*Summary) error{
		func(w io.Writer, s []*Summary) error { WriteTable(w, s); return nil },
		WriteArmsCSV,
		func(w io.Writer, s []*Summary) error { WriteMarkdown(w, got, s, fixtureLabs); return nil },
		func(w io.Writer, s []*Summary) error { return WriteSummaryJSON(w, got, s) },
	} {
		a := render(t, func(out io.Writer) error { return w(out, want) })
		b := render(t, func(out io.Writer) error { return w(out, sums) })
		if !bytes.Equal(a, b) {
			t.Errorf("report from run.json differs from the report of the run:\n%s\n---\n%s", b, a)
		}
	}
}

// A syscalls.csv rebuilds the per-op figures to the precision it carries:
// ops/s to 0.1, per-op times to 1 ns.
func TestSyscallCSVRebuild(t *testing.T) {
	run := fixtureRun(false)
	want := fixtureSums(run)
	got, err := LoadRun(filepath.Join("testdata", "old", "syscalls.csv"))
	if err != nil {
		t.Fatal(err)
	}
	sums := fixtureSums(got)
	byKey := map[string]*Summary{}
	for _, s := range sums {
		byKey[s.Key()] = s
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
		g := byKey[w.Key()]
		if g == nil {
			t.Errorf("%s: missing from the rebuilt run", w.Key())
			continue
		}
		near(w.Key()+" ops/s", g.OpsPerS.Center, w.OpsPerS.Center, 0.06)
		near(w.Key()+" wall/op", g.WallNsPerOp, w.WallNsPerOp, 1)
		near(w.Key()+" user/op", g.UserNsPerOp, w.UserNsPerOp, 1)
		for _, c := range w.Classes {
			gc := g.findClass(c.Class, c.Stage)
			near(w.Key()+" "+c.Class+" ns/op", gc.NsPerOp, c.NsPerOp, 1)
			near(w.Key()+" "+c.Class+" off/op", gc.OffNsPerOp, c.OffNsPerOp, 1)
			if gc.Calls != c.Calls {
				t.Errorf("%s %s: %d calls, want %d", w.Key(), c.Class, gc.Calls, c.Calls)
			}
		}
	}
}

func (s *Summary) findClass(class, stage string) ClassSummary {
	for _, c := range s.Classes {
		if c.Class == class && c.Stage == stage {
			return c
		}
	}
	return ClassSummary{}
}

func TestWriteRunDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "saved")
	run := fixtureRun(false)
	if err := WriteRunDir(dir, run, fixtureSums(run), fixtureLabs); err != nil {
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
	if strings.Join(names, " ") != "arms.csv chart.png chart.svg report.md run.json syscalls.csv" {
		t.Errorf("files %v: want exactly the run files, no temp files", names)
	}
	back, err := LoadRun(dir)
	if err != nil || !reflect.DeepEqual(back, run) {
		t.Errorf("LoadRun(dir) = %v: want the run back", err)
	}
}

// A writer that fails half-way leaves neither the final name nor a temp file.
func TestWriteFileAtomicNoHalfFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	err := WriteFileAtomic(path, func(w io.Writer) error {
		io.WriteString(w, `{"schema":1,`)
		return errors.New("crash")
	})
	if err == nil {
		t.Fatal("no error from a failing writer")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left %v behind", entries)
	}
}

func TestChart(t *testing.T) {
	sums := fixtureSums(fixtureRun(true))
	svg := render(t, func(w io.Writer) error { return WriteChart(w, sums, "svg") })
	for _, want := range []string{"<svg", "fsync", "user space", "µs per op", "µs per round", "mkstemp-fsync"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("chart.svg lacks %q", want)
		}
	}
	img, err := png.Decode(bytes.NewReader(render(t, func(w io.Writer) error { return WriteChart(w, sums, "png") })))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 200 {
		t.Errorf("chart.png is %v", b)
	}
	if err := WriteChart(io.Discard, nil, "svg"); err == nil {
		t.Error("an empty run drew a chart")
	}
}

// A syscalls.csv read back writes itself again, byte for byte: every
// column, p50/p95/p99 and the intervals included.
func TestSyscallCSVRoundTrip(t *testing.T) {
	for _, variant := range []string{"old", "new"} {
		want := goldenBytes(t, variant+"/syscalls.csv")
		run, err := ReadRun(bytes.NewReader(want))
		if err != nil {
			t.Fatal(err)
		}
		got := render(t, func(w io.Writer) error { return WriteSyscallCSV(w, run, fixtureSums(run)) })
		if !bytes.Equal(got, want) {
			t.Errorf("%s/syscalls.csv read back writes differently:\n--- got\n%s\n--- want\n%s", variant, got, want)
		}
	}
}
