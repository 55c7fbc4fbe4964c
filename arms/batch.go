//go:build linux

package arms

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

var errTracer = errors.New("tracer")

// tracedAttempts bounds how often a traced batch runs before its case
// fails because none of its runs could be attributed (see batch).
const tracedAttempts = 3

// batch runs one batch of the case, with the probe attached for it or
// not, fills in b and appends it to the case's result. A worker failure
// fails the case; only a tracer failure is returned.
//
// A lab's traced batch is one thread between its markers. One whose
// worker ended it on another thread (ErrMovedThread), or whose records
// hold more syscall time than its wall time (a second thread's syscalls,
// or one call's time counted twice), cannot be attributed: its records
// are dropped, the threads the probe follows forgotten, and it runs again
// under a new phase, at most tracedAttempts times.
func (r *Runner) batch(ctx context.Context, p *Plan, cr *caseRun, b *results.Batch) error {
	for attempt := 1; ; attempt++ {
		if b.Traced {
			r.phase++
			b.Phase = r.phase
		}
		wall, wait, err := cr.w.Batch(b.Phase, b.Traced, b.Ops, p.BatchTimeout)
		var unattributed error // why a traced batch's records are not one thread's
		if errors.Is(err, ErrMovedThread) {
			unattributed, err = err, nil
		}
		if err != nil && ctx.Err() != nil {
			return ErrInterrupted // the interrupt killed the worker: not the case's fault
		}
		if err != nil {
			w := cr.w
			cr.fail(r.describe(cr, w, err, p.BatchTimeout), w.Stderr())
			if b.Traced {
				r.Tracer.ForgetThreads()
			}
			return nil
		}
		b.WallNs, b.RunQueueWaitNs = wall, max(wait, 0)
		if b.Traced {
			if err := r.collect(b); err != nil {
				return err
			}
			if unattributed == nil {
				unattributed = b.CheckOneThread(b.Ops)
			}
		}
		if !b.Traced || unattributed == nil {
			cr.res.Batches = append(cr.res.Batches, *b)
			return nil
		}
		r.Tracer.ForgetThreads()
		b.Records, b.Neighbours, b.Stacks = nil, nil, nil
		if attempt == tracedAttempts {
			cr.fail(fmt.Sprintf("%d traced batches in a row could not be attributed: %v", attempt, unattributed), "")
			return nil
		}
		r.Reruns++
	}
}

// collect reads a traced batch's records and neighbours into b.
func (r *Runner) collect(b *results.Batch) error {
	recs, err := r.Tracer.Collect()
	if err != nil {
		return fmt.Errorf("%w: %v", errTracer, err)
	}
	b.Records = recs[b.Phase]
	if sc, ok := r.Tracer.(StackCollector); ok {
		stacks, err := sc.CollectStacks()
		if err != nil {
			return fmt.Errorf("%w: %v", errTracer, err)
		}
		b.Stacks = stacks[b.Phase]
	}
	if nc, ok := r.Tracer.(NeighbourCollector); ok {
		nbs, err := nc.CollectNeighbours()
		if err != nil {
			return fmt.Errorf("%w: %v", errTracer, err)
		}
		b.Neighbours = results.MarkObserver(nbs[b.Phase], r.observes)
	}
	return nil
}

// describe says why a case's worker failed: its work dir moved away
// under it, it timed out, or what it reported.
func (r *Runner) describe(cr *caseRun, w *Worker, err error, timeout time.Duration) string {
	if moved := r.workFor[cr.Dir].moved(); moved != nil {
		return fmt.Sprintf("%v (worker: %v)", moved, err)
	}
	if w != nil && w.TimedOut() {
		return fmt.Sprintf("timed out after %s (--arm-timeout)", timeout)
	}
	return err.Error()
}
