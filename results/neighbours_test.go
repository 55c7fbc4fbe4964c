package results_test

import (
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// #37: a CPU neighbour is counted wherever the thread waited for a CPU,
// the run-queue wait only inside syscalls, so a share of that wait read
// "108% of the run-queue wait". Shares are taken of the larger of the two:
// none is over 100%, and the observer (tmpprobe) is not counted.
func TestWaitShareBase(t *testing.T) {
	cpu := func(ns uint64, observer bool) results.Neighbour {
		return results.Neighbour{Kind: results.NeighbourCPU, Comm: "sh", Ns: ns, Observer: observer}
	}
	disk := results.Neighbour{Kind: results.NeighbourDisk, Comm: "dd", Ns: 1_000_000}
	for _, c := range []struct {
		rq   uint64
		nbs  []results.Neighbour
		want uint64
	}{
		{1000, []results.Neighbour{cpu(400, false), cpu(300, false), disk}, 1000},
		{1000, []results.Neighbour{cpu(800, false), cpu(280, false)}, 1080},
		{1000, []results.Neighbour{cpu(900, false), cpu(5000, true)}, 1000},
		{0, []results.Neighbour{cpu(10, false)}, 10},
	} {
		base := results.WaitShareBase(c.rq, c.nbs)
		if base != c.want {
			t.Errorf("rq %d, neighbours %v: base %d, want %d", c.rq, c.nbs, base, c.want)
		}
		for _, n := range c.nbs {
			if n.Kind == results.NeighbourCPU && !n.Observer && n.Ns > base {
				t.Errorf("rq %d: %s's %d ns is over 100%% of %d", c.rq, n.Comm, n.Ns, base)
			}
		}
	}
}
