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

// TimePerOp is the median wall time of an untraced op (a lab op, a
// buffers round, a compared command's run), in ns: 1e9 ÷ the headline
// ops/s, from the same rounds with the same interval (inverted), so a
// table's ops/s and µs/op multiply to a million whatever the spread.
func (s *Summary) TimePerOp() Estimate { return s.OpsPerS.Inverse().scale(1e9) }

// MinEffectPct is the smallest change in a throughput a report calls a
// difference, besides its interval excluding none: a diff's minimum
// effect, a compare verdict's, a WHY's "no different".
const MinEffectPct = 5.0

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
