//go:build linux

package arms

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// Tracer is the probe as the runner sees it: attach for traced batches,
// detach for untraced ones, collect each traced batch's records by phase.
type Tracer interface {
	Attach() error
	Detach()
	Collect() (map[uint32][]results.ClassRecord, error)
	ForgetThreads()
}

// Plan is what to run: every arm × runtime × dir × parameter is one case,
// run by its own worker process.
type Plan struct {
	Arms       []Arm
	Runtimes   []Runtime
	Dirs       []string
	Payloads   []int // modes lab
	Sizes      []int // buffers lab
	Chunk      int
	SpoolMax   int
	Ops        int // ops per batch, modes lab
	SyncOps    int // ops per batch of the arms that sync every op
	Repeats    int // batches per case, modes lab
	Rounds     int // rounds per size, buffers lab
	Baseline   bool
	ArmTimeout time.Duration
}

// Case is one arm × runtime × dir × parameter.
type Case struct {
	Arm     Arm
	Runtime Runtime
	Dir     string
	Payload int
	Size    int
}

// Cases lists the plan's cases in run order.
func (p *Plan) Cases() []Case {
	var out []Case
	for _, dir := range p.Dirs {
		for _, rt := range p.Runtimes {
			for _, a := range p.Arms {
				params := p.Payloads
				if a.Lab == LabBuffers {
					params = p.Sizes
				}
				for _, v := range params {
					c := Case{Arm: a, Runtime: rt, Dir: dir}
					if a.Lab == LabBuffers {
						c.Size = v
					} else {
						c.Payload = v
					}
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// Runner runs cases, one worker process each.
type Runner struct {
	Tracer   Tracer // nil: throughput only
	Cookie   uint64
	Progress func(Progress)
	phase    uint32

	mu   sync.Mutex
	work []*workDir // private work dirs, removed by Run or Abort
}

// Progress is reported when a batch starts and when it ends.
type Progress struct {
	Case          Case
	Index, Cases  int // this case, 0-based, of how many
	Batch         int // 1-based
	Batches       int
	Done          bool // the batch finished (else it started)
	BatchDuration time.Duration
}

// Abort removes the private work directories at once; for a second
// interrupt, when the process is about to exit without waiting for Run.
func (r *Runner) Abort() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range r.work {
		w.remove()
	}
	r.work = nil
}

// ErrInterrupted marks a run cut short by its context.
var ErrInterrupted = errors.New("interrupted")

// Run runs every case of the plan. A failing case is recorded in its result
// and the run goes on; only an interrupt or a tracer failure stops it. The
// results of the cases that finished are returned either way.
func (r *Runner) Run(ctx context.Context, p *Plan) ([]results.ArmResult, error) {
	work := map[string]*workDir{}
	defer r.Abort()
	for _, d := range p.Dirs {
		w, err := newWorkDir(d)
		if err != nil {
			return nil, fmt.Errorf("work dir: %w", err)
		}
		r.mu.Lock()
		r.work = append(r.work, w)
		r.mu.Unlock()
		work[d] = w
	}
	var out []results.ArmResult
	cases := p.Cases()
	for i, c := range cases {
		if ctx.Err() != nil {
			return out, ErrInterrupted
		}
		prog := Progress{Case: c, Index: i, Cases: len(cases)}
		res, err := r.runCase(ctx, p, prog, work[c.Dir])
		if ctx.Err() != nil {
			return out, ErrInterrupted
		}
		out = append(out, res)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// runCase returns an error only for what must stop the run (the tracer);
// a worker failure is recorded in the result.
func (r *Runner) runCase(ctx context.Context, p *Plan, prog Progress, work *workDir) (results.ArmResult, error) {
	c := prog.Case
	res := results.ArmResult{
		Lab: c.Arm.Lab, Arm: c.Arm.Name, Runtime: c.Runtime.Name, Dir: c.Dir,
		PayloadBytes: c.Payload, SizeBytes: c.Size, Ops: p.Ops,
	}
	repeats := p.Repeats
	switch {
	case c.Arm.Lab == LabBuffers:
		res.Ops, repeats = 1, p.Rounds
	case c.Arm.Syncs && p.SyncOps > 0:
		res.Ops = p.SyncOps
	}
	caseDir, removeCase, err := work.armDir()
	if err != nil {
		res.Error = err.Error()
		return res, nil
	}
	defer removeCase()
	if p.ArmTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, p.ArmTimeout)
		defer cancel()
	}
	cfg := Config{
		Lab: c.Arm.Lab, Arm: c.Arm.Name, Dir: caseDir, Ops: res.Ops,
		Payload: c.Payload, Size: c.Size, Chunk: p.Chunk, SpoolMax: p.SpoolMax, Cookie: r.Cookie,
	}
	w, err := Start(ctx, c.Runtime, cfg)
	if err != nil {
		res.Error = describe(ctx, err, p.ArmTimeout)
		if w != nil {
			res.Stderr = w.Stderr()
		}
		return res, nil
	}
	defer w.Kill()
	total := repeats
	if p.Baseline && r.Tracer != nil {
		total *= 2
	}
	prog.Batches = total
	for i := 0; i < total; i++ {
		// Interleave untraced and traced batches so drift in the machine
		// hits both alike.
		traced := r.Tracer != nil && (!p.Baseline || i%2 == 1)
		prog.Batch, prog.Done = i+1, false
		r.report(prog)
		t0 := time.Now()
		b, err := r.batch(w, traced)
		if err != nil {
			if errors.Is(err, errTracer) {
				return res, err
			}
			res.Error = describe(ctx, err, p.ArmTimeout)
			res.Stderr = w.Stderr()
			if r.Tracer != nil {
				r.Tracer.ForgetThreads()
			}
			return res, nil
		}
		res.Batches = append(res.Batches, b)
		prog.Done, prog.BatchDuration = true, time.Since(t0)
		r.report(prog)
	}
	if err := w.Close(); err != nil {
		res.Error = "worker exit: " + err.Error()
		res.Stderr = w.Stderr()
	}
	return res, nil
}

func (r *Runner) report(p Progress) {
	if r.Progress != nil {
		r.Progress(p)
	}
}

var errTracer = errors.New("tracer")

func (r *Runner) batch(w *Worker, traced bool) (results.Batch, error) {
	b := results.Batch{Traced: traced}
	if r.Tracer != nil {
		if traced {
			if err := r.Tracer.Attach(); err != nil {
				return b, fmt.Errorf("%w: %v", errTracer, err)
			}
		} else {
			r.Tracer.Detach()
		}
	}
	if traced {
		r.phase++
		b.Phase = r.phase
	}
	wall, err := w.Batch(b.Phase, traced)
	if err != nil {
		return b, err
	}
	b.WallNs = wall
	if traced {
		recs, err := r.Tracer.Collect()
		if err != nil {
			return b, fmt.Errorf("%w: %v", errTracer, err)
		}
		b.Records = recs[b.Phase]
	}
	return b, nil
}

func describe(ctx context.Context, err error, timeout time.Duration) string {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Sprintf("timed out after %s (--arm-timeout)", timeout)
	}
	return err.Error()
}
