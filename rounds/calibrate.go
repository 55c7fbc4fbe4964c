package rounds

import (
	"context"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// maxBatchOps bounds calibration: a batch of more ops than this is never
// needed (an op that fails at once still takes ~100 ns).
const maxBatchOps = 100_000_000

// calibrate sizes the case's batch the way testing.B sizes b.N: untraced
// batches, each predicted from the last with 20% to spare and at most
// ×100, until one lasts at least MinBatch. They are kept in the run and
// left out of the figures. With Plan.Ops the size is given.
//
// Unlike testing.B, the first batch never ends calibration, however long
// it took: a case's first ops can be cold. A BytesIO round trip of 16 MiB
// took 10.0 ms as the first batch and 2.4 ms after; sized by that first
// batch, the case ran one op a batch, each paying what a batch of one
// pays, and its ratio came out twice another run's.
func (e *engine) calibrate(ctx context.Context, c int) error {
	if !e.w.Live(c) {
		return nil
	}
	n := e.Ops
	var last results.Batch
	for k := 0; n == 0; k++ {
		try := 1
		if k > 0 {
			if k > 1 && time.Duration(last.WallNs) >= e.MinBatch || last.Ops >= maxBatchOps {
				n = last.Ops
				break
			}
			try = NextOps(last.Ops, last.WallNs, e.MinBatch)
		}
		last = results.Batch{Kind: results.BatchCalibrate, Ops: try}
		took, err := e.batch(ctx, c, &last)
		e.out.Time.Calibrate += took
		if err != nil || !e.w.Live(c) {
			return err
		}
	}
	e.out.Ops[c] = n
	return nil
}

// NextOps predicts the ops of a batch lasting goal from one of prev ops
// that took prevNs, as testing.B does: 20% to spare, at most ×100, at
// least one more than before.
func NextOps(prev int, prevNs int64, goal time.Duration) int {
	n := float64(maxBatchOps)
	if prevNs > 0 {
		n = float64(goal) / float64(prevNs) * float64(prev)
	}
	n = min(n*1.2, 100*float64(prev), maxBatchOps)
	return max(int(n), prev+1)
}
