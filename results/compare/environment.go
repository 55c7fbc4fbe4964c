package compare

import (
	"math"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// NotReplicate says why earlier is not a replicate of run (another run of
// the same thing, whose difference from run is the machine's noise), or
// "" when it is one. Two runs are replicates when nothing that can move
// their numbers differs: no fact of the environment the diff compares
// (the work dirs' file systems, devices, queues and mount options, the
// kernel, the interpreter and its version, the CPUs, the host's settings,
// the backend, the protocol), and, for every case both ran, the same
// work per op, judged from exact counts as the diff judges it. Runs of
// barrier and nobarrier saved side by side are not replicates: their
// difference is the finding, never the noise (#43).
//
// sums are run's summaries (results.SummarizeAll), made once by the
// caller for every earlier run it asks about.
func NotReplicate(run *results.Run, sums []*results.Summary, earlier *results.Run, baselines map[string]string) string {
	for _, f := range factChanges(earlier, run) {
		if movesNumbers(f) {
			return leftOutReason(f)
		}
	}
	byKey := map[results.CaseID]*results.Summary{}
	for _, s := range results.SummarizeAll(earlier, results.CommandBaseline(run, baselines)) {
		byKey[earlier.CaseKey(s.CaseID)] = s
	}
	for _, s := range sums {
		e := byKey[run.CaseKey(s.CaseID)]
		if e == nil || e.Traced == nil || s.Traced == nil {
			continue
		}
		if w := judgeWork(e, s, DefaultMinEffectPct); w.MoreOrLess() && len(w.Changed) > 0 {
			return "another work per op: " + s.Arm + "'s " + w.Changed[0].Text(s.Unit())
		}
	}
	return ""
}

// movesNumbers: a difference that can move a run's numbers. The work dirs
// are not one (cases are matched by their dir), nor the flags (they say
// where a run was saved; what they set is in the protocol and the cases),
// nor what names a dir's place rather than what it is: its mount point,
// its device's name and number, a loop device's backing file. Another
// loop device over the same disk is the same place for the numbers; a
// dir that moved to another file system or device is one change that
// stands for all of those (groupMoves), and it does move them.
func movesNumbers(f FactChange) bool {
	if f.Move != "" {
		return true
	}
	switch f.Name {
	case "flags", "work dirs":
		return false
	}
	switch f.Name[strings.LastIndexByte(f.Name, '.')+1:] {
	case "dir", "fresh_of", "mount_point", "source", "dev", "device", "disk", "backing_file":
		return !strings.HasPrefix(f.Name, "dirs[")
	}
	return true
}

// leftOutReason says f of the run left out: its mount options, its move,
// or the fact's name and its value there.
func leftOutReason(f FactChange) string {
	switch {
	case f.Move != "":
		return f.Short
	case len(f.Removed) > 0:
		return "mounted " + strings.Join(f.Removed, ",")
	case len(f.Added) > 0:
		return "mounted without " + strings.Join(f.Added, ",")
	}
	name := f.Name[strings.LastIndexByte(f.Name, '.')+1:]
	return strings.ReplaceAll(name, "_", " ") + " " + results.OrNone(f.Old)
}

// environmentCauses are the differences of the environment that can
// move the numbers, said as causes ("NEW is mounted data=journal",
// "kernel release 6.1 → 6.12"); nil when there is none.
func environmentCauses(facts []FactChange) []string {
	var causes []string
	for _, f := range facts {
		if !movesNumbers(f) {
			continue
		}
		c := f.Causes()
		if len(c) == 0 { // a fact with no known mechanism is still a change
			c = []string{changePhrase(f)}
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

// changePhrase says a fact's change from OLD to NEW: "mount options
// +lazytime", "cpus 2 → 4".
func changePhrase(f FactChange) string {
	if f.Added != nil || f.Removed != nil {
		var parts []string
		for _, o := range f.Added {
			parts = append(parts, "+"+o)
		}
		for _, o := range f.Removed {
			parts = append(parts, "−"+o)
		}
		return "mount options " + strings.Join(parts, " ")
	}
	name := f.Name[strings.LastIndexByte(f.Name, '.')+1:]
	return strings.ReplaceAll(name, "_", " ") + " " + results.OrNone(f.Old) + " → " + results.OrNone(f.New)
}

// environmentShift is the note of a group whose arms all changed the same
// way with the environment: "every arm 18–32% slower, TemporaryFile
// −32%: NEW is mounted data=journal"; ok is false when they did not.
func environmentShift(g []*ArmDiff, causes []string) (DriftNote, bool) {
	var base *ArmDiff
	var moved []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, d := range g {
		if d.OpsPerS == nil {
			continue // failed, or in one run only: said on its own
		}
		if d.OpsPerS.Verdict != results.VerdictChanged {
			return DriftNote{}, false
		}
		lo, hi = math.Min(lo, d.OpsPerS.DeltaPct), math.Max(hi, d.OpsPerS.DeltaPct)
		if d.Baseline {
			base = d
		} else {
			moved = append(moved, d.Arm)
		}
	}
	if base == nil || len(moved) == 0 || (lo < 0) != (hi < 0) {
		return DriftNote{}, false
	}
	n := DriftNote{Group: base.GroupTitle(), Baseline: base.Arm, DeltaPct: base.OpsPerS.DeltaPct, P: base.OpsPerS.P, Moved: moved}
	// The note says what they share. An arm that moved mostly as the
	// baseline did (its ratio to it moved less than half as far, in log
	// terms, or not at all) is named in the note, and its own sentence
	// is one line. The arms the change hit much harder or less keep
	// theirs whole, among the changes: tmpfs → ext4 took 66% of
	// TemporaryFile's throughput and 89% of mkstemp-fsync's ratio.
	var with []string
	for _, d := range g {
		if d.OpsPerS != nil && (d.Baseline || mostlyBaselines(d.Ratio, base.OpsPerS)) {
			d.WithGroup = true
			d.say(explain.WithGroupSentence(d.Rate, *d.OpsPerS, base.Arm, d.Ratio))
			if !d.Baseline {
				with = append(with, d.Arm)
			}
		}
	}
	n.Sentence = explain.EnvironmentShiftSentence(n.Group, base.Arm, *base.OpsPerS, lo, hi, causes, with)
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
