// Package rounds is the one engine of the rounds protocol, for the labs'
// workers (arms) and compare's commands (cmdbench): batches sized by
// time, warm-ups, rounds of an untraced and a traced half in a seeded
// order with the probe attached only for the traced one, and generations
// of fresh workers. The workloads say what a batch is; the engine says
// which batch runs when, so a change to the protocol is made once.
//
// The order is drawn a round at a time over the groups it is given, a
// stop rule is asked before every round and a narrowing rule before every
// later generation (which groups it runs: arms' --until), a generation's
// workers start together, apart from the last generation's end, and
// progress names the generation, stage and step with an estimate of the
// time left (estimate.go), on a clock a test can replace.
package rounds

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// Tracer is the probe as the rounds see it: attached for traced halves,
// detached for untraced ones.
type Tracer interface {
	Attach() error
	Detach()
}

// StackTracer is a Tracer that can take user stacks in some traced
// batches and not in others (probe.Probe.TakeStacks): from the next
// Attach on, as on says; it reports whether it takes stacks at all.
type StackTracer interface {
	Tracer
	TakeStacks(on bool) bool
}

// StacksRound says whether a round's traced batches take stacks, where
// the tracer takes them: the odd rounds (the first, so a run of one round
// has them). The even rounds' traced batches take none, and a run's
// syscall terms and TRACED come from those (results.Summarize), its code
// from the odd ones.
func StacksRound(round int) bool { return round%2 == 1 }

// Switch attaches the tracer for traced batches and detaches it for
// untraced ones, so those run with no hook enabled at all. Its first Set
// acts whatever it is asked: the probe comes attached from whoever opened
// it, and an untraced batch believed detached would pay for every hook.
type Switch struct {
	Tracer   Tracer // nil: every batch untraced, nothing to switch
	known    bool
	attached bool
	stacks   bool
}

// Set attaches (traced) or detaches the tracer, if it is not already so;
// a traced batch takes stacks where stacks says so and the tracer can.
// It reports whether the batch takes stacks.
func (s *Switch) Set(traced, stacks bool) (bool, error) {
	if s.Tracer == nil {
		return false, nil
	}
	// What the batch takes: a tracer that takes no stacks at all (none
	// asked, or refused by the kernel) is never re-attached for them.
	want := false
	if st, ok := s.Tracer.(StackTracer); ok && traced {
		want = st.TakeStacks(stacks) && stacks
	}
	if s.known && s.attached == traced && s.stacks == want {
		return want, nil
	}
	if traced {
		if s.known && s.attached {
			s.Tracer.Detach() // to attach the other programs
		}
		if err := s.Tracer.Attach(); err != nil {
			s.known = false
			return false, fmt.Errorf("attaching the probe: %w", err)
		}
	} else {
		s.Tracer.Detach()
	}
	s.known, s.attached, s.stacks = true, traced, want
	return want, nil
}

// Workload is what runs in rounds: cases, numbered as in Plan.Groups, each
// run a batch at a time.
type Workload interface {
	// Batch runs one batch of case c as b says (kind, round, generation,
	// ops, traced), with the probe already attached or detached for it,
	// fills in what it measured and keeps it. A failure of the case alone
	// is kept with the case (Live then says so) and nil returned; an
	// error stops the run.
	Batch(ctx context.Context, c int, b *results.Batch) error
	// Live reports whether case c still runs batches.
	Live(c int) bool
}

// Workers is a Workload whose cases run in processes that live from one
// batch to the next (the labs' workers, with their imports, caches and
// directories): each generation starts fresh ones and warms them up.
// compare runs a fresh process tree every batch and needs none of it.
type Workers interface {
	Workload
	// Renew ends the last generation's workers and readies what
	// generation gen needs (fresh directories), before its Start.
	Renew(gen int)
	// Start starts the workers of generation gen for cases, together
	// where the workload can (nothing is measured while workers start),
	// and returns when each is up or has failed; a failure fails its case
	// alone. A case left out runs no batch in the generation.
	Start(ctx context.Context, gen int, cases []int)
	// Finish ends the last generation's workers after the last round.
	Finish()
}

// Plan is how a workload's cases run in rounds.
type Plan struct {
	// Groups are the cases a ratio compares, the cases numbered 0…n−1
	// and each in one group: each round runs a group's cases back to back
	// (see Orderer). Starts, warm-ups and calibration go through the cases
	// in their numbers' order.
	Groups [][]int
	Seed   uint64
	Rounds int // measured rounds, at most
	// Untraced and Traced say which halves a round has.
	Untraced, Traced bool
	// GenerationRounds is how many rounds a generation serves (0: the
	// whole run). Each measured batch records its generation, the unit of
	// every interval (results.UnitSummaries); a Workers workload starts
	// fresh workers for each.
	GenerationRounds int
	// Warmups are untraced passes over every case before the first
	// round; a Workers workload's later generations warm each fresh
	// worker with one batch.
	Warmups int
	// FreshWarmup is the size of a later generation's warm-up batch as a
	// share of the case's batch, at least one op (0: a whole batch).
	FreshWarmup float64
	// Ops > 0 is every batch's size. With 0 each case is calibrated in
	// the first warm-up pass until a batch lasts MinBatch (see calibrate).
	Ops      int
	MinBatch time.Duration
	// Continue, when set, is asked before each round whether to run it,
	// with what ran so far (compare's --min-time). The rounds stop at the
	// first no, or at Rounds.
	Continue func(Status) bool
	// Narrow, when set, is asked before each later generation which
	// groups it runs (some of Groups, or parts of them): the cases whose
	// figures are not settled yet. None ends the rounds.
	Narrow func(Status) [][]int
}

// Status is where the rounds are, for Plan.Continue and Plan.Narrow.
type Status struct {
	Rounds     int           // measured rounds finished
	Generation int           // the generation of the last of them (0: none yet)
	Measuring  time.Duration // since the first round began
}

// Stages the engine goes through, as Progress reports them.
const (
	StageStart  = "start"  // a generation's workers starting (Workers only)
	StageWarmup = "warmup" // a warm-up pass, with calibration in the first
	StageRound  = "round"  // a measured round
)

// Progress is reported after each step: a worker started, a case warmed
// up (and calibrated), a batch of a round run.
type Progress struct {
	Stage      string
	Generation int
	// Round and Rounds: StageRound, this round (1-based) of Plan.Rounds;
	// StageWarmup, this pass of Plan.Warmups.
	Round, Rounds int
	Done, Total   int // steps of this stage (of this round or pass) done, of how many
	Case          int
	Traced        bool
	// Left estimates the time until the last round ends (0: no estimate
	// yet, before the first round is done); with Plan.Narrow it is the
	// time to the cap of Rounds, which a narrower generation or a stop
	// shortens (AtMost).
	Left   time.Duration
	AtMost bool
}

// Outcome is what the engine decided while it ran, and where its time went.
type Outcome struct {
	Rounds int   // measured rounds finished
	Ops    []int // each case's batch size (0: the case failed before it was sized)
	Time   Times
}

// Times are where the engine's time went, on its clock: each stage's
// whole time, so that with the time before and after the engine they add
// up to a run's.
type Times struct {
	Start     time.Duration // ending a generation's workers and starting the next's
	Calibrate time.Duration // calibration batches
	Warmup    time.Duration // warm-up batches
	Switch    time.Duration // attaching and detaching the probe
	// Rounds are the measured batches, each from handing it to its
	// workload to its records kept; Measured the part of it inside the
	// batches as the workloads timed them (Batch.WallNs), what the
	// figures are made of.
	Rounds, Measured time.Duration
}

// ErrInterrupted marks rounds cut short by their context.
var ErrInterrupted = errors.New("interrupted")

// Runner runs a plan's rounds over a workload.
type Runner struct {
	Plan
	Tracer   Tracer // nil: untraced halves only
	Progress func(Progress)
	// Clock reads the time for Times, Status.Measuring and the estimate
	// (nil: time.Now); a test's clock makes the estimate checkable.
	Clock func() time.Time
}

// engine is a Runner's state while it runs.
type engine struct {
	*Runner
	w       Workload
	workers Workers // w, when its cases have workers; else nil
	sw      Switch
	out     Outcome
	cases   []int   // 0…n−1
	groups  [][]int // what the current generation runs
	est     estimator
}

// Run runs the plan: the first generation's start and warm-ups, then the
// measured rounds in the seed's order, each later generation starting
// before its first round. It returns what it decided with the error that
// stopped it, if any; the batches are the workload's.
func (r *Runner) Run(ctx context.Context, w Workload) (Outcome, error) {
	e := &engine{Runner: r, w: w, sw: Switch{Tracer: r.Tracer}, groups: r.Groups}
	e.workers, _ = w.(Workers)
	for _, g := range r.Groups {
		for range g {
			e.cases = append(e.cases, len(e.cases))
		}
	}
	e.out.Ops = make([]int, len(e.cases))
	e.est = newEstimator(&r.Plan)
	err := e.run(ctx)
	if ctx.Err() != nil {
		err = ErrInterrupted
	}
	return e.out, err
}

func (e *engine) now() time.Time {
	if e.Clock != nil {
		return e.Clock()
	}
	return time.Now()
}

func (e *engine) run(ctx context.Context) error {
	if err := e.first(ctx); err != nil {
		return err
	}
	e.est.firstDone(e.out.Time)
	order := NewOrderer(e.Seed, e.Untraced, e.Traced)
	start := e.now()
	for round := 0; round < e.Rounds; round++ {
		st := Status{Rounds: round, Generation: e.generation(round - 1), Measuring: e.now().Sub(start)}
		if e.Continue != nil && !e.Continue(st) {
			break
		}
		gen := e.generation(round)
		if round > 0 && gen != e.generation(round-1) {
			if e.Narrow != nil {
				if e.groups = e.Narrow(st); len(e.groups) == 0 {
					break
				}
			}
			if e.workers != nil {
				if err := e.renew(ctx, gen); err != nil {
					return err
				}
			}
		}
		if err := e.round(ctx, round, gen, order.Round(e.groups)); err != nil {
			return err
		}
		e.out.Rounds = round + 1
	}
	if e.workers != nil {
		t := e.now()
		e.workers.Finish()
		e.out.Time.Start += e.now().Sub(t)
	}
	return nil
}

// generation is the 1-based generation of the 0-based round (0 before
// the first).
func (e *engine) generation(round int) int {
	switch {
	case round < 0:
		return 0
	case e.GenerationRounds <= 0:
		return 1
	}
	return round/e.GenerationRounds + 1
}

// first readies the first generation: every worker started, then each
// case sized (calibrated, or given Plan.Ops) and warmed up in the first
// warm-up pass, then the other passes.
func (e *engine) first(ctx context.Context) error {
	if _, err := e.set(false, false); err != nil {
		return err
	}
	if e.workers != nil {
		if err := e.start(ctx, 1, e.cases); err != nil {
			return err
		}
	}
	for pass := 0; pass < max(e.Warmups, 1); pass++ {
		for i, c := range e.cases {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			if pass == 0 {
				if err := e.calibrate(ctx, c); err != nil {
					return err
				}
			}
			if pass == e.Warmups {
				continue // no warm-up: sizing only
			}
			if err := e.warmup(ctx, c, e.out.Ops[c]); err != nil {
				return err
			}
			e.report(Progress{Stage: StageWarmup, Generation: 1, Round: pass + 1, Rounds: e.Warmups, Done: i + 1, Total: len(e.cases), Case: c})
		}
	}
	return nil
}

// start starts generation gen's workers for cases, together, and reports
// each as started.
func (e *engine) start(ctx context.Context, gen int, cases []int) error {
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	t := e.now()
	e.workers.Start(ctx, gen, cases)
	e.out.Time.Start += e.now().Sub(t)
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	for i, c := range cases {
		e.report(Progress{Stage: StageStart, Generation: gen, Done: i + 1, Total: len(cases), Case: c})
	}
	return nil
}

// renew starts generation gen: the last one's workers end, the cases of
// the generation's groups get fresh ones, started together, each then
// warmed up by one batch (Plan.FreshWarmup of it).
func (e *engine) renew(ctx context.Context, gen int) error {
	t0 := e.now()
	e.workers.Renew(gen)
	e.out.Time.Start += e.now().Sub(t0)
	if _, err := e.set(false, false); err != nil {
		return err
	}
	var cases []int
	for _, g := range e.groups {
		cases = append(cases, g...)
	}
	slices.Sort(cases)
	if err := e.start(ctx, gen, cases); err != nil {
		return err
	}
	for i, c := range cases {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		ops := e.out.Ops[c]
		if e.FreshWarmup > 0 {
			ops = max(1, int(float64(ops)*e.FreshWarmup))
		}
		if err := e.warmup(ctx, c, ops); err != nil {
			return err
		}
		e.report(Progress{Stage: StageWarmup, Generation: gen, Round: 1, Rounds: 1, Done: i + 1, Total: len(cases), Case: c})
	}
	e.est.renewed(e.now().Sub(t0))
	return nil
}

// warmup runs one untraced batch of ops, kept in the run and left out of
// the figures.
func (e *engine) warmup(ctx context.Context, c, ops int) error {
	if !e.w.Live(c) {
		return nil
	}
	took, err := e.batch(ctx, c, &results.Batch{Kind: results.BatchWarmup, Ops: ops})
	e.out.Time.Warmup += took
	return err
}

// round runs one measured round's slots, skipping the cases that failed.
func (e *engine) round(ctx context.Context, round, gen int, slots []Slot) error {
	e.est.roundBegins(slots)
	for i, s := range slots {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		if !e.w.Live(s.Case) {
			continue
		}
		b := results.Batch{Round: round + 1, Generation: gen, Ops: e.out.Ops[s.Case], Traced: s.Traced}
		t := e.now()
		took, err := e.batch(ctx, s.Case, &b)
		if err != nil {
			return err
		}
		e.out.Time.Rounds += took
		e.out.Time.Measured += time.Duration(b.WallNs)
		e.est.ran(i, s, e.now().Sub(t)) // the switch included: the next round pays it too
		left, atMost := e.est.left(round+1, e.live(), e.w.Live)
		e.report(Progress{Stage: StageRound, Generation: gen, Round: round + 1, Rounds: e.Rounds, Done: i + 1, Total: len(slots),
			Case: s.Case, Traced: s.Traced, Left: left, AtMost: atMost})
	}
	return nil
}

// live are the cases of the current groups that still run batches: the
// rounds to come run them.
func (e *engine) live() []int {
	var out []int
	for _, g := range e.groups {
		for _, c := range g {
			if e.w.Live(c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// batch attaches or detaches the probe for b and has the workload run
// it; it returns how long the batch took on the engine's clock, the
// switch of the probe left out (Times.Switch).
func (e *engine) batch(ctx context.Context, c int, b *results.Batch) (time.Duration, error) {
	stacks, err := e.set(b.Traced, StacksRound(b.Round))
	if err != nil {
		return 0, err
	}
	b.StacksTaken = stacks
	t := e.now()
	err = e.w.Batch(ctx, c, b)
	return e.now().Sub(t), err
}

// set attaches or detaches the probe, on the clock of Times.Switch.
func (e *engine) set(traced, stacks bool) (bool, error) {
	t := e.now()
	stacks, err := e.sw.Set(traced, stacks)
	e.out.Time.Switch += e.now().Sub(t)
	return stacks, err
}

func (e *engine) report(p Progress) {
	if e.Progress != nil {
		e.Progress(p)
	}
}
