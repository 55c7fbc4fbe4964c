package compare

import (
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
	switch f.Fact {
	case results.FactFlags, results.FactWorkDirs:
		return false
	case results.FactDir, results.FactFreshOf, results.FactMountPoint, results.FactSource, results.FactDev,
		results.FactDevice, results.FactDisk, results.FactLoopBacking:
		return !f.Dir
	}
	return true
}

// leftOutReason says f of the run left out: its mount options, its move,
// or the fact's name and its value there.
func leftOutReason(f FactChange) string {
	switch {
	case f.Move != "":
		return explain.MoveShort(f.Old, f.New)
	case len(f.Removed) > 0:
		return "mounted " + strings.Join(f.Removed, ",")
	case len(f.Added) > 0:
		return "mounted without " + strings.Join(f.Added, ",")
	}
	return strings.ReplaceAll(f.Fact, "_", " ") + " " + results.OrNone(f.Old)
}
