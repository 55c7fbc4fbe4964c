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

// Settling is what more rounds would say of a ratio its interval cannot
// tell from 1: Within, when the interval already rules out a change of
// minEffectPct or more ("no change beyond ±Within%"); else Rounds, about
// how many rounds in all would tell a change of the size measured (at
// least minEffectPct) from none four times in five.
type Settling struct {
	Within float64 // percent; 0: not settled
	Rounds int
}

// powerFactor is how much narrower than the effect an interval must be
// for a test at 95% to see it four times in five: ((1.96 + 0.84) / 1.96)²,
// the normal approximation of the medians' intervals.
const powerFactor = 2.04

// Settle says how ratio, with an interval over ratio.N rounds, would be
// settled (see Settling). An interval's half-width shrinks as the root of
// the rounds it stands on: the rounds it needs grow as its square.
func Settle(ratio Estimate, minEffectPct float64) Settling {
	if !ratio.Bounded() || ratio.N == 0 || ratio.Lo <= 0 {
		return Settling{}
	}
	m := minEffectPct / 100
	if ratio.Lo >= 1-m && ratio.Hi <= 1+m {
		return Settling{Within: 100 * math.Max(1-ratio.Lo, ratio.Hi-1)}
	}
	half := (math.Log(ratio.Hi) - math.Log(ratio.Lo)) / 2
	effect := math.Max(math.Abs(math.Log(ratio.Center)), math.Log(1+m))
	n := float64(ratio.N) * powerFactor * (half / effect) * (half / effect)
	return Settling{Rounds: max(ratio.N+1, int(math.Ceil(n)))}
}
