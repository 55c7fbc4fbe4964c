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

// WithStorageSentence says an arm moved with the storage's time per
// request, which its work headline names: not counted as its change.
func WithStorageSentence(what string, judged results.Comparison) string {
	return fmt.Sprintf("%s %s (p=%s), with the storage: the same work and setting, and every arm's time per request moved alike (not counted as a change)",
		results.SignedPct(judged.DeltaPct), what, results.PValue(judged.P))
}

// StorageLine says the arms that moved with the storage alike, with
// the work headline that names the time per request that moved them.
func StorageLine(arms []string, headline string) string {
	return fmt.Sprintf("Moved with the storage, not counted as changes (the same work and setting; every arm's time per request moved alike): %s: %s.",
		strings.Join(arms, ", "), headline)
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

// EnvironmentShiftSentence says, of a group, that its every arm changed
// one way when the environment changed: the change is the finding, tied
// to what changed, not the machine's drift (#43).
// with are the arms whose change was mostly the baseline's: the change
// moved them as it moved the baseline.
func EnvironmentShiftSentence(baseline string, base results.Comparison, lo, hi float64, causes, with []string) string {
	way := "faster"
	if base.DeltaPct < 0 {
		way, lo, hi = "slower", -hi, -lo
	}
	span := fmt.Sprintf("%.0f–%.0f%%", lo, hi)
	if math.Round(lo) == math.Round(hi) {
		span = fmt.Sprintf("%.0f%%", lo)
	}
	s := fmt.Sprintf("every arm %s %s, %s %s (p=%s): %s", span, way, baseline,
		results.SignedPct(base.DeltaPct), results.PValue(base.P), strings.Join(causes, ", "))
	if len(with) > 0 {
		s += fmt.Sprintf("; %s moved mostly as %s did (their ratios to it moved less than half as far)", strings.Join(with, ", "), baseline)
	}
	return s
}

// DriftSentence says once, of a group, what its baseline's move means:
// with no ratio moved, the machine or the environment moved (every
// throughput with it); with ratios carried by the baseline (CarriedArm),
// the baseline itself changed; arms that changed on their own are named.
func DriftSentence(baseline string, base results.Comparison, moved, carried []string) string {
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
	return strings.Join(parts, "; ") + "."
}

// ProblemKind says what makes two runs compare only in part.
type ProblemKind uint8

const (
	// ProblemNoArms: the run of Side has no arms.
	ProblemNoArms ProblemKind = iota + 1
	// ProblemIncomplete: the run of Side was interrupted, or saved
	// before it finished.
	ProblemIncomplete
	// ProblemLabs: the runs ran different labs, OldLabs and NewLabs.
	ProblemLabs
)

// Problem is what makes two runs compare only in part.
type Problem struct {
	Kind ProblemKind
	// Side is the run the problem is of: 0 the first (OLD), 1 the other.
	Side             int
	OldLabs, NewLabs string
}

// ProblemText says a problem of the runs named old and cur ("OLD",
// "NEW" in a diff; a matrix names each run by its path).
func ProblemText(p Problem, old, cur string) string {
	side := old
	if p.Side == 1 {
		side = cur
	}
	switch p.Kind {
	case ProblemNoArms:
		return side + " has no arms: nothing to compare"
	case ProblemIncomplete:
		return side + " is incomplete (interrupted, or saved before it finished): its arms may lack rounds"
	}
	return fmt.Sprintf("the runs ran different labs (%s: %s; %s: %s)", old, p.OldLabs, cur, p.NewLabs)
}

// ArmLabel names an arm of a run of kind in a sentence: "mkstemp-fsync
// (go)", "NamedTemporaryFile (python, 16 MiB)"; a command by its command
// alone.
func ArmLabel(kind results.RunKind, id results.CaseID) string {
	if kind.OfCommands() {
		return id.Arm
	}
	l := id.Arm + " (" + id.Runtime
	switch {
	case id.SizeBytes > 0:
		l += ", " + results.Size(float64(id.SizeBytes))
	case id.PayloadBytes != DefaultPayload:
		l += ", payload " + results.Size(float64(id.PayloadBytes))
	}
	return l + ")"
}

// DefaultPayload is the --payload default; sentences name other payloads.
const DefaultPayload = 400

// ExplainedText names what a difference explains: an arm, or a term of
// it ("mkstemp-fsync (go): fsync").
func ExplainedText(e Explained) string {
	if e.Term == "" {
		return ArmLabel(e.Kind, e.Arm)
	}
	return ArmLabel(e.Kind, e.Arm) + ": " + e.Term
}

// CauseText says a cause: "NEW is mounted nobarrier", "kernel release
// 6.1 → 6.12", "the dir moved from tmpfs to ext4 on vda".
func CauseText(c Cause) string {
	switch c.Kind {
	case CauseMove:
		return MoveShort(c.Old, c.New)
	case CauseMounted:
		return "NEW is mounted " + c.Option
	case CauseUnmounted:
		return "NEW is mounted " + negated(c.Option)
	case CauseOptions:
		var parts []string
		for _, o := range splitList(c.Added) {
			parts = append(parts, "+"+o)
		}
		for _, o := range splitList(c.Removed) {
			parts = append(parts, "−"+o)
		}
		return "mount options " + strings.Join(parts, " ")
	}
	return strings.ReplaceAll(c.Fact, "_", " ") + " " + c.Old + " → " + c.New
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// negated is the option a file system reports when o is gone: discard
// removed is nodiscard, nobarrier removed is barrier, so a change seen in
// the mount options and in the options ext4 reports is said once.
func negated(o string) string {
	switch {
	case strings.Contains(o, "="):
		return "without " + o
	case strings.HasPrefix(o, "no"):
		return strings.TrimPrefix(o, "no")
	}
	return "no" + o
}

// MoveShort says a work dir's move as a cause: "the dir moved from tmpfs
// to ext4 on vda".
func MoveShort(from, to string) string { return "the dir moved from " + from + " to " + to }

// MovePhrase says a work dir's move whole: MoveShort with what marks the
// file system it moved to ("no journal, mounted discard"), or, when that
// has none, what the one it left had.
func MovePhrase(c EnvChange) string {
	p := MoveShort(c.Old, c.New)
	switch {
	case len(c.MarksAdded) > 0:
		return p + ": " + strings.Join(c.MarksAdded, ", ")
	case len(c.MarksRemoved) > 0:
		return p + " (it had: " + strings.Join(c.MarksRemoved, ", ") + ")"
	}
	return p
}

// CulpritText names a culprit in a clause: a cause, or a neighbour's
// change ("cpuhog (pid 4123) appeared").
func CulpritText(c Culprit) string {
	switch {
	case c.Neighbour != nil:
		return NeighbourShort(*c.Neighbour)
	case c.Code != nil:
		return CodeText(*c.Code)
	}
	return CauseText(*c.Cause)
}

// CodeText says a function's change as a culprit: "_RandomNameSequence.__next__
// (tempfile.py:154) +7.90 µs/op".
func CodeText(c CodeChange) string {
	return results.Frame{Function: c.Function, File: c.File, Line: c.Line}.Label() + " " + results.SignedMicros(c.Delta) + " µs/op"
}

// CulpritsText names culprits, "; " between them.
func CulpritsText(cs []Culprit) string {
	var out []string
	for _, c := range cs {
		out = append(out, CulpritText(c))
	}
	return strings.Join(out, "; ")
}

// NeighbourShort names a neighbour's change in a clause: "cpuhog (pid
// 4123) appeared".
func NeighbourShort(nc NeighbourChange) string { return nc.Name + " " + nc.Verb }

// NeighbourPhrase says a neighbour's change whole: "NEW: sh (pid 4123)
// took 41% of the run-queue wait, 12.0% of the traced time (OLD 0.0%;
// appeared)".
func NeighbourPhrase(nc NeighbourChange) string {
	what := "of the run-queue wait"
	if nc.Kind == results.NeighbourDisk {
		what = "of the device time"
	}
	var p string
	if nc.Grew {
		p = fmt.Sprintf("NEW: %s took %s %s, %.1f%% of the traced time (OLD %.1f%%; %s)", nc.Name, results.Share(nc.Share), what,
			100*nc.NewPerWall, 100*nc.OldPerWall, nc.Verb)
	} else {
		verb := "gone in NEW"
		if nc.Verb == "shrank" {
			verb = fmt.Sprintf("NEW %.1f%%", 100*nc.NewPerWall)
		}
		p = fmt.Sprintf("OLD: %s took %s %s, %.1f%% of the traced time (%s)", nc.Name, results.Share(nc.Share), what, 100*nc.OldPerWall, verb)
	}
	if nc.Kind == results.NeighbourDisk {
		p += fmt.Sprintf(", %s requests/op", results.Count(nc.Requests))
	}
	return p
}
