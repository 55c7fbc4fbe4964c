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
	exitArmFailed = 1 // a worker failed (the other arms still ran), or an output could not be written
	exitRegressed = 1 // diff: --threshold failed
	exitUsage     = 2 // bad input, or the kernel/privileges refused the probe
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
// mistake and a session's bad input exit 2 with a hint; a probe the kernel
// refused, 2, pointing at what to do; a signal, 128 + its number; a
// failed arm or output, 1; a traced or compared command's failure, its
// status; anything else, 2.
func exitFor(err error, stderr io.Writer) int {
	var (
		ue  usageError
		ee  exitError
		sue *session.UsageError
		pe  *session.ProbeError
		ie  *session.Interrupted
		ce  *session.CommandExit
		oe  *session.OutputError
		re  *session.Regressed
	)
	// What reaches the terminal is escaped: a message may quote a path
	// or a command the user typed.
	say := func(code int, msg string) int {
		if msg != "" {
			fmt.Fprintf(stderr, "tmpprobe: %s\n", escape.Line(msg))
		}
		return code
	}
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.As(err, &ue), errors.As(err, &sue):
		fmt.Fprintf(stderr, "tmpprobe: %s\nTry 'tmpprobe --help'.\n", escape.Line(errtext.FirstLine(err.Error())))
		return exitUsage
	case errors.As(err, &ee):
		return say(ee.code, ee.msg)
	case errors.As(err, &pe):
		return say(exitUsage, privilegeHint(pe.Err, pe.AttachNone))
	case errors.As(err, &ie):
		return say(session.ExitCode(ie.Signal), ie.Error())
	case errors.As(err, &ce):
		return say(ce.Status, ce.Msg)
	case errors.As(err, &oe):
		return say(exitArmFailed, oe.Msg)
	case errors.As(err, &re):
		return say(exitRegressed, re.Error())
	case errors.As(err, new(session.ArmsFailed)):
		return say(exitArmFailed, err.Error())
	}
	return say(exitUsage, errtext.FirstLine(err.Error()))
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
