package explain

import (
	"fmt"
	"math"

	"github.com/tmpprobe/tmpprobe/results"
)

// CommandPairs are the gaps a compare run explains (sums are its
// summaries), which it says of itself as the arms catalogue says them of
// the labs: each command against the first (results.CommandBaseline).
func CommandPairs(sums []*results.Summary) []Pair {
	var out []Pair
	for _, s := range sums[min(1, len(sums)):] {
		out = append(out, Pair{Lab: results.LabCompare, A: s.Arm, B: sums[0].Arm, Headline: true})
	}
	return out
}

// CommandVerdict says, hyperfine-like, how a command's throughput (runs
// per second, untraced) compares with the first's: told apart when the
// 95% interval of the paired ratio excludes 1 and the change is at least
// minEffectPct (diff's minimum effect). It reads as a WHY's head does.
func CommandVerdict(s, first *results.Summary, minEffectPct float64) string {
	r := s.Ratio
	switch results.Differs(r, minEffectPct) {
	case 1:
		return throughputHead(s.Arm, first.Arm, r, false) + ": faster"
	case -1:
		return throughputHead(s.Arm, first.Arm, r, false) + ": slower"
	}
	if !r.Bounded() {
		return throughputHead(s.Arm, first.Arm, r, false) +
			fmt.Sprintf(": too few rounds for an interval (want %d or more)", results.MinRoundsForCI)
	}
	return throughputHead(s.Arm, first.Arm, r, true) + settled(s, first, minEffectPct)
}

// settled says what a "no different" stands on: the change it rules out,
// or the rounds that would tell (#43: "no different" with no way
// forward).
func settled(a, b *results.Summary, minEffectPct float64) string {
	r, units := a.Ratio, results.PairedRatioUnits(a, b, untraced)
	if a.RatioTo != b.Arm || !r.Known() {
		r = results.PairedRatio(a, b, untraced)
	}
	s := results.Settle(r, minEffectPct, units, results.PairedRatioUnits(a, b, traced))
	switch {
	case s.Within > 0:
		return fmt.Sprintf(": no change beyond ±%.0f%%", math.Ceil(s.Within))
	case s.Units > 0:
		// A unit is a worker generation of the labs, a round of compare:
		// the rounds say it as the user sets them.
		rounds := s.Units * max(1, a.RoundCount/max(1, len(units)))
		return fmt.Sprintf(": needs ≈%d rounds to tell a change of %s from none (--rounds, or --until %.0f%%)",
			rounds, results.Share(minEffectPct/100), 2*minEffectPct)
	}
	return ""
}
