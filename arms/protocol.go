//go:build linux

package arms

import (
	"context"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/rounds"
)

// runRounds runs the plan in the rounds engine: every worker started,
// every case calibrated and warmed up, then the measured rounds in the
// seeded order, with fresh workers every --worker-rounds.
func (r *Runner) runRounds(ctx context.Context, p *Plan, runs []*caseRun) error {
	engine := &rounds.Runner{
		Plan: rounds.Plan{Groups: p.Groups(), Seed: p.Seed, Rounds: p.RoundsFor(""),
			Untraced: p.Baseline || r.Tracer == nil, Traced: r.Tracer != nil,
			GenerationRounds: p.WorkerRounds, Warmups: 1, FreshWarmup: FreshWarmup, Ops: p.Ops, MinBatch: p.MinBatch},
		Tracer:   r.Tracer,
		Progress: func(pr rounds.Progress) { r.reportRound(pr, runs) },
	}
	if p.Until > 0 {
		engine.Narrow = func(rounds.Status) [][]int { return unsettled(p, runs) }
	}
	out, err := engine.Run(ctx, &labCases{r: r, p: p, runs: runs})
	for i, n := range out.Ops {
		runs[i].res.Ops = n
	}
	r.Times = out.Time
	return err
}

// unsettled are the groups of the cases whose headline intervals are
// still wider than p.Until, or unbounded (under six generations), with
// each group's baseline while a ratio to it is: the next generation runs
// them alone. A failed case is settled: it runs no more.
func unsettled(p *Plan, runs []*caseRun) [][]int {
	res := make([]results.ArmResult, len(runs))
	for i, cr := range runs {
		res[i] = cr.res
	}
	labs := Knowledge().Baselines
	sums := results.SummarizeAll(&results.Run{Protocol: p.Describe(), Arms: res}, labs)
	wide := func(e results.Estimate) bool {
		return e.Known() && (!e.Bounded() || (e.Hi-e.Lo)/e.Center > p.Until)
	}
	var out [][]int
	for _, g := range p.Groups() {
		var next []int
		base, baseWide := -1, false
		for _, c := range g {
			if runs[c].dead {
				continue
			}
			s := sums[c]
			if labs[s.Lab] == s.Arm {
				base, baseWide = c, wide(s.Observer)
				continue
			}
			if wide(s.Ratio) {
				baseWide = true // its ratio needs the baseline's rounds
				next = append(next, c)
			} else if wide(s.Observer) {
				next = append(next, c)
			}
		}
		if base >= 0 && baseWide {
			next = append([]int{base}, next...)
		}
		if len(next) > 0 {
			out = append(out, next)
		}
	}
	return out
}

// reportRound says where the engine is as the progress line shows it:
// the first generation's starts and calibration, then the rounds; a later
// generation's start counts as part of its first round.
func (r *Runner) reportRound(pr rounds.Progress, runs []*caseRun) {
	out := Progress{Done: pr.Done, Total: pr.Total, Case: runs[pr.Case].Case}
	switch {
	case pr.Stage == rounds.StageRound:
		out.Stage, out.Round, out.Rounds, out.Left, out.AtMost = StageRound, pr.Round, pr.Rounds, pr.Left, pr.AtMost
	case pr.Generation > 1:
		return
	case pr.Stage == rounds.StageStart:
		out.Stage = StageStart
	default:
		out.Stage = StageCalibrate
	}
	r.report(out)
}

// labCases are the plan's cases as the rounds engine runs them: each a
// worker process, renewed with its group's directory every generation.
type labCases struct {
	r    *Runner
	p    *Plan
	runs []*caseRun
}

func (l *labCases) Batch(ctx context.Context, c int, b *results.Batch) error {
	return l.r.batch(ctx, l.p, l.runs[c], b)
}

// Live: a case runs batches while it has a worker and has not failed (an
// interrupt can leave it without one).
func (l *labCases) Live(c int) bool { return !l.runs[c].dead && l.runs[c].w != nil }

func (l *labCases) Start(ctx context.Context, _ int, cases []int) {
	l.r.startAll(ctx, l.p, l.runs, cases)
}

// Renew ends every worker and gives every group a fresh directory: see
// Plan.WorkerRounds.
func (l *labCases) Renew(int) {
	l.Finish()
	l.r.groupDirs(l.p, l.runs)
}

// Finish asks every worker to quit, then waits for them all, then for
// the generation's fork servers.
func (l *labCases) Finish() {
	for _, cr := range l.runs {
		if cr.w != nil {
			cr.w.Quit()
		}
	}
	for _, cr := range l.runs {
		cr.finish()
	}
	l.r.closeServers(false)
}

// runSeed runs the labs' published method: one case after another, each
// with its fixed batch (1000 ops; one round trip in the buffers lab) run
// untraced and traced in turn, as many times as the lab repeats it.
func (r *Runner) runSeed(ctx context.Context, p *Plan, runs []*caseRun) error {
	sw := rounds.Switch{Tracer: r.Tracer}
	for i, cr := range runs {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		r.start(ctx, p, cr)
		cr.res.Ops = p.Ops
		if cr.res.Ops == 0 {
			cr.res.Ops = SeedOpsModes
			if cr.Arm.Lab == LabBuffers {
				cr.res.Ops = 1
			}
		}
		repeats := p.RoundsFor(cr.Arm.Lab)
		for round := 1; round <= repeats && !cr.dead; round++ {
			for _, traced := range []bool{false, true} {
				if traced && r.Tracer == nil || !traced && !p.Baseline && r.Tracer != nil {
					continue
				}
				if ctx.Err() != nil {
					return ErrInterrupted
				}
				stacks, err := sw.Set(traced, rounds.StacksRound(round))
				if err != nil {
					return err
				}
				b := results.Batch{Round: round, Ops: cr.res.Ops, Traced: traced, StacksTaken: stacks}
				if err := r.batch(ctx, p, cr, &b); err != nil {
					return err
				}
			}
		}
		cr.finish()
		r.report(Progress{Stage: StageCase, Done: i + 1, Total: len(runs), Case: cr.Case})
	}
	return nil
}
