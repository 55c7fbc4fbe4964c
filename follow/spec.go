//go:build linux

package follow

import (
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Spec says what to trace and for how long.
type Spec struct {
	Command []string
	// Stdin, Stdout and Stderr of a launched command: all nil is
	// tmpprobe's own (trace); once one is set, the nil ones are /dev/null,
	// as os/exec has them (compare).
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	PIDs     []int
	TIDs     []int
	Cgroup   string
	Follow   bool
	Duration time.Duration // 0: until the target ends or an interrupt
	Interval time.Duration // 0: no periodic summaries
	// As runs Command as this user instead of root (strace -u); nil: as
	// tmpprobe runs.
	As *User
	// OwnGroup starts Command in a process group of its own (compare): a
	// signal sent to tmpprobe's group (kill -TERM -PGID, a terminal's
	// Ctrl-C) then reaches tmpprobe, which stops the command, and not the
	// command, whose death by it would read as the command failing. A
	// trace leaves the command in tmpprobe's group, where the terminal's
	// job control reaches it as it would without tmpprobe.
	OwnGroup bool
	// Clock, when set, times a launched command from its exec as the
	// kernel saw it (see ExecClock); nil: from tmpprobe's wake-up at it.
	Clock ExecClock
}

// ExecClock reads when a command's exec happened, from the kernel (the
// probe's exec clock): a reader woken by the exec (os/exec's close-on-exec
// pipe closing) is woken on the exec'ing CPU, and often runs only once
// the command has, so `true` timed from that wake-up took 18 µs (#37).
// Each run's command starts in a cgroup of its own: the clock is armed for
// that cgroup's execs-th exec, and read once the command has exited.
type ExecClock interface {
	ArmExecClock(cgroup uint64, execs uint32) error
	ExecTime(cgroup uint64) (ns uint64, ok bool)
}

// User is who a launched command runs as: its uid, gids and home.
type User struct {
	Name     string
	UID, GID uint32
	Groups   []uint32
	Home     string
}

// launchAsEnv hands the launcher the user to become, as
// "uid:gid:group,group"; it is removed before the command starts.
const launchAsEnv = "TMPPROBE_LAUNCH_AS"

// Label names the target in reports.
func (s *Spec) Label() string {
	switch {
	case len(s.Command) > 0:
		return commandLabel(s.Command)
	case len(s.PIDs) > 0:
		return "pid " + joinInts(s.PIDs)
	case len(s.TIDs) > 0:
		return "tid " + joinInts(s.TIDs)
	}
	return "cgroup " + s.Cgroup
}

// commandLabel renders a command line on one short line.
func commandLabel(argv []string) string {
	var parts []string
	for _, a := range argv {
		// Quoted, a control character (ESC, BEL), a bidi override or
		// invalid UTF-8 is shown escaped, never sent to the terminal.
		if strings.ContainsAny(a, " \t\n'\"") || strings.IndexFunc(a, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 || !utf8.ValidString(a) {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	s := []rune(strings.Join(parts, " "))
	if len(s) > 60 {
		return string(s[:59]) + "…"
	}
	return string(s)
}

func joinInts(v []int) string {
	var s []string
	for _, x := range v {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, ",")
}
