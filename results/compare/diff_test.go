package compare_test

import (
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

func findArm(t *testing.T, rep *compare.DiffReport, arm string) *compare.ArmDiff {
	t.Helper()
	for i := range rep.Arms {
		if rep.Arms[i].Arm == arm && rep.Arms[i].Lab == "modes" {
			return &rep.Arms[i]
		}
	}
	t.Fatalf("no %s in the diff", arm)
	return nil
}

// The fixture's known cause: fsync waits for the journal. It must come
// first, the terms must add up to the change, and the unchanged arm must
// read as noise, with its p-value. NEW runs another kernel and does more
// work: each arm is judged by its own throughput, not by its ratio to a
// baseline that would cancel what changed (#43).
func TestDiffFindsTheCause(t *testing.T) {
	rep := compare.Diff("old", resultstest.FixtureRun(false), "new", resultstest.FixtureRun(true), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(10))
	doc := said(rep)
	d := findArm(t, rep, "mkstemp-fsync")
	if d.Status != compare.StatusRegressed || d.JudgedBy != "ops/s" || len(d.Terms) == 0 || d.Terms[0].Name != "fsync" {
		t.Fatalf("mkstemp-fsync: %s by %s, terms %v: want regressed by its ops/s with fsync first", d.Status, d.JudgedBy, d.Terms)
	}
	// Six rounds a side, all apart: the smallest p a U test can give.
	if d.OpsPerS.P != 0.0021645 || d.OpsPerS.Verdict != results.VerdictChanged {
		t.Errorf("ops/s comparison p=%g %s, want p = 2/924, changed", d.OpsPerS.P, d.OpsPerS.Verdict)
	}
	var sum results.NsPerOp
	for _, term := range d.Terms {
		sum += term.Delta
	}
	if math.Abs(float64(sum-(d.NewWall-d.OldWall))) > 1e-6 {
		t.Errorf("terms add to %v ns/op, Δ wall is %v", sum, d.NewWall-d.OldWall)
	}
	// The work that changed is said first, then the time it cost.
	for _, want := range []string{"mkstemp-fsync (go): more work: flushes/op 0 → 1", "(p=0.002)", "fsync +400.0 µs", "waiting for the journal commit +400.0 µs"} {
		if s := sentenceOf(doc, d); !strings.Contains(s, want) {
			t.Errorf("sentence %q lacks %q", s, want)
		}
	}
	if tf := findArm(t, rep, "TemporaryFile"); tf.Status != compare.StatusNoise || tf.OpsPerS.P != 1 {
		t.Errorf("TemporaryFile: %s %+v, want within noise, p = 1", tf.Status, tf.OpsPerS)
	}
	if len(rep.Preflight) != 1 || rep.Preflight[0].Name != "kernel_release" {
		t.Errorf("preflight %v: want the kernel", rep.Preflight)
	}
	// Every gate also fails on the fixture's arm that fails in NEW.
	if len(rep.Gated) != 2 || rep.Gated[0].Kind != compare.ReasonFailed || rep.Gated[1].Kind != compare.ReasonRegressed || rep.Gated[1].Arm != d ||
		doc.Gated[1] != "modes/mkstemp-fsync (go)" {
		t.Errorf("gated %q at 10%%: want the failed arm and mkstemp-fsync", doc.Gated)
	}
	if g := said(compare.Diff("old", resultstest.FixtureRun(false), "new", resultstest.FixtureRun(true), resultstest.Labs.Baselines, 5, timeGate(60))).Gated; len(g) != 1 || g[0] != fdatasyncFailed {
		t.Errorf("gated %q at 60%% for a 57%% drop", g)
	}
	if g := said(compare.Diff("new", resultstest.FixtureRun(true), "old", resultstest.FixtureRun(false), resultstest.Labs.Baselines, 5, timeGate(10))).Gated; len(g) != 1 || g[0] != fdatasyncFailed {
		t.Errorf("an improvement gated: %q", g)
	}
	// A change smaller than --min-effect is not one, significant or not.
	if d := findArm(t, compare.Diff("old", resultstest.FixtureRun(false), "new", resultstest.FixtureRun(true), resultstest.Labs.Baselines, 60, nil), "mkstemp-fsync"); d.Status != compare.StatusNoise {
		t.Errorf("a 57%% change with --min-effect 60: %s, want within noise", d.Status)
	}
}

// A machine 25% slower moves every arm's throughput and no ratio: one
// drift sentence for the group, no arm blamed, nothing gated.
func TestDiffDrift(t *testing.T) {
	rep := compare.Diff("old", resultstest.FixtureRun(false), "slow", resultstest.Scaled(resultstest.FixtureRun(false), 1.25), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(10))
	doc := said(rep)
	// The buffers arm has no BytesIO beside it: nothing tells the machine
	// from the arm there, so its own throughput judges it.
	if g := strings.Join(doc.Gated, "; "); len(rep.Changed()) != 1 || g != fdatasyncFailed+"; buffers/NamedTemporaryFile (go, 1 MiB)" {
		t.Errorf("changed %d, gated %q: want only the buffers arm, which has no baseline", len(rep.Changed()), g)
	}
	if d := findArm(t, rep, "TemporaryFile"); d.Status != compare.StatusDrift {
		t.Errorf("TemporaryFile: %s, want %s", d.Status, compare.StatusDrift)
	}
	if d := findArm(t, rep, "mkstemp-fsync"); d.Status != compare.StatusNoise || d.OpsPerS.Verdict != results.VerdictChanged {
		t.Errorf("mkstemp-fsync: %s (ops/s %s): want its ops/s changed and its ratio not", d.Status, d.OpsPerS.Verdict)
	}
	want := "modes lab · go · /tmp · payload 400 B: everything got 20% slower (the machine or the environment: TemporaryFile −20%, p=0.002); relative to TemporaryFile nothing changed."
	if len(rep.Drift) != 1 || rep.Drift[0].Kind != compare.DriftMachine || doc.Drift[0].Sentence != want {
		t.Errorf("drift %+v, want one note:\n%s", doc.Drift, want)
	}
}

// Runs that cannot be compared are named; the gate fails on an incomplete
// NEW, an empty one, or one that lost an arm.
func TestDiffIncomparable(t *testing.T) {
	cur := resultstest.FixtureRun(false)
	cur.Complete = false
	cur.Arms = cur.Arms[:3]
	rep := compare.Diff("old", resultstest.FixtureRun(false), "new", cur, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(5))
	gated := strings.Join(said(rep).Gated, "; ")
	for _, want := range []string{"NEW is incomplete", "buffers/NamedTemporaryFile (go, 1 MiB) is missing from NEW"} {
		if !strings.Contains(gated, want) {
			t.Errorf("gated %q lacks %q", gated, want)
		}
	}
	if p := said(rep).Problems; len(p) == 0 || rep.Problems[0].Kind != explain.ProblemIncomplete || !strings.Contains(p[0], "NEW is incomplete") {
		t.Errorf("problems %v", p)
	}
	empty := resultstest.FixtureRun(false)
	empty.Arms, empty.Complete = nil, false
	rep = compare.Diff("old", resultstest.FixtureRun(false), "new", empty, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(5))
	if g := said(rep).Gated; !strings.Contains(strings.Join(g, "; "), "NEW has no arms") {
		t.Errorf("gated %v: want the empty NEW", g)
	}
	other := resultstest.FixtureRun(false)
	other.Arms = other.Arms[3:]
	rep = compare.Diff("old", resultstest.FixtureRun(false), "new", other, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, nil)
	if p := said(rep).Problems; !strings.Contains(strings.Join(p, "; "), "different labs (OLD: modes, buffers; NEW: buffers)") {
		t.Errorf("problems %v: want the labs named", p)
	}
}

// Runs in different work dirs pair by position, and the dirs are a
// preflight difference; arms in one run only are listed as such.
func TestDiffAlignment(t *testing.T) {
	old, cur := resultstest.FixtureRun(false), resultstest.FixtureRun(false)
	for i := range cur.Arms {
		cur.Arms[i].Dir = "/dev/shm"
	}
	cur.Arms = cur.Arms[1:]
	cur.Meta.Python, cur.Meta.CPUs = "3.12.1", 4
	rep := compare.Diff("old", old, "new", cur, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, nil)
	if d := findArm(t, rep, "TemporaryFile"); d.Status != compare.StatusOnlyOld {
		t.Errorf("TemporaryFile: %s, want %s", d.Status, compare.StatusOnlyOld)
	}
	if d := findArm(t, rep, "mkstemp-fsync"); d.Status != compare.StatusNoise || d.NewDir != "/dev/shm" || d.JudgedBy != "ops/s" {
		t.Errorf("mkstemp-fsync: %s by %s in %s, want within noise by ops/s (NEW has no baseline) in /dev/shm", d.Status, d.JudgedBy, d.NewDir)
	}
	got := map[string]string{}
	for _, f := range rep.Preflight {
		got[f.Name] = f.Old + " → " + f.New
	}
	want := map[string]string{"work dirs": "/tmp → /dev/shm", "python": "(none) → 3.12.1", "cpus": "2 → 4"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("preflight %v, want %v", got, want)
	}
}

// With fewer rounds than the U test needs (four a side), the diff says so
// instead of giving a verdict: a 10% drop over three rounds is not judged.
func TestDiffTooFewRounds(t *testing.T) {
	old, cur := resultstest.FixtureRun(false), resultstest.FixtureRun(false)
	for _, r := range []*results.Run{old, cur} {
		r.Arms = r.Arms[:1]
		r.Arms[0].Batches = r.Arms[0].Batches[:8] // calibration, warm-up, three rounds
	}
	for i := range cur.Arms[0].Batches {
		cur.Arms[0].Batches[i].WallNs = cur.Arms[0].Batches[i].WallNs * 110 / 100
	}
	d := compare.Diff("o", old, "n", cur, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(5))
	if a := &d.Arms[0]; a.Status != compare.StatusTooFew || !strings.Contains(sentenceOf(said(d), a), "too few rounds to judge (3 and 3, need 4 a side)") {
		t.Errorf("%s: %s, want too few samples", a.Status, sentenceOf(said(d), a))
	}
	if g := strings.Join(said(d).Gated, "; "); g != "modes/TemporaryFile (go) has too few rounds to judge" {
		t.Errorf("gated %q: a gate that cannot judge must fail, and say why", g)
	}
}

// A run rebuilt from a CSV knows little of the host, which may not read as
// a difference; it has one round, too few to judge, and says so.
func TestDiffCSVAgainstJSON(t *testing.T) {
	old, err := runfile.LoadRun(filepath.Join(resultstest.Testdata, "old", "syscalls.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rep := compare.Diff("old.csv", old, "new", resultstest.FixtureRun(true), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, nil)
	if len(rep.Preflight) != 1 || rep.Preflight[0].Name != "kernel_release" {
		t.Errorf("preflight %v: want only the kernel", rep.Preflight)
	}
	if d := findArm(t, rep, "mkstemp-fsync"); d.Status != compare.StatusTooFew {
		t.Fatalf("%+v: want too few samples", d)
	}
}

// The baseline alone got slower: every other arm's ratio moves, its own
// throughput does not. No arm is blamed; the drift note names the
// baseline, and the gate stays shut.
func TestDiffBaselineMovedAlone(t *testing.T) {
	cur := resultstest.FixtureRun(false)
	for j := range cur.Arms[0].Batches { // TemporaryFile
		b := &cur.Arms[0].Batches[j]
		b.WallNs = b.WallNs * 5 / 4
	}
	rep := compare.Diff("old", resultstest.FixtureRun(false), "new", cur, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(5))
	d := findArm(t, rep, "mkstemp-fsync")
	if d.Status != compare.StatusWithBaseline || d.Ratio.Verdict != results.VerdictChanged || d.OpsPerS.Verdict != results.VerdictSame {
		t.Errorf("mkstemp-fsync: %s (ratio %s, ops/s %s), want %s", d.Status, d.Ratio.Verdict, d.OpsPerS.Verdict, compare.StatusWithBaseline)
	}
	doc := said(rep)
	if s := sentenceOf(doc, d); !strings.Contains(s, "its baseline moved") {
		t.Errorf("sentence %q", s)
	}
	want := "modes lab · go · /tmp · payload 400 B: TemporaryFile itself got 20% slower (p=0.002), and the ratios of mkstemp-fsync (+0.0% ops/s) moved with it, not with their own throughput."
	if len(rep.Drift) != 1 || doc.Drift[0].Sentence != want {
		t.Errorf("drift %+v, want:\n%s", doc.Drift, want)
	}
	if len(rep.Changed()) != 0 || strings.Contains(strings.Join(doc.Gated, ";"), "mkstemp-fsync") {
		t.Errorf("changed %d, gated %v: the baseline moved, not the arms", len(rep.Changed()), doc.Gated)
	}
}

// A diff of three runs in different dirs heads a group with the dir of
// each run, not "dir 1" (#21).
func TestMatrixNamesDirsByRun(t *testing.T) {
	moved := func(run *results.Run, dir string) *results.Run {
		for i := range run.Arms {
			run.Arms[i].Dir = dir
		}
		return run
	}
	rep := compare.DiffMany([]string{"a", "b", "c"}, []*results.Run{resultstest.FixtureRun(false),
		moved(resultstest.FixtureRun(false), "/dev/shm"), moved(resultstest.FixtureRun(false), "/mnt")},
		resultstest.Labs.Baselines, compare.DefaultMinEffectPct)
	if len(rep.Groups) == 0 {
		t.Fatal("no groups")
	}
	for _, g := range rep.Groups {
		if !strings.Contains(g.Title, "/tmp → /dev/shm → /mnt") {
			t.Errorf("group %q", g.Title)
		}
	}
}

// fdatasyncFailed is what every gate says of the fixture's arm that
// fails in both runs: a NEW with a failed arm is never a pass.
const fdatasyncFailed = "modes/mkstemp-fdatasync (go) failed in NEW after 0 of 6 rounds (worker exit: exit status 1)"

// --threshold 0 gates like any other threshold: a regression, an
// incomplete or empty NEW and a lost arm fail it; an ungated diff does
// not gate (#19: 0 passed a −12% regression).
func TestDiffThresholdZeroGates(t *testing.T) {
	rep := compare.Diff("old", resultstest.FixtureRun(false), "new", resultstest.FixtureRun(true), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(0))
	if g := strings.Join(said(rep).Gated, "; "); g != fdatasyncFailed+"; modes/mkstemp-fsync (go)" {
		t.Errorf("gated %q at 0%%: want mkstemp-fsync", g)
	}
	if g := compare.Diff("old", resultstest.FixtureRun(false), "new", resultstest.FixtureRun(true), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, nil).Gated; g != nil {
		t.Errorf("an ungated diff gated %v", g)
	}
	cut := resultstest.FixtureRun(false)
	cut.Complete = false
	cut.Arms = cut.Arms[1:]
	rep = compare.Diff("old", resultstest.FixtureRun(false), "new", cut, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(0))
	if g := strings.Join(said(rep).Gated, "; "); g != "NEW is incomplete; "+fdatasyncFailed+"; modes/TemporaryFile (go) is missing from NEW" {
		t.Errorf("gated %q at 0%%: want the incomplete NEW and its lost arm", g)
	}
	empty := resultstest.FixtureRun(false)
	empty.Arms = nil
	if g := strings.Join(said(compare.Diff("old", resultstest.FixtureRun(false), "new", empty, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(0))).Gated, "; "); !strings.HasPrefix(g, "NEW has no arms") {
		t.Errorf("gated %q at 0%%: want the empty NEW", g)
	}
}

// A trace is one sample a side, too few for a test: the gate takes its
// change as it is, and a trace with no throughput in NEW fails it (#19:
// 224 → 0 ops/s passed --threshold 10).
func TestDiffThresholdGatesTraces(t *testing.T) {
	trace := func(wall int64) *results.Run {
		run := resultstest.FixtureRun(false)
		a := results.ArmResult{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "./app", Runtime: "-"}, Ops: 1}
		if wall > 0 {
			a.Batches = resultstest.Batches(1, []int64{wall}, func(int) []results.ClassRecord {
				return []results.ClassRecord{resultstest.Rec("write", 10, 1_000, 0, "")}
			})
		}
		run.Kind, run.Arms = results.KindTrace, []results.ArmResult{a}
		return run
	}
	for _, tc := range []struct {
		threshold float64
		old, new  int64
		gated     string
	}{
		{10, 4_464_000, 4_464_000, ""},
		{10, 4_464_000, 4_700_000, ""},
		{10, 4_464_000, 9_000_000, "trace/./app fell −50% (one trace a side)"},
		{0, 4_464_000, 4_700_000, "trace/./app fell −5.0% (one trace a side)"},
		{10, 4_464_000, 0, "trace/./app failed in NEW"},
	} {
		rep := compare.Diff("old", trace(tc.old), "new", trace(tc.new), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(tc.threshold))
		if g := strings.Join(said(rep).Gated, "; "); g != tc.gated {
			t.Errorf("%d → %d ns at %g%%: gated %q, want %q", tc.old, tc.new, tc.threshold, g, tc.gated)
		}
	}
}

// One cause, said once (#29): a work dir that moved from a tmpfs to an
// ext4 on a disk is one difference standing for every option and queue
// setting that came with it; a dir that stayed on the same kind of
// device (another loop device over the same disk) keeps its options
// apart, which are then what changed.
func TestDirMoveStandsForItsFacts(t *testing.T) {
	tmpfs := results.DirFacts{Dir: "/tmp", FSType: "tmpfs", Source: "tmpfs", Options: "rw,relatime"}
	ext4 := results.DirFacts{Dir: "/tmp", FSType: "ext4", Source: "/dev/vda", Options: "rw,relatime,discard", Journal: "no", Disk: "vda",
		FSOptions: "rw,discard,delalloc,commit=5", Queues: []results.BlockQueue{{Device: "vda", Scheduler: "mq-deadline", NrRequests: "256"}}}
	old, cur := resultstest.FixtureRun(false), resultstest.FixtureRun(true)
	old.Meta.Dirs, cur.Meta.Dirs = []results.DirFacts{tmpfs}, []results.DirFacts{ext4}
	cur.Meta.KernelRelease = old.Meta.KernelRelease // the move, the one cause
	rep := compare.Diff("old", old, "new", cur, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, nil)
	var moves []compare.FactChange
	for _, f := range rep.Preflight {
		if f.Move != "" {
			moves = append(moves, f)
		} else if f.Dir {
			t.Errorf("%s listed apart from the dir's move", f.Name)
		}
	}
	if len(moves) != 1 || explain.MovePhrase(moves[0]) != "the dir moved from tmpfs to ext4 on vda: no journal, mounted discard" || len(moves[0].StandsFor) < 5 {
		t.Fatalf("moves %+v, want one from tmpfs to ext4 on vda standing for its facts", moves)
	}
	d := findArm(t, rep, "mkstemp-fsync")
	if d.Work == nil || !strings.HasSuffix(d.Work.Headline(d.Unit), "(the dir moved from tmpfs to ext4 on vda)") || len(d.Work.Culprits) != 1 {
		t.Errorf("mkstemp-fsync's work %+v does not name the move alone", d.Work)
	}

	loop := func(dev string, opts string) results.DirFacts {
		return results.DirFacts{Dir: "/mnt", FSType: "ext4", Source: "/dev/" + dev, Options: opts, Journal: "yes", Disk: dev,
			Queues: []results.BlockQueue{{Device: dev, BackingFile: "/tmp/" + dev + ".img"}, {Device: "vda"}}}
	}
	old.Meta.Dirs, cur.Meta.Dirs = []results.DirFacts{loop("loop1", "rw")}, []results.DirFacts{loop("loop2", "rw,nobarrier")}
	rep = compare.Diff("old", old, "new", cur, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, nil)
	options := false
	for _, f := range rep.Preflight {
		if f.Move != "" {
			t.Errorf("another loop device over the same disk read as a move: %+v", f)
		}
		options = options || (f.Name == "dirs[0].mount_options" && slices.Contains(f.Added, "nobarrier"))
	}
	if !options {
		t.Errorf("preflight %+v: want nobarrier added, apart", rep.Preflight)
	}
}

// --gate work fails on an arm's work per op, not on its time (#29): the
// fixture's fsync waits longer for the journal and adds a cache flush
// per op; a machine that got 25% slower adds none.
func TestGateWork(t *testing.T) {
	gate := func(cur *results.Run, threshold float64) []string {
		return said(compare.DiffWith("old", resultstest.FixtureRun(false), "new", cur, resultstest.Labs.Baselines,
			compare.Options{MinEffectPct: compare.DefaultMinEffectPct, Gate: compare.GateOn(compare.GateWork, threshold)})).Gated
	}
	if g := gate(resultstest.FixtureRun(true), 5); len(g) != 2 || g[0] != fdatasyncFailed || !strings.Contains(g[1], "more work: flushes/op 0 → 1") {
		t.Errorf("a flush added per op: gated %q, want the failed arm and mkstemp-fsync's flushes", g)
	}
	if g := gate(resultstest.Scaled(resultstest.FixtureRun(false), 1.25), 5); len(g) != 1 || g[0] != fdatasyncFailed {
		t.Errorf("the same work 25%% slower: gated %q, want only the failed arm", g)
	}
	if g := compare.Diff("old", resultstest.FixtureRun(false), "slow", resultstest.Scaled(resultstest.FixtureRun(false), 1.25),
		resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(5)).Gated; g == nil {
		t.Error("--gate time passed 25% slower: the fixture no longer tells the gates apart")
	}
}

// #37: an arm whose worker failed in NEW after some rounds has figures
// from the rounds before, which may be no slower: under both gates the
// diff still fails on it, and says which arm and after how many rounds.
// So does a command that exited non-zero in NEW's runs where OLD's did
// not (compare --ignore-failure).
func TestGateFailsOnAFailedArm(t *testing.T) {
	old := resultstest.FixtureRun(false)
	worker, command := resultstest.WorkerFailed(), resultstest.CommandFailed()
	for _, c := range []struct {
		name string
		cur  *results.Run
		want string
	}{
		{"worker", worker, "modes/TemporaryFile (go) failed in NEW after 6 of 6 rounds (worker exit: signal: killed)"},
		{"command", command, "modes/TemporaryFile (go) exited non-zero in 6 of 12 runs in NEW (none in OLD)"},
	} {
		for _, gate := range []string{compare.GateTime, compare.GateWork} {
			rep := compare.DiffWith("old", old, "new", c.cur, resultstest.Labs.Baselines, compare.Options{MinEffectPct: compare.DefaultMinEffectPct, Gate: compare.GateOn(gate, 5)})
			if g := said(rep).Gated; !slices.Contains(g, c.want) {
				t.Errorf("%s, --gate %s: gated %q, want %q", c.name, gate, g, c.want)
			}
			// The fixture's mkstemp-fdatasync fails in both runs.
			if got := failedNames(rep); got != "TemporaryFile mkstemp-fdatasync" {
				t.Errorf("%s, --gate %s: failed arms %s, want TemporaryFile and mkstemp-fdatasync", c.name, gate, got)
			}
		}
	}
	// An A/A of the same run fails nothing.
	if rep := compare.DiffWith("old", old, "new", resultstest.FixtureRun(false), resultstest.Labs.Baselines, compare.Options{Gate: timeGate(5)}); failedNames(rep) != "mkstemp-fdatasync" {
		t.Errorf("A/A: failed %s, want only the arm that fails in both (mkstemp-fdatasync)", failedNames(rep))
	}
}

func failedNames(rep *compare.DiffReport) string {
	var names []string
	for _, d := range rep.Failed() {
		names = append(names, d.Arm)
	}
	return strings.Join(names, " ")
}

// #43: a machine 25% slower is drift, judged by the ratios; the same
// slowdown with the environment changed (NEW mounted data=journal) is the
// finding: every arm is judged by its own throughput, the group's note
// names what changed, and --gate time fails on it.
func TestEnvironmentChangeIsNoDrift(t *testing.T) {
	withDir := func(r *results.Run, options string) *results.Run {
		r.Meta.Dirs = []results.DirFacts{{Dir: "/tmp", FSType: "ext4", Options: options, Journal: "yes"}}
		return r
	}
	old := withDir(resultstest.FixtureRun(false), "rw,relatime")
	drifted := withDir(resultstest.Scaled(resultstest.FixtureRun(false), 1.25), "rw,relatime")
	journaled := withDir(resultstest.Scaled(resultstest.FixtureRun(false), 1.25), "rw,relatime,data=journal")

	rep := compare.Diff("old", old, "new", drifted, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(5))
	if d := findArm(t, rep, "TemporaryFile"); d.Status != compare.StatusDrift {
		t.Errorf("the same environment, 25%% slower: TemporaryFile %s, want %s", d.Status, compare.StatusDrift)
	}
	rep = compare.Diff("old", old, "new", journaled, resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(5))
	for _, arm := range []string{"TemporaryFile", "mkstemp-fsync"} {
		if d := findArm(t, rep, arm); d.Status != compare.StatusRegressed || d.JudgedBy != "ops/s" {
			t.Errorf("NEW mounted data=journal: %s %s by %s, want regressed by its own ops/s", arm, d.Status, d.JudgedBy)
		}
	}
	want := "modes lab · go · /tmp · payload 400 B: every arm 20% slower, TemporaryFile −20% (p=0.002): NEW is mounted data=journal; mkstemp-fsync moved mostly as TemporaryFile did (their ratios to it moved less than half as far)"
	doc := said(rep)
	if len(rep.Drift) == 0 || rep.Drift[0].Kind != compare.DriftEnvironment || doc.Drift[0].Sentence != want {
		t.Errorf("drift notes %v, want %q", doc.Drift, want)
	}
	if !slices.Contains(doc.Gated, "modes/TemporaryFile (go)") {
		t.Errorf("--gate time --threshold 5 gated %q, want TemporaryFile's slowdown", doc.Gated)
	}
}

// said is what the diff says.
func said(rep *compare.DiffReport) *report.DiffDocument { return report.NewDiff(rep) }

// sentenceOf is what the diff says of arm d.
func sentenceOf(doc *report.DiffDocument, d *compare.ArmDiff) string {
	for _, a := range doc.Arms {
		if a.Arm == d {
			return a.Sentence
		}
	}
	return ""
}

// timeGate is --gate time --threshold pct.
func timeGate(pct float64) *compare.Gate { return compare.GateOn(compare.GateTime, pct) }

// diffNamed is the judgement of the fixture diff of that name.
func diffNamed(t *testing.T, name string) *compare.DiffReport {
	t.Helper()
	for _, d := range resultstest.Diffs() {
		if d.Name == name {
			return d.Judge()
		}
	}
	t.Fatalf("no diff %s among the fixtures", name)
	return nil
}

// A function whose user time grew is user space's culprit, as a mount
// option is a syscall's: the diff names it, its file and line and how
// much it grew, in the arm's sentence; and a syscall a function started
// to make is more work from that function.
func TestDiffNamesTheCode(t *testing.T) {
	rep := diffNamed(t, "code-names")
	named := findArm(t, rep, "NamedTemporaryFile")
	if named.Status != compare.StatusRegressed {
		t.Fatalf("NamedTemporaryFile %s, want regressed", named.Status)
	}
	i := slices.IndexFunc(named.Terms, func(t explain.Term) bool { return t.Name == results.UserTerm })
	if i < 0 || len(named.Terms[i].Culprits) == 0 || named.Terms[i].Culprits[0].Code == nil {
		t.Fatalf("user space's culprits: %+v", named.Terms)
	}
	if c := *named.Terms[i].Culprits[0].Code; c.Function != "_RandomNameSequence.__next__" || c.Line != 154 || math.Abs(c.Delta-8000) > 500 {
		t.Errorf("culprit %+v, want _RandomNameSequence.__next__ at line 154, about +8 µs/op", c)
	}
	var said string
	for _, a := range report.NewDiff(rep).Arms {
		if a.Arm.Arm == "NamedTemporaryFile" {
			said = a.Sentence
		}
	}
	if !strings.Contains(said, "user space +7.94 µs — _RandomNameSequence.__next__ (tempfile.py:154) +8.40 µs/op") {
		t.Errorf("the arm's sentence does not name the function: %s", said)
	}
	fsync := diffNamed(t, "code-fsync")
	w := fsync.Arms[0].Work
	if w == nil || !w.MoreOrLess() || len(w.Changed) == 0 {
		t.Fatalf("the trace's work: %+v", w)
	}
	if got, want := w.Headline("run"), "more work: fsync calls/run 0 → 20 from persist (app.py:4) ← main (app.py:10)"; got != want {
		t.Errorf("work headline %q, want %q", got, want)
	}
}

// #43: two runs of the same setting and work whose syncing arms waited
// twice as long for each of the device's flushes, in every arm that
// flushes: the shared disk's speed moved between the runs, not the arms.
// They move "with the storage", said with the time per flush that moved
// them, and --gate time passes; a neighbour on the disk or a mount option
// that changed is a cause, and the same slowdown is then the arms'.
func TestSameWorkSlowerStorageIsNotTheArms(t *testing.T) {
	run := resultstest.StorageSlower
	rep := compare.Diff("old", run(1, "rw"), "new", run(2, "rw"), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(5))
	doc := said(rep)
	for _, arm := range []string{"mkstemp-fsync", "atomic-replace"} {
		d := findArm(t, rep, arm)
		if d.Status != compare.StatusWithStorage {
			t.Errorf("%s: %s, want %s", arm, d.Status, compare.StatusWithStorage)
		}
		if s := sentenceOf(doc, d); !strings.Contains(s, "same work, slower: device time per flush 380.0 → 760.0 µs (every arm that flushes; the device vda, not the workload)") ||
			!strings.Contains(s, "with the storage") {
			t.Errorf("%s says %q, want the time per flush that moved it and the storage", arm, s)
		}
	}
	// The fixture's mkstemp-fdatasync fails in both runs.
	if len(doc.Gated) != 1 || !strings.Contains(doc.Gated[0], "mkstemp-fdatasync") {
		t.Errorf("--gate time --threshold 5 gated %q, want only the arm that failed: the disk moved, not the arms", doc.Gated)
	}
	rep = compare.Diff("old", run(1, "rw"), "new", run(2, "rw,data=journal"), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, timeGate(5))
	if d := findArm(t, rep, "mkstemp-fsync"); d.Status != compare.StatusRegressed {
		t.Errorf("NEW mounted data=journal: mkstemp-fsync %s, want regressed", d.Status)
	}
}
