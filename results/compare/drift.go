package compare

import (
	"math"
	"slices"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// DriftKind says what a group's drift note found.
type DriftKind uint8

const (
	// DriftMachine: the group's baseline arm moved; with no ratio moved,
	// the machine or the environment moved every throughput with it;
	// with ratios carried by the baseline (Carried), the baseline itself
	// changed. Moved are the arms that changed on their own.
	DriftMachine DriftKind = iota + 1
	// DriftEnvironment: the environment changed (Causes) and every arm
	// of the group changed one way, by Lo to Hi percent; Moved are the
	// group's arms but its baseline, With those that moved mostly as
	// the baseline did.
	DriftEnvironment
)

// DriftNote is a group whose baseline arm's throughput changed, and what
// that means for the group.
type DriftNote struct {
	Kind     DriftKind
	Baseline *ArmDiff
	Moved    []*ArmDiff
	Carried  []*ArmDiff
	With     []*ArmDiff
	Lo, Hi   float64
	Causes   []explain.Cause
}

// drift finds, per group, a baseline arm whose throughput changed, and
// notes once what that means for the group: with no ratio moved, the
// machine or the environment moved (every throughput with it); with
// ratios moved but the arms' own throughputs not, the baseline itself
// changed; arms that changed on their own are named. The baseline's
// status says so instead of "regressed".
func drift(rep *DiffReport) []DriftNote {
	var out []DriftNote
	if causes := environmentCauses(rep.Preflight); causes != nil {
		// Not the machine's drift: what changed is named, and every arm
		// was judged by its own throughput.
		for _, g := range rep.Groups() {
			if n, ok := environmentShift(g, causes); ok {
				out = append(out, n)
			}
		}
		return out
	}
	for _, g := range rep.Groups() {
		n := DriftNote{Kind: DriftMachine}
		others := 0
		for _, d := range g {
			switch {
			case d.Baseline:
				n.Baseline = d
			case d.JudgedBy == "ratio":
				others++
				switch d.Status {
				case StatusRegressed, StatusImproved:
					n.Moved = append(n.Moved, d)
				case StatusWithBaseline:
					n.Carried = append(n.Carried, d)
				}
			}
		}
		base := n.Baseline
		if base == nil || others == 0 || base.OpsPerS == nil || base.OpsPerS.Verdict != results.VerdictChanged || base.WorkMoved() {
			continue
		}
		base.Status = StatusDrift
		out = append(out, n)
	}
	return out
}

// environmentCauses are the differences of the environment that can
// move the numbers, as causes ("NEW is mounted data=journal", "kernel
// release 6.1 → 6.12"), each once; nil when there is none.
func environmentCauses(facts []FactChange) []explain.Cause {
	var causes []explain.Cause
	for _, f := range facts {
		if !movesNumbers(f) {
			continue
		}
		c := f.Causes()
		if len(c) == 0 { // a fact with no known mechanism is still a change
			c = []explain.Cause{f.FactCause()}
		}
		for _, p := range c {
			// The mount options and the options ext4 reports say one
			// change twice.
			if !slices.Contains(causes, p) {
				causes = append(causes, p)
			}
		}
	}
	return causes
}

// environmentShift is the note of a group whose arms all changed the same
// way with the environment: "every arm 18–32% slower, TemporaryFile
// −32%: NEW is mounted data=journal"; ok is false when they did not.
func environmentShift(g []*ArmDiff, causes []explain.Cause) (DriftNote, bool) {
	n := DriftNote{Kind: DriftEnvironment, Causes: causes, Lo: math.Inf(1), Hi: math.Inf(-1)}
	for _, d := range g {
		if d.OpsPerS == nil {
			continue // failed, or in one run only: said on its own
		}
		if d.OpsPerS.Verdict != results.VerdictChanged {
			return DriftNote{}, false
		}
		n.Lo, n.Hi = math.Min(n.Lo, d.OpsPerS.DeltaPct), math.Max(n.Hi, d.OpsPerS.DeltaPct)
		if d.Baseline {
			n.Baseline = d
		} else {
			n.Moved = append(n.Moved, d)
		}
	}
	if n.Baseline == nil || len(n.Moved) == 0 || (n.Lo < 0) != (n.Hi < 0) {
		return DriftNote{}, false
	}
	// The note says what they share. An arm that moved mostly as the
	// baseline did (its ratio to it moved less than half as far, in log
	// terms, or not at all) is named in the note, and its own sentence
	// is one line. The arms the change hit much harder or less keep
	// theirs whole, among the changes: tmpfs → ext4 took 66% of
	// TemporaryFile's throughput and 89% of mkstemp-fsync's ratio.
	for _, d := range g {
		if d.OpsPerS != nil && (d.Baseline || mostlyBaselines(d.Ratio, n.Baseline.OpsPerS)) {
			d.WithGroup = true
			if !d.Baseline {
				n.With = append(n.With, d)
			}
		}
	}
	return n, true
}

// mostlyBaselines says an arm's change was mostly its baseline's: its
// ratio to it did not change, or moved less than half as far as the
// baseline's own throughput, in log terms.
func mostlyBaselines(ratio, base *results.Comparison) bool {
	if ratio == nil {
		return false
	}
	if ratio.Verdict != results.VerdictChanged {
		return true
	}
	return math.Abs(math.Log1p(ratio.DeltaPct/100)) < math.Abs(math.Log1p(base.DeltaPct/100))/2
}
