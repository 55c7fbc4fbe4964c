//go:build linux

package main

// A real run's files as other tools read them.

import (
	"github.com/tmpprobe/tmpprobe/results/resultstest"
	"golang.org/x/perf/benchfmt"
	"os"
	"path/filepath"
	"testing"
)

// --pprof and --benchfmt of a real run: the profile's calls are the CSV's
// to the call, and benchfmt's reader finds one line per case and round.
func TestInteropFilesFromARealRun(t *testing.T) {
	needBPF(t)
	dir := t.TempDir()
	prof, bench, csvPath := filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "s.csv")
	args := []string{"run", "TemporaryFile", "mkstemp-fsync", "--runtime", "go", "--rounds", "4", "--min-batch", "5ms",
		"--dir", t.TempDir(), "-q", "--pprof", prof, "--benchfmt", bench, "--csv", csvPath}
	if code, stdout, stderr := inProcess(args...); code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, whyFailed(stdout, stderr))
	}
	p := resultstest.ReadProfile(t, prof)
	var calls int64
	for _, s := range p.Sample {
		calls += s.Value[0]
	}
	byArm, _ := csvCalls(t, csvPath)
	var want int64
	for _, m := range byArm {
		for _, n := range m {
			want += int64(n)
		}
	}
	if calls != want || want == 0 {
		t.Errorf("profile has %d calls, the CSV %d", calls, want)
	}
	b, err := os.Open(bench)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	lines := map[string]int{}
	for r := benchfmt.NewReader(b, bench); r.Scan(); {
		if res, ok := r.Result().(*benchfmt.Result); ok {
			lines[res.Name.String()]++
		} else {
			t.Errorf("benchfmt: %v", r.Result())
		}
	}
	if lines["Modes/arm=TemporaryFile/runtime=go/payload=400"] != 4 || lines["Modes/arm=mkstemp-fsync/runtime=go/payload=400"] != 4 {
		t.Errorf("benchmark lines %v, want 4 rounds of each arm", lines)
	}
}
