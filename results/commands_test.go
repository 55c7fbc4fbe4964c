package results

import (
	"math"
	"testing"
)

// A compared command's shell waits in wait4 while its child runs: that
// time is the child's, so it is in no sum, and user space (wall − Σ
// syscalls) is not made negative by it. A lab arm keeps every class.
func TestWaitForChildrenInNoSum(t *testing.T) {
	recs := []ClassRecord{
		{Class: "wait4", Calls: 1, TotalNs: 900},
		{Class: "vfork", Calls: 1, TotalNs: 50},
		{Class: "write", Calls: 2, TotalNs: 300},
	}
	arm := func(lab string) *ArmResult {
		return &ArmResult{CaseID: CaseID{Lab: lab, Arm: "a"}, Ops: 1, Batches: []Batch{{Round: 1, Ops: 1, Traced: true, WallNs: 1000, Records: recs}}}
	}
	c := Summarize(arm(LabCompare), ProtocolRounds)
	if c.KernelNsPerOp != 300 || c.UserNsPerOp != 700 || c.Rounds[0].Terms["wait4"] != 0 || c.Rounds[0].Terms[UserTerm] != 700 {
		t.Errorf("compare: kernel %.0f, user %.0f, round terms %v: want 300, 700, no wait4", c.KernelNsPerOp, c.UserNsPerOp, c.Rounds[0].Terms)
	}
	if w := c.Class("wait4"); !w.Overlapped || w.Calls != 1 || c.Class("write").Overlapped {
		t.Errorf("compare: wait4 %+v, write %+v: want wait4 shown, marked, and write not", w, c.Class("write"))
	}
	if l := Summarize(arm("modes"), ProtocolRounds); l.KernelNsPerOp != 1250 || l.Class("wait4").Overlapped {
		t.Errorf("a lab arm: kernel %.0f, want every class (1250)", l.KernelNsPerOp)
	}
	// A trace that followed the command's children, as compare does;
	// one that did not traced no child, and its waits are the command's.
	followed := arm(LabTrace)
	followed.Children = true
	if tr := Summarize(followed, ProtocolRounds); tr.KernelNsPerOp != 300 || !tr.Class("wait4").Overlapped || tr.Rounds[0].Terms["wait4"] != 0 {
		t.Errorf("trace --follow: kernel %.0f, wait4 %+v: want 300, wait4 in no sum", tr.KernelNsPerOp, tr.Class("wait4"))
	}
	if tr := Summarize(arm(LabTrace), ProtocolRounds); tr.KernelNsPerOp != 1250 || tr.Class("wait4").Overlapped {
		t.Errorf("trace: kernel %.0f, want every class (1250)", tr.KernelNsPerOp)
	}
}

// Times are throughputs inverted: the median and its interval invert
// exactly, bounds swapped; a missing interval stays missing.
func TestInverseAndDiffers(t *testing.T) {
	e := Estimate{Center: 4, Lo: 2, Hi: 5, N: 8}.Inverse()
	if e.Center != 0.25 || e.Lo != 0.2 || e.Hi != 0.5 || e.N != 8 {
		t.Errorf("1/[2 4 5] = %+v", e)
	}
	if u := (Estimate{Center: 2, Lo: math.Inf(-1), Hi: math.Inf(1), N: 3}).Inverse(); u.Bounded() || u.Center != 0.5 {
		t.Errorf("an unbounded estimate inverted: %+v", u)
	}
	for _, c := range []struct {
		e    Estimate
		want int
	}{
		{Estimate{Center: 1.5, Lo: 1.2, Hi: 1.8, N: 10}, 1},
		{Estimate{Center: 0.5, Lo: 0.4, Hi: 0.6, N: 10}, -1},
		{Estimate{Center: 1.1, Lo: 0.9, Hi: 1.3, N: 10}, 0},    // holds 1
		{Estimate{Center: 1.03, Lo: 1.01, Hi: 1.05, N: 10}, 0}, // under 5%
		{Estimate{Center: 3, Lo: math.Inf(-1), Hi: math.Inf(1), N: 3}, 0},
	} {
		if got := Differs(c.e, 5); got != c.want {
			t.Errorf("Differs(%+v) = %d, want %d", c.e, got, c.want)
		}
	}
}

// #43: a "no different" says what it stands on: the change its interval
// already rules out, or about how many units (rounds, worker generations)
// would tell a change of the minimum effect from none nine times in ten,
// from the units' spread measured robustly, each kind of ratio about its
// own median.
func TestSettle(t *testing.T) {
	// Ten units around 0.9, one of them a round a CPU hog took whole
	// (×4.5): their logs' deviations from the median are 0, 0, 0.02,
	// 0.05, 0.05, 0.1, 0.1, 0.2, 0.2 and 1.5, whose median is 0.075, so
	// σ = 1.4826 × 0.075 = 0.111; against ln 1.05 = 0.0488 the median
	// needs (3.24 × 1.2533 × 0.111 / 0.0488)² = 85.6 units. The interval's
	// half-width would have asked far more (the outlier makes it
	// [0.7–1.15]).
	devs := []float64{-0.2, -0.1, -0.05, 0, 0, 0.05, 0.1, 0.2, 1.5, -0.02}
	around := func(center, k float64) []float64 {
		var v []float64
		for _, d := range devs {
			v = append(v, center*math.Exp(k*d))
		}
		return v
	}
	spread := around(0.9, 1)
	for _, c := range []struct {
		ratio Estimate
		units [][]float64
		want  Settling
	}{
		{Estimate{Center: 0.98, Lo: 0.97, Hi: 1.01, N: 30}, [][]float64{spread}, Settling{Within: 3}},
		{Estimate{Center: 0.9, Lo: 0.7, Hi: 1.15, N: 10}, [][]float64{spread}, Settling{Units: 86}},
		// Asked of the minimum effect, whatever the change measured.
		{Estimate{Center: 1.01, Lo: 0.9, Hi: 1.1, N: 10}, [][]float64{spread}, Settling{Units: 86}},
		// The traced ratios, centred elsewhere, spread alike: the same.
		{Estimate{Center: 0.9, Lo: 0.7, Hi: 1.15, N: 10}, [][]float64{spread, around(0.8, 1)}, Settling{Units: 86}},
		// Half as spread: the twenty deviations' median is 0.05,
		// (3.24 × 1.2533 × 1.4826 × 0.05 / 0.0488)² = 38.1.
		{Estimate{Center: 0.9, Lo: 0.7, Hi: 1.15, N: 10}, [][]float64{spread, around(0.8, 0.5)}, Settling{Units: 39}},
		{Estimate{Center: 1, N: 3}, [][]float64{spread[:3]}, Settling{}}, // no interval yet
	} {
		got := Settle(c.ratio, MinEffectPct, c.units...)
		if got.Units != c.want.Units || math.Abs(got.Within-c.want.Within) > 1e-9 {
			t.Errorf("Settle(%+v) = %+v, want %+v", c.ratio, got, c.want)
		}
	}
}
