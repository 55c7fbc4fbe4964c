//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/internal/escape"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/session"
)

// Exit codes.
const (
	exitOK        = 0
	exitArmFailed = session.ExitFailed // a worker failed (the other arms still ran), or an output could not be written
	exitRegressed = session.ExitFailed // diff: --threshold failed
	exitUsage     = session.ExitUsage  // bad input, or the kernel/privileges refused the probe
	exitSIGINT    = 130
	exitSIGTERM   = 143
)

// usageError is bad input: one line, a hint, exit 2.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return usageError{escape.Sprintf(format, a...)} }

// exitError ends a command with code and msg ("" says nothing).
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

var errHelp = errors.New("help shown")

// exitFor prints err as one line and maps it to the exit code: a flag's
// mistake exits 2 with a hint; a session's error its status
// (session.ExitStatus), a session's bad input with the hint too and a
// probe the kernel refused pointing at what to do; anything else, 2.
func exitFor(err error, stderr io.Writer) int {
	var (
		ue  usageError
		ee  exitError
		sue *session.UsageError
		pe  *session.ProbeError
		ce  *session.CommandExit
		oe  *session.OutputError
	)
	// What reaches the terminal is escaped: a message may quote a path
	// or a command the user typed.
	say := func(code int, msg string) int {
		if msg != "" {
			fmt.Fprintf(stderr, "tmpprobe: %s\n", escape.Line(msg))
		}
		return code
	}
	hint := func(code int) int {
		fmt.Fprintf(stderr, "tmpprobe: %s\nTry 'tmpprobe --help'.\n", escape.Line(errtext.FirstLine(err.Error())))
		return code
	}
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue):
		return hint(exitUsage)
	case errors.As(err, &ee):
		return say(ee.code, ee.msg)
	}
	code, ok := session.ExitStatus(err)
	switch {
	case !ok:
		return say(exitUsage, errtext.FirstLine(err.Error()))
	case errors.As(err, &sue):
		return hint(code)
	case errors.As(err, &pe):
		return say(code, privilegeHint(pe.Err, pe.AttachNone))
	case errors.As(err, &ce):
		return say(code, ce.Msg)
	case errors.As(err, &oe):
		return say(code, oe.Msg)
	}
	return say(code, err.Error()) // a signal, a failed gate, failed arms
}

// privilegeHint says how to run it when the kernel refused for want of
// privileges; --attach none is offered only where a run can do without
// the probe (trace cannot).
func privilegeHint(err error, attachNone bool) string {
	if os.Geteuid() != 0 && probe.Classify(err) == probe.VerdictPermission {
		if attachNone {
			return needPrivileges + ": run it with sudo, or pass --attach none for throughput only"
		}
		return needPrivileges + ": run it with sudo"
	}
	return errtext.FirstLine(openError(err))
}

// openError is probe.Open's error as the user asked for the backend: a
// backend that cannot be used is named by the flag that chose it.
func openError(err error) string {
	if be, ok := err.(*probe.BackendError); ok {
		return "--attach " + string(be.Backend) + ": " + probe.Refusal(be.Err)
	}
	return err.Error()
}

const needPrivileges = "loading BPF needs root (or CAP_BPF and CAP_PERFMON)"
