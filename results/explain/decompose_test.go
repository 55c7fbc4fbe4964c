package explain

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// Decompose: terms add up to the gap exactly; a syscall only one arm makes
// is "new"; openat variants pair up.
func TestDecompose(t *testing.T) {
	arm := func(name string, wall int64, recs ...results.ClassRecord) *results.ArmResult {
		return &results.ArmResult{
			CaseID:  results.CaseID{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400},
			Ops:     10,
			Batches: []results.Batch{{Round: 1, Ops: 10, Traced: true, WallNs: wall, Records: recs}},
		}
	}
	named := results.Summarize(arm("NamedTemporaryFile", 100_000,
		results.ClassRecord{Class: "openat[create]", Calls: 10, TotalNs: 30_000},
		results.ClassRecord{Class: "unlink", Calls: 10, TotalNs: 20_000},
		results.ClassRecord{Class: "close", Calls: 10, TotalNs: 5_000}), results.ProtocolRounds)
	temp := results.Summarize(arm("TemporaryFile", 60_000,
		results.ClassRecord{Class: "openat[tmpfile]", Calls: 10, TotalNs: 25_000},
		results.ClassRecord{Class: "close", Calls: 10, TotalNs: 15_000}), results.ProtocolRounds)
	g := NewGap(named, temp)
	var sum float64
	terms := map[string]Term{}
	for _, term := range g.Terms {
		sum += float64(term.Delta)
		terms[term.Name] = term
	}
	if g.DeltaNs != 4000 || sum != g.DeltaNs {
		t.Fatalf("gap %v, terms sum %v, want 4000 both", g.DeltaNs, sum)
	}
	if u := terms["unlink"]; u.Delta != 2000 || g.mechanism(u) != "new syscall, 1/op" {
		t.Errorf("unlink term = %+v (%s)", u, g.mechanism(u))
	}
	if o, ok := terms["openat[create] vs openat[tmpfile]"]; !ok || o.Delta != 500 {
		t.Errorf("openat pair = %+v (terms %v)", o, terms)
	}
	if c := terms["close"]; c.Delta != -1000 {
		t.Errorf("close term = %+v", c)
	}
	if u := terms["user space"]; u.Delta != 2500 {
		t.Errorf("user term = %+v", u)
	}
	// The same engine, one arm in two runs: the openat variants of the old
	// run and the new pair up the same way.
	c := Decompose(temp, named, false)
	if len(c.Terms) != len(g.Terms) || c.DeltaNs != g.DeltaNs {
		t.Errorf("run-to-run decomposition %+v, want the gap's terms", c.Terms)
	}
	if g.Terms[0].Name != "user space" {
		t.Errorf("largest term first: got %s", g.Terms[0].Name)
	}
}

// #42: over rounds whose parts are skewed, each term is its own median,
// the remainder is what they leave of the gap's, the run-queue wait is a
// term of its own and no syscall's reason, and a syscall whose few slow
// calls carry its time says so.
func TestDecomposeMediansAndRunQueue(t *testing.T) {
	// Eight rounds of ten ops. The fsync arm's fsync is 100 µs an op in
	// most rounds and 5 ms in one (a slow batch); in two rounds it waits
	// 20 µs an op for a CPU inside fsync. Its baseline makes no fsync.
	fsyncNs := []uint64{100, 100, 100, 5000, 100, 100, 100, 100}
	queued := []uint64{0, 20, 0, 0, 20, 0, 0, 0}
	var fsyncArm, base []results.Batch
	for i := range fsyncNs {
		hist := []results.HistBucket{{Slot: results.HistSlot(90_000), Count: 9}, {Slot: results.HistSlot(fsyncNs[i] * 10_000), Count: 1}}
		if fsyncNs[i] == 100 {
			hist = []results.HistBucket{{Slot: results.HistSlot(100_000), Count: 10}}
		}
		rec := results.ClassRecord{Class: "fsync", Calls: 10, TotalNs: fsyncNs[i] * 10_000, OffCPUNs: queued[i] * 10_000, Hist: hist}
		if queued[i] > 0 {
			rec.OffNs = map[string]uint64{results.OffPreempted: queued[i] * 10_000}
		}
		wall := int64(rec.TotalNs) + 200_000 // 20 µs an op of user space
		fsyncArm = append(fsyncArm, results.Batch{Round: i + 1, Generation: i/2 + 1, Ops: 10, Traced: true, WallNs: wall, Records: []results.ClassRecord{rec}})
		base = append(base, results.Batch{Round: i + 1, Generation: i/2 + 1, Ops: 10, Traced: true, WallNs: 200_000})
	}
	id := func(name string) results.CaseID {
		return results.CaseID{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400}
	}
	a := results.Summarize(&results.ArmResult{CaseID: id("mkstemp-fsync"), Ops: 10, Batches: fsyncArm}, results.ProtocolRounds)
	b := results.Summarize(&results.ArmResult{CaseID: id("TemporaryFile"), Ops: 10, Batches: base}, results.ProtocolRounds)
	g := NewGap(a, b)
	terms := map[string]Term{}
	var sum float64
	for _, term := range g.Terms {
		terms[term.Name] = term
		sum += float64(term.Delta)
	}
	// The gap is the median of the rounds' fsync time (7 of 8 at
	// 100 µs an op): 100 µs, not the mean's 712.5; fsync less its
	// run-queue wait, 80 µs in two rounds, has the median 100 µs too.
	if g.DeltaNs != 100_000 {
		t.Errorf("gap %.0f ns/op, want the median 100000", g.DeltaNs)
	}
	if f := terms["fsync"]; f.Delta != 100_000 {
		t.Errorf("fsync term %+v, want its median 100000 less no run-queue wait", f)
	}
	if rq, ok := terms[results.RunQueueTerm]; ok {
		t.Errorf("run-queue term %+v, want none: its median is 0 on both sides (2 rounds of 8 waited)", rq)
	}
	if a.RunQueueNsPerOp != 0 || a.Rounds[1].Terms[results.RunQueueTerm] != 20_000 || a.Rounds[1].Terms["fsync"] != 80_000 {
		t.Errorf("round 2's terms %v: want fsync 80000 and run-queue wait 20000 apart", a.Rounds[1].Terms)
	}
	if sum != g.DeltaNs {
		t.Errorf("terms add up to %.0f, the gap is %.0f", sum, g.DeltaNs)
	}
	if r := g.Reason(terms["fsync"]); strings.Contains(r, "CPU") {
		t.Errorf("fsync's reason %q names the run-queue wait", r)
	}
	// The breakdown's row is fsync's median too; its mean is kept apart.
	if c := a.Class("fsync"); c.NsPerOp != 100_000 || c.MeanNsPerOp != 712_500 {
		t.Errorf("fsync row: median %.0f, mean %.0f; want 100000 and 712500", c.NsPerOp, c.MeanNsPerOp)
	}
	// 8 of its 80 calls (10%) are no tail; the one slow call per slow
	// round is: 1 of 80 calls took at least (its slot's low edge) of
	// 5.7 ms of the arm's 57 ms of fsync.
	tail := a.Class("fsync").Tail
	if tail == nil || tail.CallShare != 1.0/80 || tail.TimeShare < 0.25 {
		t.Fatalf("fsync's tail %+v, want 1 of 80 calls with a quarter or more of its time", tail)
	}
	if s := ArmSentence(a, a.TimeScale()); !strings.Contains(s, "its slowest 1% of calls") {
		t.Errorf("the arm's sentence does not name its slow calls: %s", s)
	}
}
