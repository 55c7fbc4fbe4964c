package results

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func findArm(t *testing.T, rep *DiffReport, arm string) *ArmDiff {
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
// read as noise.
func TestDiffFindsTheCause(t *testing.T) {
	rep := Diff("old", fixtureRun(false), "new", fixtureRun(true), 10)
	d := findArm(t, rep, "mkstemp-fsync")
	if d.Status != StatusRegressed || len(d.Terms) == 0 || d.Terms[0].Name != "fsync" {
		t.Fatalf("mkstemp-fsync: %s, terms %v: want regressed with fsync first", d.Status, d.Terms)
	}
	var sum NsPerOp
	for _, term := range d.Terms {
		sum += term.Delta
	}
	if math.Abs(float64(sum-(d.NewWall-d.OldWall))) > 1e-6 {
		t.Errorf("terms add to %v ns/op, Δ wall is %v", sum, d.NewWall-d.OldWall)
	}
	for _, want := range []string{"fsync +400.0 µs", "waiting for the journal commit +400.0 µs", "flush/op 0 → 1"} {
		if !strings.Contains(d.Sentence, want) {
			t.Errorf("sentence %q lacks %q", d.Sentence, want)
		}
	}
	if s := findArm(t, rep, "TemporaryFile").Status; s != StatusNoise {
		t.Errorf("TemporaryFile: %s, want within noise", s)
	}
	if len(rep.Preflight) != 1 || rep.Preflight[0].Name != "kernel_release" {
		t.Errorf("preflight %v: want the kernel", rep.Preflight)
	}
	if len(rep.Gated) != 1 {
		t.Errorf("gated %v at 10%%: want mkstemp-fsync", rep.Gated)
	}
	if g := Diff("old", fixtureRun(false), "new", fixtureRun(true), 60).Gated; len(g) != 0 {
		t.Errorf("gated %v at 60%% for a 57%% drop", g)
	}
	if g := Diff("new", fixtureRun(true), "old", fixtureRun(false), 10).Gated; len(g) != 0 {
		t.Errorf("an improvement gated: %v", g)
	}
}

// Runs in different work dirs pair by position, and the dirs are a
// preflight difference; arms in one run only are listed as such.
func TestDiffAlignment(t *testing.T) {
	old, cur := fixtureRun(false), fixtureRun(false)
	for i := range cur.Arms {
		cur.Arms[i].Dir = "/dev/shm"
	}
	cur.Arms = cur.Arms[1:]
	cur.Meta.Python, cur.Meta.CPUs = "3.12.1", 4
	rep := Diff("old", old, "new", cur, 0)
	if d := findArm(t, rep, "TemporaryFile"); d.Status != StatusOnlyOld {
		t.Errorf("TemporaryFile: %s, want %s", d.Status, StatusOnlyOld)
	}
	if d := findArm(t, rep, "mkstemp-fsync"); d.Status != StatusNoise || d.NewDir != "/dev/shm" {
		t.Errorf("mkstemp-fsync: %s in %s, want within noise in /dev/shm", d.Status, d.NewDir)
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

// Without a spread (one batch, or a CSV), 5% is the line.
func TestDiffWithoutSpread(t *testing.T) {
	old := fixtureRun(false)
	cur := fixtureRun(false)
	for _, r := range []*Run{old, cur} {
		r.Arms = r.Arms[:1]
		r.Arms[0].Batches = r.Arms[0].Batches[2:4] // round 1 only
	}
	cur.Arms[0].Batches[0].WallNs = old.Arms[0].Batches[0].WallNs * 103 / 100
	if d := Diff("o", old, "n", cur, 0).Arms[0]; d.SpreadKnown || d.Status != StatusNoise {
		t.Errorf("3%% without spread: %s (spread known %v), want within noise", d.Status, d.SpreadKnown)
	}
	cur.Arms[0].Batches[0].WallNs = old.Arms[0].Batches[0].WallNs * 110 / 100
	if d := Diff("o", old, "n", cur, 0).Arms[0]; d.Status != StatusRegressed {
		t.Errorf("9%% slower without spread: %s, want regressed", d.Status)
	}
}

func TestWrap(t *testing.T) {
	s := "  mkstemp-fsync (go): −57% ops/s; +420.0 µs/op, of which fsync +400.0 µs (off-CPU waiting for the journal commit +400.0 µs; flush +380.0 µs)"
	for _, line := range strings.Split(wrap(s, 40, "    "), "\n") {
		if n := len([]rune(line)); n > 40 {
			t.Errorf("line of %d runes: %q", n, line)
		}
		if strings.HasPrefix(strings.TrimSpace(line), "µs") {
			t.Errorf("a unit starts a line: %q", line)
		}
	}
}

// A run rebuilt from a CSV knows little of the host, which may not read as
// a difference; its off-CPU labels come back from their columns.
func TestDiffCSVAgainstJSON(t *testing.T) {
	old, err := LoadRun("testdata/old/syscalls.csv")
	if err != nil {
		t.Fatal(err)
	}
	rep := Diff("old.csv", old, "new", fixtureRun(true), 0)
	if len(rep.Preflight) != 1 || rep.Preflight[0].Name != "kernel_release" {
		t.Errorf("preflight %v: want only the kernel", rep.Preflight)
	}
	d := findArm(t, rep, "mkstemp-fsync")
	if d.SpreadKnown || d.Terms[0].Name != "fsync" {
		t.Fatalf("%+v: want fsync first, spread unknown", d)
	}
	if !strings.Contains(d.Sentence, "off-CPU waiting for the journal commit +400.0 µs") {
		t.Errorf("sentence %q: want the journal's off-CPU label", d.Sentence)
	}
}
