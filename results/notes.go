package results

import (
	"bytes"
	"encoding/json"
)

// NoteKind says what a note records. A note is a fact about the run that
// no figure shows; it is stored as data and worded when a report is
// written (results/report), so a reader of run.json can select notes by
// kind and a report never finds one again by its words.
type NoteKind string

const (
	// NoteBackendSkipped: a backend the probe did not take (Backend), the
	// class of its refusal (Verdict) and the kernel's words (Reason). The
	// same on every run of a machine, so a terminal report shows it on
	// request only.
	NoteBackendSkipped NoteKind = "backend skipped"
	// NoteHistoryUnread: an earlier run --history could not read (Reason).
	NoteHistoryUnread NoteKind = "history not read"
	// NoteLeftoverRemoved: what a killed tmpprobe left and this run
	// removed (What, as the sweeper said it).
	NoteLeftoverRemoved NoteKind = "leftover removed"
	// NoteFreshFS: the fresh file system a work dir ran in (What, as
	// freshfs describes it).
	NoteFreshFS NoteKind = "fresh file system"
	// NoteRuntimeSkipped: a runtime the labs could not run (Reason), so
	// only the others ran.
	NoteRuntimeSkipped NoteKind = "runtime skipped"
	// NoteRanAs: who the traced or compared commands ran as (What).
	NoteRanAs NoteKind = "ran as"
	// NoteUncontained: a launched command had no cgroup of its own
	// (Reason), so what it started may have outlived the trace.
	NoteUncontained NoteKind = "uncontained"
	// NoteOlderForm: a hook this kernel has in an older form (What, the
	// hook) and what the probe reads instead (Reason). For sched_switch,
	// which before 5.18 has no prev_state, Reason is the measured bound
	// on how often reading the task's state instead can be wrong.
	NoteOlderForm NoteKind = "older form"
	// NoteRerun: traced batches that ran again (What, how many) because
	// what the probe recorded of them could not be one thread's.
	NoteRerun NoteKind = "batches rerun"
	// NoteInFlight: a thread (What, "tid 4242 (sleep)") was inside a
	// syscall (Syscall, "clock_nanosleep") when the trace began: that
	// call is not counted, neither its time before the trace nor after,
	// and none of it is user time.
	NoteInFlight NoteKind = "syscall in flight"
	// NotePythonUnread: a Python interpreter (What, its file) whose
	// frames the stacks do not name, and why (Reason: "CPython 3.7: its
	// frames are not read (...)", the kernel's refusal of the uprobe);
	// its stacks are native or none.
	NotePythonUnread NoteKind = "python not read"
	// NoteStacksRefused: the kernel would not load or attach what takes
	// stacks (What: "stacks", "user-time sampler", "layouts of Python
	// processes"), with its words (Reason); the run has none of them.
	NoteStacksRefused NoteKind = "stacks refused"
	// NoteUnseenSwitches: how many times (What) a traced thread got a
	// CPU back with no sched_switch saying so (on Firecracker guests,
	// after a thread of pid 1 ran); its time until a hook of its own
	// found it running is the scheduler's count (docs/measuring.md).
	NoteUnseenSwitches NoteKind = "switches unseen"
	// NoteText: a note saved as words, by a tmpprobe before notes were
	// typed (What).
	NoteText NoteKind = "text"
)

// Note is one typed note: its kind and the fields the kind names.
type Note struct {
	Kind    NoteKind `json:"kind"`
	Backend string   `json:"backend,omitempty"`
	Verdict string   `json:"verdict,omitempty"`
	// Reason is the system's words for what went wrong.
	Reason string `json:"reason,omitempty"`
	// What is the thing the note is about, named by what made it.
	What string `json:"what,omitempty"`
	// Syscall is the syscall a note is about (NoteInFlight).
	Syscall string `json:"syscall,omitempty"`
}

// UnmarshalJSON reads a note, or a note saved as words by an earlier
// tmpprobe (a JSON string) as a NoteText.
func (n *Note) UnmarshalJSON(b []byte) error {
	type plain Note // without this method
	return unmarshalTyped(b, (*plain)(n), func(words string) { *n = Note{Kind: NoteText, What: words} })
}

// unmarshalTyped reads b into plain, a typed value, or, when b is a JSON
// string (words saved by a tmpprobe before the value was typed), hands
// the words to words.
func unmarshalTyped(b []byte, plain any, words func(string)) error {
	if s := bytes.TrimSpace(b); len(s) > 0 && s[0] == '"' {
		var w string
		if err := json.Unmarshal(s, &w); err != nil {
			return err
		}
		words(w)
		return nil
	}
	return json.Unmarshal(b, plain)
}
