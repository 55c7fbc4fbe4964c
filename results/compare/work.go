package compare

import (
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// judgeWork compares an arm's work per op in two runs, count by count
// (results.CountChanged): the first thing its sentence says (#29). A
// whole trace is one sample a side: its counts are taken as they are.
// Counts shared by ops (a journal commit, writeback) or bursty (a device
// write a minute) come and go between generations; an op's own work
// does not.
func judgeWork(so, sn *results.Summary, minEffectPct float64) explain.Work {
	if so.Traced == nil || sn.Traced == nil {
		return explain.NewWork(nil, false)
	}
	ou, nu := workUnitCount(so), workUnitCount(sn)
	whole := so.Unit() == "run"
	if !whole && min(ou, nu) < results.MinRoundsToCompare {
		return explain.NewWork(nil, false)
	}
	keys := map[string]bool{}
	for k := range so.Work {
		keys[k] = true
	}
	for k := range sn.Work {
		keys[k] = true
	}
	var counts []explain.WorkCount
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		// Each side's count is the median of its units' medians, as the
		// units spread: a pooled mean would take one batch's burst of
		// writeback in full (device bytes/op 16K → 192K in an A/A pair).
		c := explain.WorkCount{Name: k, Old: so.Work[k], New: sn.Work[k]}
		var old, cur []float64
		if !whole {
			old, cur = workUnits(so, k), workUnits(sn, k)
			c.Old, c.New = results.Median(old).Center, results.Median(cur).Center
		}
		// Page faults are counted, but are not the op's own work: how many
		// it takes depends on the memory it finds mapped (a fork server's
		// heap, what reclaim took back beside a writer), and an A/A pair on
		// a loaded VM went 0.88 → 0 a op. They decide no verdict.
		c.Changed = k != results.WorkPageFaults && results.CountChanged(old, cur, c.Old, c.New, minEffectPct, results.WorkIsBytes(k))
		if class := results.WorkCallsOf(k); class != "" && c.Changed {
			// The code behind the calls, where the run that made more
			// of them took their stacks.
			more := sn
			if c.New < c.Old {
				more = so
			}
			c.From = explain.TopSite(more, class)
		}
		counts = append(counts, c)
	}
	return explain.NewWork(counts, true)
}

// workUnits are a count's per-op samples, one per unit of the run (see
// results.UnitSummaries), zeros included: a round that made none of it
// made none.
func workUnits(s *results.Summary, key string) []float64 {
	var us []results.Unit
	for i := range s.Rounds {
		if r := &s.Rounds[i]; r.Work != nil {
			us = append(us, results.Unit{Unit: s.UnitOf(r), Value: r.Work[key]})
		}
	}
	return results.UnitSummaries(us)
}

// workUnitCount is how many units of the run were traced.
func workUnitCount(s *results.Summary) int {
	seen := map[int]bool{}
	for i := range s.Rounds {
		if r := &s.Rounds[i]; r.Work != nil {
			seen[s.UnitOf(r)] = true
		}
	}
	return len(seen)
}

// judged is an arm of the diff with both its summaries, kept while the
// diff judges its work: what moved in one arm is judged against all of
// them.
type judged struct {
	i      int // in DiffReport.Arms
	d      *ArmDiff
	so, sn *results.Summary
	units  []explain.UnitTime
	rq     float64 // Δ run-queue wait per op, when it grew
	rqGrew bool
}

// judgeWorkOf finds what heads each arm's sentence, its work verdict, and
// the causes behind it, and ties every arm whose run-queue wait grew to
// the CPU neighbours that appeared in the run (#29): a neighbour tied to
// the arms it slowed, not listed apart.
func judgeWorkOf(arms []judged, env []FactChange, whole []explain.NeighbourChange, cur *results.Run, minEffectPct float64) {
	for i := range arms {
		a := &arms[i]
		w := a.d.Work
		if w == nil {
			continue
		}
		if a.d.Changed() {
			a.units = explain.UnitTimes(a.so, a.sn)
			w.Pick(a.sn.WallNsPerOp-a.so.WallNsPerOp, a.units)
		}
		w.Culprits = explain.WorkCulprits(*w, env, whole)
		a.rq, a.rqGrew = explain.RunQueueGrew(a.so, a.sn)
	}
	settingChanged := slices.ContainsFunc(env, movesNumbers)
	for i := range arms {
		a := &arms[i]
		w := a.d.Work
		if w == nil {
			continue
		}
		everyArm := w.Unit != nil && w.Unit.IsStorageTime() && everyArmMoved(arms, *w.Unit, minEffectPct)
		if w.Unit != nil && w.Unit.IsDeviceTime() {
			w.Device = &explain.DeviceNote{EveryArm: everyArm, Device: deviceOf(cur, a.sn.Dir)}
		}
		if everyArm && !settingChanged && movedWithStorage(a) {
			a.d.Status = StatusWithStorage
		}
		if a.rqGrew && (w.Unit == nil || w.Unit.Name != explain.RunQueueWait) {
			a.d.RunQueue = explain.NewRunQueueGrowth(a.rq, whole)
		}
	}
}

// movedWithStorage says a's change, whose time per request of the
// storage moved alike in every arm in a setting that did not change, is
// the storage's, not its own: the same work, no neighbour or other cause
// named, and half or more of the change that time per request.
func movedWithStorage(a *judged) bool {
	w := a.d.Work
	if !a.d.Changed() || w.Verdict != explain.WorkSame || len(w.Culprits) > 0 {
		return false
	}
	return 2*math.Abs(w.Unit.Explains) >= math.Abs(a.sn.WallNsPerOp-a.so.WallNsPerOp)
}

// withoutStorageMoves leaves the arms that moved with the storage out of
// the drift notes' arms that changed on their own.
func withoutStorageMoves(notes []DriftNote) []DriftNote {
	for i := range notes {
		notes[i].Moved = slices.DeleteFunc(notes[i].Moved, func(d *ArmDiff) bool { return d.Status == StatusWithStorage })
	}
	return notes
}

// everyArmMoved says the time per request of u's kind moved u's way, by
// minEffectPct or more, in every arm of the diff that makes half a
// request of that kind or more per op in both runs, and that there are
// two such arms or more: then it is the device, whatever the arms do.
func everyArmMoved(arms []judged, u explain.UnitTime, minEffectPct float64) bool {
	n := 0
	for _, a := range arms {
		if a.d.Work == nil || a.d.Work.Verdict == explain.WorkUnjudged {
			continue
		}
		units := a.units
		if units == nil {
			units = explain.UnitTimes(a.so, a.sn)
		}
		for _, v := range units {
			if v.Name != u.Name {
				continue
			}
			if !madeHalf(a.so, u.Evidence.Stage) || !madeHalf(a.sn, u.Evidence.Stage) {
				break
			}
			n++
			pct := 100 * (v.New/v.Old - 1)
			if (v.New-v.Old)*(u.New-u.Old) <= 0 || math.Abs(pct) < minEffectPct {
				return false
			}
		}
	}
	return n >= 2
}

// madeHalf says s made half a request of the stage or more per op.
func madeHalf(s *results.Summary, stage string) bool {
	var n float64
	for _, c := range s.Classes {
		if c.Stage == stage {
			n += c.CallsPerOp
		}
	}
	return n >= 0.5
}

// deviceOf names the devices under a dir of a run, top first: "vda",
// "loop2 on vda".
func deviceOf(run *results.Run, dir string) string {
	for _, d := range run.Meta.Dirs {
		if d.Dir == dir {
			var devs []string
			for _, q := range d.Queues {
				devs = append(devs, q.Device)
			}
			return strings.Join(devs, " on ")
		}
	}
	return ""
}
