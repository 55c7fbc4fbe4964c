package results_test

import (
	"math"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// runAt is a run of eight generations in which NamedTemporaryFile takes k
// times TemporaryFile's time, within 1% from round to round: its own
// interval of the ratio 1/k is about ±1% wide, however far a whole run
// moves.
func runAt(k float64, started time.Time, dir string) *results.Run {
	jitter := []int64{0, 40, -40, 80, -80, 20, -20, 60}
	var base, named []int64
	for i, j := range jitter {
		base = append(base, 8_000_000+j*1000)
		named = append(named, int64(k*8_000_000)+jitter[(i+3)%len(jitter)]*1000)
	}
	none := func(int) []results.ClassRecord { return nil }
	id := func(arm string) results.CaseID {
		return results.CaseID{Lab: "modes", Arm: arm, Runtime: "go", Dir: dir, PayloadBytes: 400}
	}
	return &results.Run{
		Complete: true, Started: started,
		Protocol: results.Protocol{Name: results.ProtocolRounds, Rounds: len(jitter), WorkerRounds: 1},
		Meta:     results.Meta{KernelRelease: "6.18.0-test", Backend: "tracepoint", Dirs: []results.DirFacts{{Dir: dir}}},
		Arms: []results.ArmResult{
			{CaseID: id("TemporaryFile"), Ops: 100, Batches: resultstest.Batches(100, base, none)},
			{CaseID: id("NamedTemporaryFile"), Ops: 100, Batches: resultstest.Batches(100, named, none)},
		},
	}
}

var day = time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)

// between measures run's spread between runs against earlier and returns
// its summaries without it and with it.
func between(t *testing.T, run *results.Run, earlier ...*results.Run) (own, widened []*results.Summary) {
	t.Helper()
	var named []results.EarlierRun
	for i, e := range earlier {
		named = append(named, results.EarlierRun{Name: string(rune('a' + i)), Run: e})
	}
	own = resultstest.Sums(run)
	run.Derived.Between = results.MeasureBetween(run, own, "runs", named, resultstest.Labs.Baselines)
	return own, resultstest.Sums(run)
}

// Three runs whose ratios are 1/2, 1/2.4 and 1/1.7, each certain of its
// own to ±1%: a run's own interval holds neither other run's ratio; with
// the spread between the runs it holds both.
func TestBetweenRunsWidensWhatOneRunCannotSee(t *testing.T) {
	run := runAt(2, day, "/tmp")
	own, widened := between(t, run, runAt(2.4, day.Add(-time.Hour), "/tmp"), runAt(1.7, day.Add(-2*time.Hour), "/tmp"))
	others := []float64{1 / 2.4, 1 / 1.7}
	for _, v := range others {
		if own[1].Ratio.Contains(v) {
			t.Errorf("own interval %+v holds %.3f: the test needs runs that move more than their intervals", own[1].Ratio, v)
		}
		if !widened[1].Ratio.Contains(v) {
			t.Errorf("widened interval %+v does not hold another run's %.3f", widened[1].Ratio, v)
		}
	}
	if got := run.Derived.Between.Runs; len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("earlier runs read %v, want [a b], newest first", got)
	}
	// The spread is the standard deviation of the three ratios' logs.
	logs := []float64{math.Log(1 / 2.0), math.Log(1 / 2.4), math.Log(1 / 1.7)}
	mean := (logs[0] + logs[1] + logs[2]) / 3
	var ss float64
	for _, v := range logs {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / 2)
	var named *results.CaseSpread
	for i, c := range run.Derived.Between.Cases {
		if c.Case == "modes/NamedTemporaryFile/go//tmp/payload=400" {
			named = &run.Derived.Between.Cases[i]
		}
	}
	// Each run's ratio is a median of rounds 1% apart, so not exactly 1/k.
	if named == nil || named.Runs != 3 || math.Abs(named.Ratio/sd-1) > 0.02 {
		t.Fatalf("NamedTemporaryFile's spread %+v, want %.4f from 3 runs (cases %+v)", named, sd, run.Derived.Between.Cases)
	}
	// The baseline ran as fast in every run: no spread to add.
	if own[0].OpsPerS != widened[0].OpsPerS {
		t.Errorf("TemporaryFile ops/s %+v widened to %+v, though it did not move between runs", own[0].OpsPerS, widened[0].OpsPerS)
	}
	if w := widened[1].Ratio; w.Center != own[1].Ratio.Center || w.Lo >= own[1].Ratio.Lo || w.Hi <= own[1].Ratio.Hi {
		t.Errorf("widened %+v must keep the center and hold the own interval %+v", w, own[1].Ratio)
	}
}

// Runs that agree add nothing; runs not like
// this one (another kernel, other rounds, a plain dir against a fresh
// file system) are not read, and below three runs nothing is estimated.
func TestBetweenRunsOnlyAlikeAndOnlyWhatMoved(t *testing.T) {
	run := runAt(2, day, "/tmp")
	own, widened := between(t, run, runAt(2, day.Add(-time.Hour), "/tmp"), runAt(2, day.Add(-2*time.Hour), "/tmp"))
	for i := range own {
		if own[i].Ratio != widened[i].Ratio || own[i].OpsPerS != widened[i].OpsPerS {
			t.Errorf("%s: %+v became %+v, though the runs agree", own[i].Arm, own[i].Ratio, widened[i].Ratio)
		}
	}
	if !run.Derived.Between.Measured() {
		t.Errorf("three alike runs measured nothing: %+v", run.Derived.Between)
	}

	otherKernel := runAt(2.4, day.Add(-time.Hour), "/tmp")
	otherKernel.Meta.KernelRelease = "6.1.0-test"
	otherRounds := runAt(1.7, day.Add(-time.Hour), "/tmp")
	otherRounds.Protocol.Rounds++
	run = runAt(2, day, "/tmp")
	own, widened = between(t, run, otherKernel, otherRounds, runAt(2.4, day.Add(-time.Hour), "/tmp"))
	if len(run.Derived.Between.Runs) != 1 || run.Derived.Between.Measured() {
		t.Errorf("read %v and measured %+v: only one earlier run is like this one", run.Derived.Between.Runs, run.Derived.Between.Cases)
	}
	if own[1].Ratio != widened[1].Ratio {
		t.Errorf("%+v widened to %+v from one earlier run", own[1].Ratio, widened[1].Ratio)
	}

	// --fresh-fs runs each get a mount of their own: they are one setting,
	// named by the dir they match, and not the plain dir's.
	fresh := func(k float64, age time.Duration, mnt string) *results.Run {
		r := runAt(k, day.Add(-age), mnt)
		r.Meta.Dirs[0].FreshOf = "/tmp"
		return r
	}
	run = fresh(2, 0, "/tmp/tmpprobe-freshfs-1/mnt")
	_, widened = between(t, run, fresh(2.4, time.Hour, "/tmp/tmpprobe-freshfs-2/mnt"), fresh(1.7, 2*time.Hour, "/tmp/tmpprobe-freshfs-3/mnt"),
		runAt(5, day.Add(-time.Hour), "/tmp"))
	if !widened[1].Ratio.Contains(1/2.4) || run.Derived.Between.Cases[1].Case != "modes/NamedTemporaryFile/go//tmp --fresh-fs/payload=400" {
		t.Errorf("fresh runs not matched: %+v, %+v", widened[1].Ratio, run.Derived.Between.Cases)
	}
	if widened[1].Ratio.Contains(1.0 / 5) {
		t.Errorf("the plain /tmp run's ratio 1/5 counted among --fresh-fs runs: %+v", widened[1].Ratio)
	}
}

// A printed interval with the spread between runs is a prediction
// interval for the next run (#29): the next run's median differs from the
// mean of n runs' by a normal of variance s²(1+1/n) (#43: around this
// run's alone, 2s²), so it reaches Student's 97.5% quantile (a 95%
// prediction interval, which held the next run 80% of the time or more
// where 90% did not) for the degrees of freedom of the spread times
// √(1+1/n)·s each side of the runs' geometric mean, and is widened to
// hold this run's median — not by the run's own interval, whose error s
// holds already.
func TestBetweenRunsHoldTheNextRun(t *testing.T) {
	for _, tc := range []struct{ p, df, want float64 }{
		{0.90, 2, 1.8856}, {0.90, 4, 1.5332}, {0.90, 9, 1.3830}, {0.975, 1e6, 1.9600},
	} {
		if got := results.StudentQuantile(tc.p, tc.df); math.Abs(got-tc.want) > 5e-4 {
			t.Errorf("t(%g, %g) = %.4f, want %.4f", tc.p, tc.df, got, tc.want)
		}
	}
	run := runAt(2, day, "/tmp")
	_, widened := between(t, run, runAt(2.4, day.Add(-time.Hour), "/tmp"), runAt(1.7, day.Add(-2*time.Hour), "/tmp"))
	named := results.CaseID{Lab: "modes", Arm: "NamedTemporaryFile", Runtime: "go", Dir: "/tmp", PayloadBytes: 400}
	c, ok := run.Derived.Between.Spread(named)
	if !ok || c.RatioPooled.DF == 0 {
		t.Fatalf("no pooled spread recorded: %+v", run.Derived.Between.Cases)
	}
	// One case with a ratio: pooled with itself, on its own two degrees
	// of freedom, around the geometric mean of the runs' ratios (each
	// within 1% of 1/2, 1/2.4 and 1/1.7).
	mean := math.Exp((math.Log(1/2.0) + math.Log(1/2.4) + math.Log(1/1.7)) / 3)
	if p := c.RatioPooled; math.Abs(p.LogSD-c.Ratio) > 1e-9 || p.DF != 2 || math.Abs(p.Center/mean-1) > 0.01 {
		t.Errorf("pooled %+v, want the case's own %g on 2 df around %g", p, c.Ratio, mean)
	}
	half := results.StudentQuantile(0.975, 2) * math.Sqrt(1+1.0/3) * c.Ratio
	w := widened[1].Ratio
	lo, hi := math.Min(c.RatioPooled.Center*math.Exp(-half), w.Center), math.Max(c.RatioPooled.Center*math.Exp(half), w.Center)
	if math.Abs(w.Lo/lo-1) > 1e-5 || math.Abs(w.Hi/hi-1) > 1e-5 {
		t.Errorf("widened %+v, want [%.4f, %.4f]: t·√(1+1/3)·s = %.4f each side of the runs' mean, holding the run's median", w, lo, hi, half)
	}
	if got := results.NextRunPct(c.RatioSpread()); math.Abs(got-math.Expm1(half)) > 1e-12 {
		t.Errorf("NextRunPct %.4f, want %.4f", got, math.Expm1(half))
	}
}
