//go:build linux

package session

import (
	"errors"
	"os"

	"github.com/tmpprobe/tmpprobe/internal/escape"
)

// The errors a session ends with, typed so that cmd chooses the exit
// status and words what is its own (a flag's name); any other error is
// the machine's or the kernel's, said in one line.

// UsageError is bad input found while setting up: a --dir preflight
// cannot read, a --fresh-fs that cannot be made.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, a ...any) error { return &UsageError{escape.Sprintf(format, a...)} }

// ProbeError is the probe refusing to load or attach. AttachNone says
// whether the session could have run without it (the labs can, for
// throughput only).
type ProbeError struct {
	Err        error
	AttachNone bool
}

func (e *ProbeError) Error() string { return e.Err.Error() }
func (e *ProbeError) Unwrap() error { return e.Err }

// Interrupted is a session a signal stopped: before it measured anything,
// or with the results of what finished reported and saved.
type Interrupted struct {
	Signal os.Signal
	Before bool
	// Finished says what the report covers ("the results above cover
	// the arms that finished").
	Finished string
}

func (e *Interrupted) Error() string {
	if e.Before {
		return "interrupted before the run started"
	}
	if e.Finished == "" {
		return ""
	}
	return "interrupted: " + e.Finished
}

// ArmsFailed is a lab run in which some arms failed; the others ran
// every round and are reported.
type ArmsFailed struct{}

func (ArmsFailed) Error() string { return "some arms failed (see FAILED above)" }

// CommandExit is a traced or compared command that exited non-zero;
// Status is its status as a shell reports it, and Msg says so ("" for a
// trace, which passes its command's status on as it is).
type CommandExit struct {
	Status int
	Msg    string
}

func (e *CommandExit) Error() string { return e.Msg }

// OutputError is an output that could not be written after the run;
// what was written before it, --out first, stands.
type OutputError struct{ Msg string }

func (e *OutputError) Error() string { return e.Msg }

// Exit statuses of a session's errors besides a signal's (ExitCode) and
// a command's own.
const (
	// ExitFailed: an arm failed (the others still ran), an output could
	// not be written, or a diff failed its gate.
	ExitFailed = 1
	// ExitUsage: bad input, or the kernel or the privileges refused the
	// probe.
	ExitUsage = 2
)

// ExitStatus is the status tmpprobe exits with for a session's error:
// bad input and a refused probe ExitUsage; a signal 128 + its number; a
// traced or compared command's failure its status; a failed arm, an
// output that could not be written and a failed gate ExitFailed. ok is
// false for an error that is none of the session's (the machine's or
// the kernel's, which cmd ends with ExitUsage).
func ExitStatus(err error) (status int, ok bool) {
	var (
		ue *UsageError
		pe *ProbeError
		ie *Interrupted
		ce *CommandExit
		oe *OutputError
		re *Regressed
	)
	switch {
	case errors.As(err, &ue), errors.As(err, &pe):
		return ExitUsage, true
	case errors.As(err, &ie):
		return ExitCode(ie.Signal), true
	case errors.As(err, &ce):
		return ce.Status, true
	case errors.As(err, &oe), errors.As(err, &re), errors.As(err, new(ArmsFailed)):
		return ExitFailed, true
	}
	return 0, false
}
