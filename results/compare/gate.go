package compare

import (
	"math"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// Gate is what fails a diff (--gate, --threshold): an arm whose time
// (GateTime) or whose work per op (GateWork) changed by ThresholdPct or
// more. A threshold of 0 gates: it fails on any regression the diff
// finds. A diff that does not gate has none: a nil *Gate is the one way
// to say so.
type Gate struct {
	On           string
	ThresholdPct float64
}

// Gates: what --gate fails on.
const (
	// GateTime fails on an arm that regressed in time (the default).
	GateTime = "time"
	// GateWork fails on an arm whose work per op changed, whatever its
	// time did: the gate for a machine whose speed moves (#29).
	GateWork = "work"
)

// GateOn is the gate on what (GateTime, or "" for it, or GateWork) at
// thresholdPct.
func GateOn(on string, thresholdPct float64) *Gate {
	if on == "" {
		on = GateTime
	}
	return &Gate{On: on, ThresholdPct: thresholdPct}
}

// ReasonKind is why a gate fails.
type ReasonKind uint8

const (
	// ReasonIncomplete: NEW is incomplete.
	ReasonIncomplete ReasonKind = iota + 1
	// ReasonFailed: Arm lost something in NEW (its Failure), under
	// either gate, whatever its figures before the failure say.
	ReasonFailed
	// ReasonNoArms: NEW has no arms.
	ReasonNoArms
	// ReasonMissing: Arm ran in OLD and is missing from NEW.
	ReasonMissing
	// ReasonLost: Arm has figures in OLD and none in NEW.
	ReasonLost
	// ReasonNoThroughput: Arm, a whole trace, has no throughput in NEW.
	ReasonNoThroughput
	// ReasonTraceFell: Arm, a whole trace (one sample a side), fell by
	// the threshold or more.
	ReasonTraceFell
	// ReasonTooFew: Arm has too few rounds to judge: a gate that
	// cannot judge must not pass as if it had.
	ReasonTooFew
	// ReasonUntraced: --gate work: Arm was not traced in both runs.
	ReasonUntraced
	// ReasonWorkTooFew: --gate work: Arm's work has too few rounds to
	// judge.
	ReasonWorkTooFew
	// ReasonWorkChanged: --gate work: Arm's work per op changed, Over
	// the counts that changed by the threshold or more.
	ReasonWorkChanged
	// ReasonRegressed: --gate time: Arm regressed by the threshold or
	// more.
	ReasonRegressed
)

// GateReason is one reason the gate fails.
type GateReason struct {
	Kind ReasonKind
	Arm  *ArmDiff
	Over []explain.WorkCount
}

// gate lists why the gate fails; nil when it passes or there is none.
func (rep *DiffReport) gate(cur *results.Run) []GateReason {
	if rep.Gate == nil {
		return nil
	}
	var out []GateReason
	add := func(k ReasonKind, d *ArmDiff) { out = append(out, GateReason{Kind: k, Arm: d}) }
	threshold := rep.Gate.ThresholdPct
	if !cur.Complete {
		add(ReasonIncomplete, nil)
	}
	for _, d := range rep.Failed() {
		add(ReasonFailed, d)
	}
	if len(cur.Arms) == 0 {
		add(ReasonNoArms, nil)
	}
	for i := range rep.Arms {
		d := &rep.Arms[i]
		switch {
		case d.Status == StatusOnlyOld:
			add(ReasonMissing, d)
		case d.Lost:
			add(ReasonLost, d)
		case d.Status == StatusTooFew && d.Unit == "run" && d.OpsPerS.NNew == 0:
			add(ReasonNoThroughput, d)
		case d.Status == StatusTooFew && d.Unit == "run":
			// A whole trace is one sample a side: no test can judge it,
			// so the gate takes the change as it is (its work, below,
			// for --gate work).
			if rep.Gate.On != GateWork && -d.ChangePct >= threshold {
				add(ReasonTraceFell, d)
			}
		case d.Status == StatusTooFew:
			add(ReasonTooFew, d)
		}
	}
	if rep.Gate.On == GateWork {
		for i := range rep.Arms {
			d := &rep.Arms[i]
			switch {
			case d.Status == StatusOnlyOld || d.Status == StatusOnlyNew || d.Status == StatusFailed ||
				(d.Status == StatusTooFew && (d.Unit != "run" || d.OpsPerS.NNew == 0)):
				// Said above, or NEW's own.
			case d.Work == nil:
				add(ReasonUntraced, d)
			case d.Work.Verdict == explain.WorkUnjudged:
				add(ReasonWorkTooFew, d)
			default:
				var over []explain.WorkCount
				for _, c := range d.Work.Changed {
					if math.Abs(c.Pct()) >= threshold {
						over = append(over, c)
					}
				}
				if len(over) > 0 {
					out = append(out, GateReason{Kind: ReasonWorkChanged, Arm: d, Over: over})
				}
			}
		}
		return out
	}
	for _, d := range rep.Changed() {
		if d.Status == StatusRegressed && -d.ChangePct >= threshold {
			add(ReasonRegressed, d)
		}
	}
	return out
}
