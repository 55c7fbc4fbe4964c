package explain

import (
	"fmt"
	"math"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// The sentences of a diff of two runs. compare judges each arm and each
// group (the U tests, the statuses, the drift); these say what it found.
// label names the arm ("mkstemp-fsync (go)"), what the figure judged
// ("ops/s", "ratio to TemporaryFile"), and rate the arm's throughput unit.

// ChangeHeadline is the head of a changed arm's sentence: "−63% ratio to
// TemporaryFile (p=0.002)".
func ChangeHeadline(judged results.Comparison, what string) string {
	return fmt.Sprintf("%s %s (p=%s)", results.SignedPct(judged.DeltaPct), what, results.PValue(judged.P))
}

// FailedSentence says an arm has no throughput in one run, and why.
func FailedSentence(why string) string {
	return fmt.Sprintf("no throughput to compare (%s)", why)
}

// TooFewSentence says the change of an arm with too few rounds a side to
// test it.
func TooFewSentence(what string, judged results.Comparison, need int) string {
	return fmt.Sprintf("%s %s; too few rounds to judge (%d and %d, need %d a side)",
		results.SignedPct(judged.DeltaPct), what, judged.NOld, judged.NNew, need)
}

// WholeTraceSentence says the change of a whole trace, one sample a side,
// as the change of its wall time (its throughput's, inverted).
func WholeTraceSentence(changePct float64) string {
	return fmt.Sprintf("%s wall time; a whole trace is one sample (compare the regions it marks)",
		results.SignedPct(-changePct))
}

// NoiseSentence says an arm did not change beyond its rounds' spread.
func NoiseSentence(what string, judged results.Comparison) string {
	return fmt.Sprintf("~ %s (p=%s)", what, results.PValue(judged.P))
}

// WithBaselineSentence says an arm's ratio moved while its own throughput
// did not move with it.
func WithBaselineSentence(what, rate string, judged, rates results.Comparison) string {
	return fmt.Sprintf("%s %s (p=%s), but its own %s %s: its baseline moved",
		results.SignedPct(judged.DeltaPct), what, results.PValue(judged.P), rate, comparisonPhrase(rates))
}

// comparisonPhrase says how a comparison came out: "~ (p=0.432)" or
// "+3.1% (p=0.002)".
func comparisonPhrase(c results.Comparison) string {
	if c.Verdict == results.VerdictChanged {
		return fmt.Sprintf("%s (p=%s)", results.SignedPct(c.DeltaPct), results.PValue(c.P))
	}
	return fmt.Sprintf("%s, ~ (p=%s)", results.SignedPct(c.DeltaPct), results.PValue(c.P))
}

// TraceFell is the gate's reason for a whole trace whose throughput fell
// by the threshold or more.
func TraceFell(name string, changePct float64) string {
	return fmt.Sprintf("%s fell %s (one trace a side)", name, results.SignedPct(changePct))
}

// DriftBaselineSentence is the sentence of a baseline arm that moved with
// its group: the drift note says the rest.
func DriftBaselineSentence(rate string, moved results.Comparison) string {
	return fmt.Sprintf("%s %s (p=%s), with its group: see the drift note",
		results.SignedPct(moved.DeltaPct), rate, results.PValue(moved.P))
}

// WithGroupSentence says an arm that moved with its group when the
// environment changed: its own change, and its ratio to the baseline,
// which stayed (nil for the baseline itself): the group's note says why.
func WithGroupSentence(rate string, own results.Comparison, baseline string, ratio *results.Comparison) string {
	s := fmt.Sprintf("%s %s (p=%s), with its group", results.SignedPct(own.DeltaPct), rate, results.PValue(own.P))
	switch {
	case ratio != nil && ratio.Verdict == results.VerdictChanged:
		s += fmt.Sprintf(": its ratio to %s %s (p=%s), the rest", baseline, results.SignedPct(ratio.DeltaPct), results.PValue(ratio.P))
	case ratio != nil:
		s += fmt.Sprintf(": its ratio to %s did not change (p=%s)", baseline, results.PValue(ratio.P))
	}
	return s + "; see the group's note"
}

// CarriedArm names an arm whose ratio moved with the baseline, with its
// own throughput's change: "mkstemp (+1.2% ops/s)".
func CarriedArm(arm, rate string, own results.Comparison) string {
	return fmt.Sprintf("%s (%s %s)", arm, results.SignedPct(own.DeltaPct), rate)
}

// EnvironmentShiftSentence says a group whose every arm changed one way
// when the environment changed: the change is the finding, tied to what
// changed, not the machine's drift (#43).
// with are the arms whose change was mostly the baseline's: the change
// moved them as it moved the baseline.
func EnvironmentShiftSentence(group, baseline string, base results.Comparison, lo, hi float64, causes, with []string) string {
	way := "faster"
	if base.DeltaPct < 0 {
		way, lo, hi = "slower", -hi, -lo
	}
	span := fmt.Sprintf("%.0f–%.0f%%", lo, hi)
	if math.Round(lo) == math.Round(hi) {
		span = fmt.Sprintf("%.0f%%", lo)
	}
	s := fmt.Sprintf("%s: every arm %s %s, %s %s (p=%s): %s", group, span, way, baseline,
		results.SignedPct(base.DeltaPct), results.PValue(base.P), strings.Join(causes, ", "))
	if len(with) > 0 {
		s += fmt.Sprintf("; %s moved mostly as %s did (their ratios to it moved less than half as far)", strings.Join(with, ", "), baseline)
	}
	return s
}

// DriftSentence says once for a group what its baseline's move means:
// with no ratio moved, the machine or the environment moved (every
// throughput with it); with ratios carried by the baseline (CarriedArm),
// the baseline itself changed; arms that changed on their own are named.
func DriftSentence(group, baseline string, base results.Comparison, moved, carried []string) string {
	way := "faster"
	if base.DeltaPct < 0 {
		way = "slower"
	}
	pct := strings.TrimLeft(results.SignedPct(base.DeltaPct), "+−")
	var parts []string
	switch {
	case len(moved) == 0 && len(carried) == 0:
		parts = append(parts, fmt.Sprintf("everything got %s %s (the machine or the environment: %s %s, p=%s); relative to %s nothing changed",
			pct, way, baseline, results.SignedPct(base.DeltaPct), results.PValue(base.P), baseline))
	case len(carried) > 0:
		which := strings.Join(carried, ", ")
		if len(carried) > 2 {
			which = fmt.Sprintf("%d other arms", len(carried)) // the table gives each one's
		}
		parts = append(parts, fmt.Sprintf("%s itself got %s %s (p=%s), and the ratios of %s moved with it, not with their own throughput",
			baseline, pct, way, results.PValue(base.P), which))
	default:
		parts = append(parts, fmt.Sprintf("%s itself got %s %s (p=%s), the machine or the environment", baseline, pct, way, results.PValue(base.P)))
	}
	switch {
	case len(moved) == 1:
		parts = append(parts, moved[0]+" changed on its own")
	case len(moved) > 1:
		// Each is said below, among the changes.
		parts = append(parts, fmt.Sprintf("%d arms changed on their own", len(moved)))
	}
	return group + ": " + strings.Join(parts, "; ") + "."
}

// DifferentLabs is the problem of two runs that ran different labs.
func DifferentLabs(oldLabs, newLabs string) string {
	return fmt.Sprintf("the runs ran different labs (OLD: %s; NEW: %s)", oldLabs, newLabs)
}
