package report

import "github.com/tmpprobe/tmpprobe/results"

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
	}
	// A leftover removed, a fresh file system, a note saved as words: the
	// words of what made it. A kind this tmpprobe does not know (a newer
	// one's) says what it has.
	if n.What == "" && n.Reason != "" {
		return string(n.Kind) + ": " + n.Reason
	}
	return n.What
}
