package explain

import (
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
