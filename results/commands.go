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
// minEffectPct or more ("no change beyond ±Within%"); else Units, about
// how many units (rounds, or worker generations) in all would tell a
// change of minEffectPct from none nine times in ten.
type Settling struct {
	Within float64 // percent; 0: not settled
	Units  int
}

// powerZ is the normal quantiles a test at 95% seeing a change nine times
// in ten needs between the change and none: 1.96 + 1.28. Nine, not the
// textbook's four in five, because σ comes from the few units measured
// so far: of 300 draws of ten rounds from 100 measured beside two CPU
// hogs (TemporaryFile against NamedTemporaryFile), the rounds asked at
// four in five gave the interval that power 73% of the time, at nine in
// ten 87%; and the order statistics' interval is wider than the normal
// one the formula assumes.
const powerZ = 3.24

// medianSE is the standard error of a median of n normal samples, ×√n ÷ σ
// (√(π/2), its asymptotic efficiency).
const medianSE = 1.2533

// Settle says how ratio would be settled (see Settling) from samples of
// its spread between units: each set the units' ratios of one kind
// (untraced, traced), taken about its own median, so that a compare's
// ten rounds give twenty deviations of one spread. The rounds needed are
// for a change of minEffectPct, not of the size measured: a first estimate of a change is
// as noisy as its interval says, and one that came out large asked too
// few rounds (a measured 11% asked 19; the change was 8%, and 19 rounds
// told it 2 times in 5). σ is measured robustly, from the deviations'
// median absolute deviation (×1.4826), so that one round a CPU hog took
// whole (a ratio of 4.5 among ratios of 0.9) does not make ten rounds ask
// for seven thousand, as the order statistics' interval did; the median of
// n units has a standard error of 1.25·σ/√n, and n grows until the change
// is 3.24 of those from none.
func Settle(ratio Estimate, minEffectPct float64, samples ...[]float64) Settling {
	if !ratio.Bounded() || ratio.N == 0 || ratio.Lo <= 0 {
		return Settling{}
	}
	m := minEffectPct / 100
	if ratio.Lo >= 1-m && ratio.Hi <= 1+m {
		return Settling{Within: 100 * math.Max(1-ratio.Lo, ratio.Hi-1)}
	}
	var dev []float64
	units := 0
	for _, s := range samples {
		d := logDeviations(s)
		dev = append(dev, d...)
		units = max(units, len(d))
	}
	if len(dev) < 3 {
		return Settling{}
	}
	sigma := 1.4826 * Median(dev).Center
	if sigma <= 0 {
		return Settling{}
	}
	n := math.Pow(powerZ*medianSE*sigma/math.Log(1+m), 2)
	return Settling{Units: max(units+1, int(math.Ceil(n)))}
}

// logDeviations are the absolute deviations of the logs of the positive
// values from their median; none for fewer than three.
func logDeviations(values []float64) []float64 {
	var logs []float64
	for _, v := range values {
		if v > 0 && finite(v) {
			logs = append(logs, math.Log(v))
		}
	}
	if len(logs) < 3 {
		return nil
	}
	center := Median(logs).Center
	dev := make([]float64, len(logs))
	for i, v := range logs {
		dev[i] = math.Abs(v - center)
	}
	return dev
}

// PairedRatioUnits are the per-unit samples PairedRatio takes the median
// of: each unit's median of a's per-round f ÷ b's (rounds protocol).
func PairedRatioUnits(a, b *Summary, f func(*RoundSample) float64) []float64 {
	return a.UnitSamples(roundRatio(b, f))
}
