package results_test

import (
	"math"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// The median's 95% interval comes from order statistics: for 10 samples
// the 2nd and 9th smallest (P = 1 − 2·11/1024 = 97.9%; the 3rd and 8th
// give only 89%), for 6 the extremes (96.9%), and 5 give none.
func TestMedianInterval(t *testing.T) {
	e := results.Median([]float64{7, 1, 10, 3, 5, 2, 9, 4, 8, 6})
	if e.Center != 5.5 || e.Lo != 2 || e.Hi != 9 || e.N != 10 {
		t.Errorf("median of 1..10 = %+v, want 5.5 [2, 9]", e)
	}
	if e := results.Median([]float64{3, 1, 2, 6, 5, 4}); e.Lo != 1 || e.Hi != 6 || !e.Bounded() {
		t.Errorf("median of 1..6 = %+v, want [1, 6]", e)
	}
	if e := results.Median([]float64{1, 2, 3, 4, 5}); e.Bounded() || e.Center != 3 {
		t.Errorf("median of 5 samples = %+v, want 3 with no interval", e)
	}
	if got := results.RatioText(results.Estimate{Center: 0.61, Lo: 0.594, Hi: 0.633, N: 10}); got != "0.61 [0.59–0.63]" {
		t.Errorf("ratio cell = %q", got)
	}
}

// armRounds is an arm whose round r ran untraced at ops[r] ops/s (1000
// ops a batch), and traced at 90% of that.
func armRounds(name string, opsPerS []float64) results.ArmResult {
	a := results.ArmResult{CaseID: results.CaseID{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400}, Ops: 1000}
	for i, v := range opsPerS {
		wall := int64(math.Round(1000 / v * 1e9))
		a.Batches = append(a.Batches, results.Batch{Round: i + 1, Ops: 1000, WallNs: wall},
			results.Batch{Round: i + 1, Ops: 1000, Traced: true, WallNs: wall * 10 / 9})
	}
	return a
}

// A ratio is taken per round and then summarized: the machine's drift
// from round to round (here ×6) cancels, where the two arms' own
// intervals overlap widely.
func TestPairedRatio(t *testing.T) {
	base := []float64{1000, 2000, 3000, 4000, 5000, 6000}
	half := []float64{500, 1000, 1500, 2000, 2500, 3000}
	run := &results.Run{Protocol: results.Protocol{Name: results.ProtocolRounds}, Arms: []results.ArmResult{armRounds("TemporaryFile", base), armRounds("NamedTemporaryFile", half)}}
	sums := results.SummarizeAll(run, resultstest.Labs.Baselines)
	r := sums[1].Ratio
	if math.Abs(r.Center-0.5) > 1e-6 || math.Abs(r.Lo-0.5) > 1e-6 || math.Abs(r.Hi-0.5) > 1e-6 || r.N != 6 {
		t.Errorf("paired ratio %+v, want 0.5 [0.5–0.5] over 6 rounds", r)
	}
	// Rounds that drift in the order they ran are worth fewer than six
	// independent ones: the baseline's own interval spans the drift, or
	// more.
	if o := sums[0].OpsPerS; o.Lo > 1000+1e-3 || o.Hi < 6000-1e-3 {
		t.Errorf("baseline ops/s %+v: want an interval holding all the drifting rounds, [1000, 6000]", o)
	}
	if o := sums[1].Observer; math.Abs(o.Center-0.9) > 1e-3 {
		t.Errorf("traced ÷ untraced %+v, want 0.9", o)
	}
	if b := sums[0].Ratio; b.Center != 1 || b.Lo != 1 || b.Hi != 1 {
		t.Errorf("the baseline's own ratio %+v, want 1", b)
	}
	// The seed protocol takes the labs' ratio of medians, which has no
	// interval.
	run.Protocol.Name = results.ProtocolSeed
	seed := results.SummarizeAll(run, resultstest.Labs.Baselines)[1].Ratio
	if math.Abs(seed.Center-0.5) > 1e-6 || seed.Bounded() {
		t.Errorf("seed ratio %+v, want 0.5 without an interval", seed)
	}
}

// Beside CPU hogs each worker gets its own share of a CPU: here the
// baseline's waits for one half of every batch and the other arm's for
// none in odd rounds (its ops/s then 0.9× the baseline's) and half in
// even ones (0.45×). The ratio pairs the time each ran, 0.45 in every
// round, while the ops/s stay the wall time's; a batch whose wait was
// not read (0) keeps its ops/s.
func TestRatioLeavesOutRunQueueWait(t *testing.T) {
	base := armRounds("TemporaryFile", []float64{1000, 1000, 1000, 1000, 1000, 1000})
	other := armRounds("NamedTemporaryFile", []float64{900, 450, 900, 450, 900, 450})
	for i := range base.Batches {
		if b := &base.Batches[i]; !b.Traced {
			b.RunQueueWaitNs = b.WallNs / 2
		}
		if b := &other.Batches[i]; !b.Traced && b.Round%2 == 0 {
			b.RunQueueWaitNs = b.WallNs / 2
		}
	}
	run := &results.Run{Protocol: results.Protocol{Name: results.ProtocolRounds}, Arms: []results.ArmResult{base, other}}
	sums := results.SummarizeAll(run, resultstest.Labs.Baselines)
	if r := sums[1].Ratio; math.Abs(r.Lo-0.45) > 1e-6 || math.Abs(r.Hi-0.45) > 1e-6 {
		t.Errorf("ratio %+v, want 0.45 [0.45–0.45]: the time each worker ran", r)
	}
	if o := sums[1].OpsPerS; o.Lo > 450+1e-3 || o.Hi < 900-1e-3 {
		t.Errorf("ops/s %+v: want the wall time's, holding 450 and 900", o)
	}
	if r := sums[1].Rounds[0]; math.Abs(r.OpsPerS-900) > 1e-6 || math.Abs(r.OwnCPUOpsPerS-900) > 1e-6 {
		t.Errorf("round 1 (no wait read): ops/s %v, on its own CPU %v; want 900 both", r.OpsPerS, r.OwnCPUOpsPerS)
	}
}

// Rounds of one worker generation share its state, so they are one
// sample, not five. Eight generations whose states put the figure at 1
// to 8 (in no order: see the drift below), five rounds each: per round,
// the median's interval is [3, 6] and misses an independent run whose
// generations landed low (median 2) or high (7); per generation it spans
// them.
func TestClusteredInterval(t *testing.T) {
	var units []results.Unit
	var rounds []float64
	for g, level := range []float64{5, 2, 8, 1, 6, 3, 7, 4} {
		for r := 0; r < 5; r++ {
			v := level + 0.001*float64(r)
			units = append(units, results.Unit{Unit: g + 1, Value: v})
			rounds = append(rounds, v)
		}
	}
	naive, clustered := results.Median(rounds), results.ClusteredMedian(units)
	if !naive.Bounded() || naive.Contains(2) || naive.Contains(7) {
		t.Fatalf("per-round interval %+v: the test needs one that misses 2 and 7", naive)
	}
	if !clustered.Contains(2) || !clustered.Contains(7) || clustered.N != 8 {
		t.Errorf("per-generation interval %+v over %d units, want one holding 2 and 7 over 8", clustered, clustered.N)
	}
	// Twenty generations that drift from 1 to 20 in the order they ran
	// are one state that moved, not twenty draws: their lag-1 correlation
	// makes them worth fewer than six, and the interval is wider than
	// twenty draws' [6, 15]: all of them.
	var drift []results.Unit
	for g := 1; g <= 20; g++ {
		drift = append(drift, results.Unit{Unit: g, Value: float64(g)})
	}
	if d := results.ClusteredMedian(drift); d.Lo != 1 || d.Hi != 20 || d.Center != 10.5 {
		t.Errorf("drifting generations: %+v, want the median 10.5 in [1, 20], wider than twenty draws' [6, 15]", d)
	}
	// Ten generations that move in two stretches of five, as a file
	// system's state does (#18), are not ten draws either: wider than the
	// 2nd–9th of ten.
	var stretches []results.Unit
	for i, v := range []float64{3, 1, 4, 2, 5, 13, 11, 14, 12, 15} {
		stretches = append(stretches, results.Unit{Unit: i + 1, Value: v})
	}
	if d := results.ClusteredMedian(stretches); d.Lo >= 2 || d.Hi <= 14 {
		t.Errorf("two stretches of generations: %+v, want an interval wider than [2, 14]", d)
	}
	// The same values in a shuffled order are twenty draws.
	var shuffled []results.Unit
	for i, v := range []float64{7, 19, 2, 12, 16, 4, 10, 20, 1, 14, 8, 17, 5, 11, 3, 18, 9, 13, 6, 15} {
		shuffled = append(shuffled, results.Unit{Unit: i + 1, Value: v})
	}
	if d := results.ClusteredMedian(shuffled); d.N != 20 || d.Lo != 6 || d.Hi != 15 {
		t.Errorf("shuffled generations: %+v, want [6, 15] over 20", d)
	}
	// Four generations give no interval at all, whatever their rounds.
	if c := results.ClusteredMedian(units[:20]); c.Bounded() || c.N != 4 {
		t.Errorf("4 generations of 5 rounds: %+v, want no interval", c)
	}
}

// A run's rounds carry their generation; a run saved before they did
// counts generations by the warm-up batch that starts each one. Both give
// the ratio one sample per generation.
func TestRatioPerGeneration(t *testing.T) {
	base := armRounds("TemporaryFile", []float64{1000, 1000, 2000, 2000, 3000, 3000, 4000, 4000, 5000, 5000, 6000, 6000})
	half := armRounds("NamedTemporaryFile", []float64{500, 500, 1000, 1000, 1500, 1500, 2000, 2000, 2500, 2500, 3000, 3000})
	for _, recorded := range []bool{true, false} {
		var arms []results.ArmResult
		for _, a := range []results.ArmResult{base, half} {
			var out []results.Batch
			for _, b := range a.Batches {
				g := (b.Round-1)/2 + 1
				if b.Round%2 == 1 && !b.Traced {
					out = append(out, results.Batch{Kind: results.BatchWarmup, Ops: b.Ops, WallNs: b.WallNs})
				}
				if recorded {
					b.Generation = g
				}
				out = append(out, b)
			}
			a.Batches = out
			arms = append(arms, a)
		}
		run := &results.Run{Protocol: results.Protocol{Name: results.ProtocolRounds}, Arms: arms}
		sums := results.SummarizeAll(run, resultstest.Labs.Baselines)
		if r := sums[1].Ratio; math.Abs(r.Center-0.5) > 1e-6 || r.N != 6 || !r.Bounded() {
			t.Errorf("recorded %v: ratio %+v, want 0.5 over 6 generations", recorded, r)
		}
		if o := sums[0].OpsPerS; o.N != 6 || math.Abs(o.Center-3500) > 1e-3 {
			t.Errorf("recorded %v: ops/s %+v, want the median of 6 generations' medians", recorded, o)
		}
		if g := sums[1].Rounds[11].Generation; g != 6 {
			t.Errorf("recorded %v: round 12 in generation %d, want 6", recorded, g)
		}
	}
}

// A whole run that moved no more than runs move is no change (#29): the
// generations of the two runs are told apart (each run's own spread is
// 1%), but earlier runs spread as far between them, so CompareRuns,
// which tests against that spread too, calls it noise; with no spread
// between runs it is the U test's change.
func TestCompareRunsCountsTheSpreadBetweenRuns(t *testing.T) {
	var old, cur []float64
	for i := range 10 {
		v := 1 + 0.001*float64(i%5)
		old, cur = append(old, v), append(cur, 1.08*v)
	}
	alone := results.CompareRuns(results.Median(old), results.Median(cur), old, cur, results.Spread{}, 5)
	if alone.Verdict != results.VerdictChanged || alone.Between != nil {
		t.Fatalf("without a spread between runs: %+v, want changed by the U test", alone)
	}
	spread := results.Spread{LogSD: 0.05, Runs: 6}
	c := results.CompareRuns(results.Median(old), results.Median(cur), old, cur, spread, 5)
	want := results.StudentTwoSidedP(math.Log(1.08)/(math.Sqrt2*0.05), 5)
	if c.Verdict != results.VerdictSame || math.Abs(c.PBetween-want) > 1e-4 || c.P != c.PBetween {
		t.Errorf("with runs spreading 5%%: %+v, want ~ with p = p between runs = %.4f", c, want)
	}
	// Far beyond the runs' spread: changed, and p is the larger of the two.
	far := append([]float64(nil), cur...)
	for i := range far {
		far[i] *= 1.5
	}
	c = results.CompareRuns(results.Median(old), results.Median(far), old, far, spread, 5)
	if c.Verdict != results.VerdictChanged || c.P < c.PBetween {
		t.Errorf("a 62%% change against runs spreading 5%%: %+v, want changed", c)
	}
}

// "The same count" (#29): exact counts that did not move are the same,
// any count from 0 is a change, and a count shared between ops is the
// same while it moves within the spread of its generations, or by less
// than the minimum effect or CountFloor.
func TestCountChanged(t *testing.T) {
	ones := []float64{1, 1, 1, 1, 1, 1}
	shared := []float64{0.2, 0.5, 0.3, 0.6, 0.4, 0.35}
	sharedMore := []float64{0.45, 0.6, 0.4, 0.7, 0.5, 0.55}
	for _, tc := range []struct {
		name     string
		old, cur []float64
		o, n     float64
		bytes    bool
		want     bool
	}{
		{"exact, unchanged", ones, ones, 1, 1, false, false},
		{"from nothing", []float64{0, 0, 0, 0, 0, 0}, ones, 0, 1, false, true},
		{"one more call", ones, []float64{2, 2, 2, 2, 2, 2}, 1, 2, false, true},
		{"within the minimum effect", ones, []float64{1.03, 1.03, 1.03, 1.03, 1.03, 1.03}, 1, 1.03, false, false},
		{"shared, within its spread", shared, sharedMore, 0.375, 0.525, false, false},
		{"below the floor", []float64{0, 0, 0, 0, 0, 0}, []float64{0.02, 0.02, 0.02, 0.02, 0.02, 0.02}, 0, 0.02, false, false},
		{"bytes doubled", []float64{400, 400, 400, 400}, []float64{800, 800, 800, 800}, 400, 800, true, true},
		{"bytes below the floor", []float64{0, 0, 0, 0}, []float64{30, 30, 30, 30}, 0, 30, true, false},
		{"a whole trace, one sample", nil, nil, 3, 4, false, true},
	} {
		if got := results.CountChanged(tc.old, tc.cur, tc.o, tc.n, 5, tc.bytes); got != tc.want {
			t.Errorf("%s: changed %v, want %v", tc.name, got, tc.want)
		}
	}
}

// Where the traced batches took stacks in some rounds and none in the
// others, the syscall terms and TRACED come from the ones that took none
// and the stacks from the ones that did, whose own cost is
// StacksObserver; a run whose traced batches all took stacks (or all
// none, as runs saved before say) pools them all, as before.
func TestStacksBatchesApart(t *testing.T) {
	split := armRounds("TemporaryFile", []float64{1000, 1000, 1000, 1000, 1000, 1000})
	for i := range split.Batches {
		b := &split.Batches[i]
		if !b.Traced {
			continue
		}
		calls := uint64(2000) // 2 an op where no stacks are taken
		if b.StacksTaken = b.Round%2 == 1; b.StacksTaken {
			b.WallNs = b.WallNs * 9 / 8 // 0.8 of the untraced batch's ops/s
			calls = 3000
			b.Stacks = []results.StackRecord{{Class: results.ClassUser, Samples: 4, Ns: 4000}}
		}
		b.Records = []results.ClassRecord{{Class: "getppid", Calls: calls, TotalNs: calls * 300}}
	}
	s := results.Summarize(&split, results.ProtocolRounds)
	if o := s.Observer; math.Abs(o.Center-0.9) > 1e-3 || o.N != 3 {
		t.Errorf("TRACED %+v, want 0.9 over the 3 rounds without stacks", o)
	}
	if o := s.StacksObserver; math.Abs(o.Center-0.8) > 1e-3 || o.N != 3 {
		t.Errorf("TRACED with stacks %+v, want 0.8 over the 3 rounds with them", o)
	}
	if len(s.Classes) != 1 || s.Classes[0].CallsPerOp != 2 || s.Traced.Ops != 3000 {
		t.Errorf("classes %+v over %d traced ops: want getppid at 2 an op, from the 3 batches without stacks", s.Classes, s.Traced.Ops)
	}
	if len(s.Traced.Stacks) != 1 || s.Traced.Stacks[0].Samples != 12 {
		t.Errorf("stacks %+v, want the 3 stack batches' 12 samples", s.Traced.Stacks)
	}
	// Counts are exact in every traced batch: the work is every round's.
	for _, r := range s.Rounds {
		want := 2.0
		if r.Round%2 == 1 {
			want = 3
		}
		if got := r.Work["getppid calls"]; got != want {
			t.Errorf("round %d: work %v, want getppid/op %v", r.Round, r.Work, want)
		}
	}

	for i := range split.Batches {
		split.Batches[i].StacksTaken = false
	}
	s = results.Summarize(&split, results.ProtocolRounds)
	if o := s.Observer; o.N != 6 || s.StacksObserver.Known() || s.Traced.Ops != 6000 {
		t.Errorf("unsplit: TRACED %+v with stacks %+v over %d ops, want 6 rounds pooled and none apart", o, s.StacksObserver, s.Traced.Ops)
	}
}
