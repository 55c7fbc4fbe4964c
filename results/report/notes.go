package report

import (
	"fmt"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// NoteText words a note of a run of kind k, as the footer says it and as
// tmpprobe says it on stderr when it happens.
func NoteText(n results.Note, k results.RunKind) string {
	switch n.Kind {
	case results.NoteBackendSkipped:
		return n.Backend + " backend skipped: " + n.Verdict + ": " + n.Reason
	case results.NoteHistoryUnread:
		return "--history: not read: " + n.Reason
	case results.NoteRuntimeSkipped:
		return "--python " + n.Reason + "; running the go runtime only"
	case results.NoteRanAs:
		if k == results.KindCompare {
			return "the commands ran as " + n.What
		}
		return "the command ran as " + n.What
	case results.NoteOlderForm:
		if n.What == "sched_switch" {
			return "sched_switch has no prev_state argument on this kernel (v5.18 added it): " +
				"off-CPU causes are read from the task's state, which a wakeup can race: " + n.Reason
		}
		return n.What + " in its older form: " + n.Reason
	case results.NoteRerun:
		return n.What + " traced batches ran again, and only their reruns count: what the probe recorded of each " +
			"could not be one thread's (it ended on another thread, or held more syscall time than wall time)"
	case results.NoteUncontained:
		return "the command ran without a cgroup of its own (" + n.Reason + "): what it started may have outlived the trace"
	case results.NoteInFlight:
		return n.What + " was inside " + n.Syscall + " when the trace began: that call is not counted, before or after, nor any of it as user time"
	case results.NotePythonUnread:
		return "no Python frames read for " + n.What + ": " + n.Reason + " (its user time is counted, not split by function)"
	case results.NoteUnseenSwitches:
		return n.What + " times a traced thread got a CPU back and the kernel's sched_switch did not say so: " +
			"the time it ran before a hook of its own found it is the scheduler's count of its run time"
	case results.NoteStacksRefused:
		return "no stacks taken for " + n.What + ": the kernel refused it (" + n.Reason + ")"
	}
	// A leftover removed, a fresh file system, a note saved as words: the
	// words of what made it. A kind this tmpprobe does not know (a newer
	// one's) says what it has.
	if n.What == "" && n.Reason != "" {
		return string(n.Kind) + ": " + n.Reason
	}
	return n.What
}

// WarningText words a warning, as the footer says it.
func WarningText(w results.Warning) string {
	switch w.Kind {
	case results.WarningTmpfs:
		return w.Dir + ": tmpfs: fsync returns at once and there is no block I/O"
	case results.WarningNoJournal:
		return w.Dir + ": ext4 without a journal: jbd2 stays silent (no commits to wait for), and a create skips every inode deleted in the last minute (six while its inode table block is unwritten), so creates slow down as a run deletes files, and with what ran in the minutes before (see ext4_new_inode)"
	case results.WarningOverlay:
		return w.Dir + ": an overlay: its files are written in the upper layer " + w.Upper + ", whose " + w.FSType + " and devices are measured"
	case results.WarningNoBlockDevice:
		return w.Dir + ": no block device found under this " + w.FSType + ": block I/O and journal commits cannot be matched to syscalls"
	case results.WarningDiscard:
		return w.Dir + ": mounted with discard: freeing a written file's blocks issues discards to the device inside unlink/close"
	case results.WarningWriteThrough:
		return w.Dir + ": the device has no volatile write cache: fsync needs no cache flush"
	case results.WarningHostBusy:
		return fmt.Sprintf("host busy (load %.1f on %d CPUs): expect run-queue waits, seen as preempted off-CPU time", w.Load, w.CPUs)
	case results.WarningStateDominates:
		if w.Group == nil {
			break
		}
		g := w.Group
		s := fmt.Sprintf("%s: the ratios of %d of %d arms moved with %s across the run; they describe that state as much as the arms (WHY says how with -v, and in report.md)",
			explain.GroupTitle(g.Lab, g.Runtime, g.Dir, g.ParamTitle()), w.Arms, w.Of, w.State)
		if w.State == results.StateInodeAlloc {
			s += "; --fresh-fs starts each run from a fresh file system"
		}
		return s
	}
	// A warning saved as words, or of a kind this tmpprobe does not know
	// (a newer one's): what it has.
	if w.What != "" {
		return w.What
	}
	return string(w.Kind)
}

// warningTexts words every warning.
func warningTexts(ws []results.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, WarningText(w))
	}
	return out
}
