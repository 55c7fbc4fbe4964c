//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results/runfile"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
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
	if a.Derived.Between == nil || len(a.Derived.Between.Runs) != 0 || a.Derived.Between.From != runs {
		t.Errorf("a: between runs %+v, want none read from %s", a.Derived.Between, runs)
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
	if !slices.Equal(d.Derived.Between.Runs, []string{"c", "b", "a"}) {
		t.Errorf("d read %v, want [c b a], newest first", d.Derived.Between.Runs)
	}
	if len(d.Derived.Between.Cases) != 2 {
		t.Fatalf("d's spreads %+v, want one per case", d.Derived.Between.Cases)
	}
	for _, c := range d.Derived.Between.Cases {
		// a ran in another dir: its cases are not d's.
		if c.Runs != 3 || !strings.Contains(c.Case, work) {
			t.Errorf("case %+v: want its spread from b, c and d, in %s", c, work)
		}
	}
	if !strings.Contains(oneLine(live), "3 earlier runs (c, b, a) like it in "+runs) {
		t.Errorf("d's footer does not name the runs it read:\n%s", live)
	}
	// The spread recorded is the one d's, b's and c's medians give, and
	// d's printed intervals are the next run's prediction interval around
	// the runs' mean, holding d's own median (results.NextRunHalf): not its
	// own interval widened, which may be wider or narrower than that (#29,
	// #43).
	read := func(name string) results.EarlierRun {
		r, err := runfile.LoadRun(filepath.Join(runs, name))
		if err != nil {
			t.Fatal(err)
		}
		return results.EarlierRun{Name: name, Run: r}
	}
	alone := *d
	alone.Derived.Between = nil
	own := results.SummarizeAll(&alone, arms.Knowledge().Baselines)
	again := results.MeasureBetween(&alone, own, runs, []results.EarlierRun{read("b"), read("c")}, arms.Knowledge().Baselines)
	if !slices.Equal(again.Cases, d.Derived.Between.Cases) {
		t.Errorf("recorded %+v, measured again %+v", d.Derived.Between.Cases, again.Cases)
	}
	predictsNextRun(t, d, own)
	code, rerendered, stderr := inProcess("report", filepath.Join(runs, "d"))
	if code != 0 || rerendered != live {
		t.Errorf("report of d (exit %d, %s) differs from what the run printed:\n%s\nvs\n%s", code, stderr, rerendered, live)
	}
	sameFigureEverywhere(t, filepath.Join(runs, "c"), filepath.Join(runs, "d"), d, live)

	// Another protocol is another setting; --history none reads nothing.
	_, e := save("e", work, "--rounds", "9")
	if len(e.Derived.Between.Runs) != 0 {
		t.Errorf("a 9-round run read %v, 8-round runs", e.Derived.Between.Runs)
	}
	none, f := save("f", work, "--history", "none")
	if f.Derived.Between != nil || !strings.Contains(oneLine(none), "intervals: this run's spread only; a run here can move more than that") {
		t.Errorf("--history none: between runs %+v; footer:\n%s", f.Derived.Between, none)
	}
	code, _, stderr = inProcess("run", "TemporaryFile", "--history", filepath.Join(runs, "missing"), "-q")
	if code != exitUsage || !strings.Contains(stderr, "--history "+filepath.Join(runs, "missing")) {
		t.Errorf("a missing --history dir: exit %d, %q; want a usage error before the run", code, stderr)
	}
}

// predictsNextRun checks that the ops/s interval run prints is the next
// run's prediction interval around the runs' mean, widened to hold its
// own median (own: its summaries without the spread between runs).
func predictsNextRun(t *testing.T, run *results.Run, own []*results.Summary) {
	t.Helper()
	checked := 0
	for i, s := range results.SummarizeAll(run, arms.Knowledge().Baselines) {
		o := own[i]
		spread, ok := run.Derived.Between.Spread(run.CaseKey(s.CaseID))
		if !o.OpsPerS.Bounded() || !ok {
			continue
		}
		checked++
		sp := spread.OpsSpread()
		half := results.NextRunHalf(sp)
		lo := math.Min(sp.Center*math.Exp(-half), o.OpsPerS.Center)
		hi := math.Max(sp.Center*math.Exp(half), o.OpsPerS.Center)
		if sp.Center <= 0 || s.OpsPerS.Center != o.OpsPerS.Center || !near(s.OpsPerS.Lo, lo) || !near(s.OpsPerS.Hi, hi) {
			t.Errorf("%s: printed ops/s %+v, want [%g, %g] around the runs' mean, holding its own median (spread %+v)",
				s.Arm, s.OpsPerS, lo, hi, sp)
		}
	}
	if checked == 0 {
		t.Error("no arm has an interval and a spread between runs to check")
	}
}

// oneLine undoes the footer's wrapping at 80 columns.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// sameFigureEverywhere checks one noise model (#29): a figure of a run
// saved beside earlier runs has one centre and one interval, the one its
// table printed, in its WHY, its report (which must equal the run's
// output) and a diff against the run before it, whose test counts the
// same spread between runs.
func sameFigureEverywhere(t *testing.T, before, path string, run *results.Run, live string) {
	t.Helper()
	var named *results.Summary
	for _, s := range results.SummarizeAll(run, arms.Knowledge().Baselines) {
		if s.Arm == "NamedTemporaryFile" {
			named = s
		}
	}
	if named == nil || !named.Ratio.Bounded() {
		t.Fatalf("no NamedTemporaryFile ratio with an interval in %s", path)
	}
	table, why := results.RatioText(named.Ratio), results.TimesText(named.Ratio)
	words := oneLine(live)
	if !strings.Contains(live, table) {
		t.Errorf("the table does not print NamedTemporaryFile's ratio as %q:\n%s", table, live)
	}
	if !strings.Contains(words, "NamedTemporaryFile: "+why+" TemporaryFile's throughput") &&
		!strings.Contains(words, "NamedTemporaryFile: no different from TemporaryFile's throughput ("+why+")") {
		t.Errorf("the WHY does not say NamedTemporaryFile's ratio as the table does, %q:\n%s", why, live)
	}
	rep := quietDiff(t, before, path)
	for _, d := range rep.Arms {
		if d.Arm != "NamedTemporaryFile" {
			continue
		}
		want, _ := json.Marshal(named.Ratio)
		got, _ := json.Marshal(d.Ratio.New)
		if string(got) != string(want) {
			t.Errorf("diff prints NEW's ratio as %s, the run printed %s", got, want)
		}
		wantOps, _ := json.Marshal(named.OpsPerS)
		if gotOps, _ := json.Marshal(d.OpsPerS.New); string(gotOps) != string(wantOps) {
			t.Errorf("diff prints NEW's ops/s as %s, the run printed %s", gotOps, wantOps)
		}
		if d.Ratio.Between == nil || !strings.HasPrefix(rep.BetweenRuns, "as NEW's intervals do") {
			t.Errorf("diff's test of the ratio does not count NEW's spread between runs: %+v (%q)", d.Ratio, rep.BetweenRuns)
		}
	}
	if _, md, _ := inProcess("diff", before, path, "--format", "markdown"); !strings.Contains(md, table) {
		t.Errorf("diff --format markdown does not print NEW's ratio as %q:\n%s", table, md)
	}
}

// maxUnreadNamedForTest is runfile's maxUnreadNamed.
const maxUnreadNamedForTest = 3

// --history reads only what nobody but root and the invoker could have
// put there: not a directory others can write (/tmp), not a run directory
// or run.json another user owns, not a symlink (to /etc/shadow), one
// hard-linked run.json once, none over the size cap; what it passes over
// is one line for thousands of planted directories; the runs it read are
// named in the footer, live and in report; a saved spread that is
// negative is refused with its field named. On afa68bc two planted runs
// widened the intervals to ±424453% and root followed a symlink to
// /etc/shadow.
func TestHistoryTrustsOnlyItsOwn(t *testing.T) {
	needRoot(t)
	work := t.TempDir()
	hist := t.TempDir()
	os.Chmod(hist, 0o755)
	save := func(name string) (int, string, string) {
		return inProcess(quickRun(work, "--out", filepath.Join(hist, name))...)
	}
	for _, name := range []string{"a", "b"} {
		if code, _, stderr := save(name); code != 0 {
			t.Fatalf("saving %s: exit %d: %s", name, code, stderr)
		}
	}
	good, _ := os.ReadFile(filepath.Join(hist, "a", "run.json"))
	plant := func(name string, owner int) string {
		d := filepath.Join(hist, name)
		os.Mkdir(d, 0o755)
		os.Chown(d, owner, owner)
		return d
	}
	theirs := plant("theirs", nobody)
	os.WriteFile(filepath.Join(theirs, "run.json"), good, 0o644)
	os.Chown(filepath.Join(theirs, "run.json"), nobody, nobody)
	os.Symlink("/etc/shadow", filepath.Join(plant("shadow", 0), "run.json"))
	os.Symlink(filepath.Join(hist, "a"), filepath.Join(hist, "link"))
	for i := 1; i <= 5; i++ {
		os.Link(filepath.Join(hist, "b", "run.json"), filepath.Join(plant("hardlink-"+strconv.Itoa(i), 0), "run.json"))
	}
	big := filepath.Join(plant("big", 0), "run.json")
	os.WriteFile(big, append(good, make([]byte, 40<<20)...), 0o644)
	for i := 0; i < 2000; i++ {
		d := plant(fmt.Sprintf("planted-%04d", i), nobody)
		os.WriteFile(filepath.Join(d, "run.json"), []byte("{}"), 0o644)
	}
	code, stdout, stderr := save("c")
	if code != 0 {
		t.Fatalf("saving c: exit %d: %s", code, stderr)
	}
	footer := oneLine(stdout)
	if !strings.Contains(footer, "2 earlier runs (") || !strings.Contains(footer, "a") {
		t.Errorf("the footer does not name the 2 runs read:\n%s", stdout)
	}
	if n := strings.Count(footer, "--history: not read:"); n != maxUnreadNamedForTest+1 || !strings.Contains(footer, "more") {
		t.Errorf("%d notes of runs not read, want %d and one that counts the rest:\n%s", n, maxUnreadNamedForTest+1, stdout)
	}
	for _, leak := range []string{"shadow:", "root:"} {
		if strings.Contains(stdout, leak) && !strings.Contains(footer, "shadow: run.json is not a regular file") {
			t.Errorf("the footer shows %q:\n%s", leak, stdout)
		}
	}
	_, report, _ := inProcess("report", filepath.Join(hist, "c"))
	if !strings.Contains(oneLine(report), "2 earlier runs (") {
		t.Errorf("report does not name the runs read:\n%s", report)
	}

	// A directory others can write: nothing in it is read, and it says so.
	open := t.TempDir()
	os.Chmod(open, os.ModeSticky|0o777)
	code, stdout, stderr = inProcess(quickRun(work, "--out", filepath.Join(open, "x"))...)
	if code != 0 || !strings.Contains(oneLine(stdout), "is writable by other users") {
		t.Errorf("--out in a sticky dir others can write: exit %d (%s), footer does not say its runs are not read:\n%s", code, stderr, stdout)
	}

	// A saved spread that is negative is refused, its field named.
	js, _ := os.ReadFile(filepath.Join(hist, "c", "run.json"))
	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	doc["between_runs"].(map[string]any)["cases"] = []any{map[string]any{"case": "x", "runs": 3, "ops_per_s_log_sd": -1, "ratio_log_sd": 0.1}}
	bad, _ := json.Marshal(doc)
	badPath := filepath.Join(t.TempDir(), "run.json")
	os.WriteFile(badPath, bad, 0o644)
	if code, _, stderr := inProcess("report", badPath); code != exitUsage || !strings.Contains(stderr, "ops_per_s_log_sd") {
		t.Errorf("a negative spread: exit %d, %q; want 2 naming ops_per_s_log_sd", code, stderr)
	}
}
