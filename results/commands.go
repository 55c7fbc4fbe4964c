package results

import "math"

// Inverse is 1/e: the median and the bounds of its interval are order
// statistics, so they invert exactly (the bounds swap). An unbounded or
// missing interval stays so.
func (e Estimate) Inverse() Estimate {
	if !e.Known() {
		return Estimate{}
	}
	out := Estimate{Center: 1 / e.Center, Lo: e.Lo, Hi: e.Hi, N: e.N}
	if e.Bounded() {
		out.Lo, out.Hi = 1/e.Hi, 1/e.Lo
	}
	return out
}

// The figures of a command (LabCompare, one op = one run) read as times
// rather than throughputs, as a user timing commands reads them: each is
// the inverse of the throughput figure the labs compute, from the same
// rounds and with the same interval.

// WallNsPerRun is the median wall time of an untraced run, in ns.
func (s *Summary) WallNsPerRun() Estimate { return s.OpsPerS.Inverse().scale(1e9) }

// TimeRatio is the command's wall time ÷ the first command's, paired per
// round.
func (s *Summary) TimeRatio() Estimate { return s.Ratio.Inverse() }

// ObserverCost is a traced run's wall time ÷ an untraced run's, paired per
// round: what following the process tree with the probe costs.
func (s *Summary) ObserverCost() Estimate { return s.Observer.Inverse() }

// Differs says whether a ratio is told apart from 1: +1 above, −1 below,
// 0 when its 95% interval holds 1, it has no interval, or it is off by
// less than minEffectPct percent (as diff counts a change).
func Differs(ratio Estimate, minEffectPct float64) int {
	switch {
	case !ratio.Bounded() || ratio.Contains(1) || math.Abs(ratio.Center-1)*100 < minEffectPct:
		return 0
	case ratio.Center > 1:
		return 1
	}
	return -1
}

// CommandBaseline adds to a lab → baseline arm map what a compare run says
// of itself: its first command is the one its ratios are taken to. The
// map given is not changed.
func CommandBaseline(run *Run, baseline map[string]string) map[string]string {
	if _, ok := baseline[LabCompare]; ok || run.Kind != KindCompare || len(run.Arms) == 0 {
		return baseline
	}
	out := map[string]string{LabCompare: run.Arms[0].Arm}
	for lab, arm := range baseline {
		out[lab] = arm
	}
	return out
}
