package rounds

import "time"

// smoothing is the weight of the newest duration in each running
// estimate. A case's batch is timed once a round in each half, so the
// estimate follows about its last four rounds: on an ext4 without a
// journal the rounds slow down as the run deletes files, and the first
// rounds' pace would promise too early an end; one preempted batch moves
// it by a quarter of its excess, and the next round takes most of that
// back.
const smoothing = 0.25

// estimator prices what is left of a run from what ran so far: the rest
// of this round, the other rounds of this generation and the later
// generations, each a start of fresh workers and its rounds, every step
// priced by its like so far. A measured batch is priced by its case and
// half, from handing it to its workload to its records kept (the probe's
// attach or detach and the read of its maps included); a generation's
// start by the later generations' starts so far (ending the last one's
// workers, starting and warming up the next), and before the first of
// them by the first generation's start and one warm-up pass.
//
// The progress line of the old runner priced the rounds left by the last
// five rounds and nothing else: under load it said "~33 s left" at 100 s
// of a 150 s run, as a generation's start (a third of a Python run's
// time then) was in no round's time.
type estimator struct {
	plan     *Plan
	slot     map[Slot]time.Duration // the running estimate of a case's batch in a half
	renew    time.Duration          // of a later generation's start
	renewals int
	slots    []Slot // the round running
	pos      int    // its last slot run
}

func newEstimator(p *Plan) estimator {
	return estimator{plan: p, slot: map[Slot]time.Duration{}}
}

func smooth(old, v time.Duration, first bool) time.Duration {
	if first {
		return v
	}
	return old + time.Duration(smoothing*float64(v-old))
}

// firstDone prices a later generation's start from the first's: its
// workers' start and one warm-up pass (of Plan.FreshWarmup's size).
func (e *estimator) firstDone(t Times) {
	warm := t.Warmup / time.Duration(max(e.plan.Warmups, 1))
	if e.plan.FreshWarmup > 0 {
		warm = time.Duration(float64(warm) * e.plan.FreshWarmup)
	}
	e.renew = t.Start + warm
}

func (e *estimator) renewed(took time.Duration) {
	e.renew = smooth(e.renew, took, e.renewals == 0)
	e.renewals++
}

func (e *estimator) roundBegins(slots []Slot) { e.slots, e.pos = slots, -1 }

// ran records the batch of slot i of the round, which took took.
func (e *estimator) ran(i int, s Slot, took time.Duration) {
	old, seen := e.slot[s]
	e.slot[s] = smooth(old, took, !seen)
	e.pos = i
}

// left is the time until the last round ends, after a batch of round
// (1-based) ran, with live the cases the rounds to come run; 0 while a
// live case's batch has no price yet (its first round). atMost: a
// narrowing rule may end the rounds before Plan.Rounds. A stop rule
// (Plan.Continue) makes the end unknown: no estimate.
func (e *estimator) left(round int, live []int, isLive func(int) bool) (left time.Duration, atMost bool) {
	if e.plan.Continue != nil {
		return 0, false
	}
	var halves []bool
	if e.plan.Untraced {
		halves = append(halves, false)
	}
	if e.plan.Traced {
		halves = append(halves, true)
	}
	var perRound time.Duration
	for _, c := range live {
		for _, tr := range halves {
			d, ok := e.slot[Slot{c, tr}]
			if !ok {
				return 0, false
			}
			perRound += d
		}
	}
	for _, s := range e.slots[e.pos+1:] {
		if isLive(s.Case) {
			left += e.slot[s]
		}
	}
	rounds := e.plan.Rounds - round
	left += time.Duration(rounds) * perRound
	if gr := e.plan.GenerationRounds; gr > 0 && rounds > 0 {
		left += time.Duration((e.plan.Rounds-1)/gr-(round-1)/gr) * e.renew
	}
	return left, e.plan.Narrow != nil
}
