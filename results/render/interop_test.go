package render

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"golang.org/x/perf/benchfmt"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// csvTotals sums the syscalls.csv the way the profile's totals are
// documented: calls of every row, kernel_ns of the syscall rows, offcpu_ns
// of the class rows; a function's or a call site's row is a part of its
// class's, in no sum.
func csvTotals(t *testing.T, data []byte) (calls, kernel, off int64) {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	num := func(r []string, name string) int64 {
		v, _ := strconv.ParseInt(r[col[name]], 10, 64)
		return v
	}
	for _, r := range rows[1:] {
		if r[col["stack"]] != "" {
			continue
		}
		calls += num(r, "calls")
		if r[col["stage"]] == "" {
			off += num(r, "offcpu_ns")
			if r[col["syscall"]] != "user" {
				kernel += num(r, "kernel_ns")
			}
		}
	}
	return calls, kernel, off
}

func writeProfile(t *testing.T, run *results.Run) (string, []byte) {
	t.Helper()
	sums := resultstest.Sums(run)
	if run.Stacks != nil {
		sums = results.SummarizeAll(run, resultstest.CodeLabs.Baselines)
	}
	path := filepath.Join(t.TempDir(), "run.pb.gz")
	data := resultstest.Render(t, func(w io.Writer) error { return WritePprof(w, run, sums) })
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, resultstest.Render(t, func(w io.Writer) error { return WriteSyscallCSV(w, run, sums) })
}

// The profile reads back, its totals per sample type are the CSV's, and
// `go tool pprof` reads it, with a second run as -diff_base; two runs'
// profiles merge.
func TestPprof(t *testing.T) {
	oldPath, oldCSV := writeProfile(t, resultstest.FixtureRun(false))
	newPath, _ := writeProfile(t, resultstest.FixtureRun(true))
	p := resultstest.ReadProfile(t, oldPath)
	var got [3]int64
	for _, s := range p.Sample {
		if s.Value[3] != 0 {
			t.Errorf("user CPU time in a run that measured none: %v", s.Value)
		}
		for i := range got {
			got[i] += s.Value[i]
		}
		if s.Label["kernel"][0] != "6.18.0-test" || s.Label["dir"][0] != "/tmp" || s.Label["backend"][0] != "tracepoint" {
			t.Errorf("sample labels %v", s.Label)
		}
		if leaf := s.Location[len(s.Location)-1].Line[0].Function.Name; !strings.HasPrefix(leaf, "modes/") && !strings.HasPrefix(leaf, "buffers/") {
			t.Errorf("root frame %q: want the case", leaf)
		}
	}
	calls, kernel, off := csvTotals(t, oldCSV)
	if got != [3]int64{calls, kernel, off} {
		t.Errorf("profile totals %v, CSV totals %v", got, [3]int64{calls, kernel, off})
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	// By name, as docs/postmortems.md selects them (pprof refuses a name with a
	// space: "must be one of: [calls syscall time off-CPU time]").
	for i, typ := range []string{"calls", "syscall_time", "offcpu_time"} {
		out, err := exec.Command("go", "tool", "pprof", "-top", "-unit=ns", "-sample_index="+typ, oldPath).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof -top (%s): %v\n%s", typ, err, out)
		}
		if bytes.Contains(out, []byte("not available")) {
			t.Errorf("go tool pprof -top (%s) warns:\n%s", typ, out)
		}
		m := regexp.MustCompile(`of (\d+)(ns)? total`).FindSubmatch(out)
		if i == 0 {
			t.Logf("go tool pprof -top -sample_index=calls:\n%s", out)
		}
		if m == nil || string(m[1]) != strconv.FormatInt([]int64{calls, kernel, off}[i], 10) {
			t.Errorf("go tool pprof %s total: %q, want %d", typ, m, []int64{calls, kernel, off}[i])
		}
	}
	if out, err := exec.Command("go", "tool", "pprof", "-top", "-sample_index=syscall_time", "-diff_base", oldPath, newPath).CombinedOutput(); err != nil || !bytes.Contains(out, []byte("fsync")) {
		t.Errorf("go tool pprof -diff_base: %v\n%s", err, out)
	}
	a, b := resultstest.ReadProfile(t, oldPath), resultstest.ReadProfile(t, newPath)
	merged, err := profile.Merge([]*profile.Profile{a, b})
	if err != nil || len(merged.Sample) == 0 {
		t.Errorf("merging two runs' profiles: %v", err)
	}
}

// Where a run took user stacks, the profile carries the program's
// frames between the case and each syscall, and user CPU time as a
// sample type of its own: its totals are still the CSV's, user_cpu_time's
// is the measured user time, and `go tool pprof -top` names the
// program's functions under each.
func TestPprofUserFrames(t *testing.T) {
	run := resultstest.AppTrace(true)
	path, data := writeProfile(t, run)
	p := resultstest.ReadProfile(t, path)
	var got [4]int64
	fsync := false
	for _, s := range p.Sample {
		for i := range got {
			got[i] += s.Value[i]
		}
		var names []string
		for _, l := range s.Location {
			names = append(names, l.Line[0].Function.Name)
		}
		if names[0] == "off-CPU blocked/jbd2" && names[1] == "fsync" {
			fsync = true
			if want := []string{"off-CPU blocked/jbd2", "fsync", "persist", "main", "trace/python3 app.py"}; !slices.Equal(names, want) {
				t.Errorf("fsync's wait for the journal under %q, want %q", names, want)
			}
			if l := s.Location[2].Line[0]; l.Line != 4 || l.Function.Filename != "/home/user/app.py" {
				t.Errorf("persist's frame at %s:%d, want /home/user/app.py:4", l.Function.Filename, l.Line)
			}
		}
	}
	if !fsync {
		t.Error("no sample of fsync's wait for the journal")
	}
	calls, kernel, off := csvTotals(t, data)
	if want := [4]int64{calls, kernel, off, 62_000_000}; got != want {
		t.Errorf("profile totals %v, want the CSV's and the measured user time %v", got, want)
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	for _, c := range []struct {
		index string
		want  []string
	}{{"syscall_time", []string{"persist", "main", "fsync", "rename", "make"}}, {"user_cpu_time", []string{"checksum", "make", "TemporaryFile", notSampledFrame, "‹module›"}}} {
		out, err := exec.Command("go", "tool", "pprof", "-top", "-sample_index="+c.index, path).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof -top -sample_index=%s: %v\n%s", c.index, err, out)
		}
		for _, fn := range c.want {
			if !regexp.MustCompile(`(?m) ` + regexp.QuoteMeta(fn) + `( |$)`).Match(out) {
				t.Errorf("go tool pprof -top -sample_index=%s lacks %s:\n%s", c.index, fn, out)
			}
		}
	}
}

// The benchmark-format lines read back with benchfmt's reader: one per
// case and round, the case in the name keys, ns/op and ops/s as measured;
// and benchstat compares two runs' files.
func TestBenchfmt(t *testing.T) {
	run := resultstest.FixtureRun(false)
	sums := resultstest.Sums(run)
	data := resultstest.Render(t, func(w io.Writer) error { return WriteBenchfmt(w, run, sums) })
	r := benchfmt.NewReader(bytes.NewReader(data), "old.txt")
	perCase := map[string]int{}
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			t.Fatalf("%v", r.Result())
		}
		perCase[res.Name.String()]++
		if res.GetConfig("dir") != "/tmp" || res.GetConfig("kernel") != "6.18.0-test" {
			t.Errorf("%s: config %v", res.Name, res.Config)
		}
		ns, ok1 := res.Value("sec/op")
		ops, ok2 := res.Value("ops/s")
		if !ok1 || !ok2 || ns*ops < 0.999999 || ns*ops > 1.000001 {
			t.Errorf("%s: sec/op %v × ops/s %v ≠ 1", res.Name, ns, ops)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"Modes/arm=TemporaryFile/runtime=go/payload=400": 6, "Modes/arm=mkstemp-fsync/runtime=go/payload=400": 6,
		"Buffers/arm=NamedTemporaryFile/runtime=go/size=1M": 6}
	for k, n := range want {
		if perCase[k] != n {
			t.Errorf("%s: %d lines, want one per round (%d); got %v", k, perCase[k], n, perCase)
		}
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not on PATH")
	}
	dir := t.TempDir()
	oldF, newF := filepath.Join(dir, "old.txt"), filepath.Join(dir, "new.txt")
	os.WriteFile(oldF, data, 0o644)
	cur := resultstest.FixtureRun(true)
	cur.Meta.KernelRelease = run.Meta.KernelRelease // a kernel of its own would be a table of its own
	os.WriteFile(newF, resultstest.Render(t, func(w io.Writer) error { return WriteBenchfmt(w, cur, resultstest.Sums(cur)) }), 0o644)
	out, err := exec.Command("go", "tool", "benchstat", oldF, newF).CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("vs base")) || !regexp.MustCompile(`ratio[\s\S]*mkstemp-fsync.*-56\.9\d% \(p=0\.002 n=6\)`).Match(out) {
		t.Errorf("benchstat old new: %v\n%s", err, out)
	}
	t.Logf("benchstat:\n%s", out)
}
