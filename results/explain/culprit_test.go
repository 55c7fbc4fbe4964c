package explain_test

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// A disk neighbour's share is of the whole device time, the traced
// syscalls' and every neighbour's: two processes of one comm that split
// the device between them took 100% of it together, not 100% each.
func TestNeighbourChangesDiskShare(t *testing.T) {
	traced := func(nbs ...results.Neighbour) *results.Summary {
		return &results.Summary{ArmResult: &results.ArmResult{}, Traced: &results.Batch{Traced: true, Ops: 1, WallNs: 1000, Neighbours: nbs}}
	}
	cc := func(pid uint32, ns uint64) results.Neighbour {
		return results.Neighbour{Kind: results.NeighbourDisk, Comm: "cc", PID: pid, Count: 1, Ns: ns}
	}
	for _, c := range []struct {
		cur  *results.Summary
		want string
	}{
		{traced(cc(1, 300), cc(2, 100)), "NEW: cc (pid 1) took 100% of the device time, 40.0% of the traced time"},
		{traced(cc(1, 300), results.Neighbour{Kind: results.NeighbourDisk, Comm: "dd", PID: 3, Count: 1, Ns: 100}),
			"NEW: cc (pid 1) took 75% of the device time, 30.0% of the traced time"},
	} {
		changes := explain.NeighbourChanges(traced(), c.cur)
		if len(changes) == 0 || !strings.HasPrefix(explain.NeighbourPhrase(changes[0]), c.want) {
			t.Errorf("changes %+v: want first %q", changes, c.want)
		}
	}
}
