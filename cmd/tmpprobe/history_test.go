//go:build linux

package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// Runs saved side by side with --out: each later run reads the earlier
// ones like it and its intervals include the spread between them
// (results.BetweenRuns), recorded in run.json so that report prints the
// same; runs of another setting are not read, and --history none or a
// missing --history dir say what they do.
func TestHistoryWidensLaterRuns(t *testing.T) {
	needBPF(t)
	runs := filepath.Join(t.TempDir(), "runs")
	save := func(name, dir string, extra ...string) (string, *results.Run) {
		t.Helper()
		args := append([]string{"run", "TemporaryFile", "NamedTemporaryFile", "--lab", "modes", "--runtime", "go",
			"--rounds", "8", "--worker-rounds", "1", "--dir", dir, "--out", filepath.Join(runs, name)}, extra...)
		code, stdout, stderr := inProcess(append(args, "-q")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		run, err := runfile.LoadRun(filepath.Join(runs, name))
		if err != nil {
			t.Fatal(err)
		}
		return stdout, run
	}
	first, a := save("a", t.TempDir())
	if a.Between == nil || len(a.Between.Runs) != 0 || a.Between.From != runs {
		t.Errorf("a: between runs %+v, want none read from %s", a.Between, runs)
	}
	if !strings.Contains(oneLine(first), "intervals: this run's spread only: 0 earlier runs like it in "+runs) {
		t.Errorf("a's footer does not say its intervals are its own spread:\n%s", first)
	}
	// Each run works in a dir of its own, so the cases differ in dir: one
	// work dir for the three that must match.
	work := t.TempDir()
	save("b", work)
	save("c", work)
	live, d := save("d", work)
	if !slices.Equal(d.Between.Runs, []string{"c", "b", "a"}) {
		t.Errorf("d read %v, want [c b a], newest first", d.Between.Runs)
	}
	if len(d.Between.Cases) != 2 {
		t.Fatalf("d's spreads %+v, want one per case", d.Between.Cases)
	}
	for _, c := range d.Between.Cases {
		// a ran in another dir: its cases are not d's.
		if c.Runs != 3 || !strings.Contains(c.Case, work) {
			t.Errorf("case %+v: want its spread from b, c and d, in %s", c, work)
		}
	}
	if !strings.Contains(oneLine(live), "3 earlier runs (c, b, a) like it in "+runs) {
		t.Errorf("d's footer does not name the runs it read:\n%s", live)
	}
	// The spread recorded is the one d's, b's and c's medians give, and
	// d's printed intervals are its own widened by it.
	read := func(name string) results.EarlierRun {
		r, err := runfile.LoadRun(filepath.Join(runs, name))
		if err != nil {
			t.Fatal(err)
		}
		return results.EarlierRun{Name: name, Run: r}
	}
	alone := *d
	alone.Between = nil
	own := results.SummarizeAll(&alone, arms.Knowledge().Baselines)
	again := results.MeasureBetween(&alone, own, runs, []results.EarlierRun{read("b"), read("c")}, arms.Knowledge().Baselines)
	if !slices.Equal(again.Cases, d.Between.Cases) {
		t.Errorf("recorded %+v, measured again %+v", d.Between.Cases, again.Cases)
	}
	for i, s := range results.SummarizeAll(d, arms.Knowledge().Baselines) {
		o := own[i]
		if !o.OpsPerS.Bounded() {
			continue
		}
		if s.OpsPerS.Center != o.OpsPerS.Center || s.OpsPerS.Lo > o.OpsPerS.Lo || s.OpsPerS.Hi < o.OpsPerS.Hi {
			t.Errorf("%s: printed ops/s %+v does not hold its own %+v", s.Arm, s.OpsPerS, o.OpsPerS)
		}
	}
	code, rerendered, stderr := inProcess("report", filepath.Join(runs, "d"))
	if code != 0 || rerendered != live {
		t.Errorf("report of d (exit %d, %s) differs from what the run printed:\n%s\nvs\n%s", code, stderr, rerendered, live)
	}

	// Another protocol is another setting; --history none reads nothing.
	_, e := save("e", work, "--rounds", "9")
	if len(e.Between.Runs) != 0 {
		t.Errorf("a 9-round run read %v, 8-round runs", e.Between.Runs)
	}
	none, f := save("f", work, "--history", "none")
	if f.Between != nil || !strings.Contains(oneLine(none), "intervals: this run's spread only; a run here can move more than that") {
		t.Errorf("--history none: between runs %+v; footer:\n%s", f.Between, none)
	}
	code, _, stderr = inProcess("run", "TemporaryFile", "--history", filepath.Join(runs, "missing"), "-q")
	if code != exitUsage || !strings.Contains(stderr, "--history "+filepath.Join(runs, "missing")) {
		t.Errorf("a missing --history dir: exit %d, %q; want a usage error before the run", code, stderr)
	}
}

// oneLine undoes the footer's wrapping at 80 columns.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
