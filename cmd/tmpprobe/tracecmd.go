//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/internal/safefs"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/session"
)

const traceUsage = `Usage: tmpprobe trace [flags] -- COMMAND [ARGS...]
       tmpprobe trace --pid PID[,...] | --tid TID[,...] | --cgroup PATH [flags]

Attributes the syscalls of any program the way the labs do: per syscall
class calls, time, off-CPU time and why, percentiles, block I/O and journal
work, and explanations. A launched command gets TMPPROBE_COOKIE in its
environment; a region it marks with lseek(-1, cookie, phase<<1 | begin)
(begin 1, end 0) is reported separately, per entry (see docs/trace.md).

A launched command runs in a cgroup v2 of its own. When the trace ends
(the command exits, --duration passes, or Ctrl-C: SIGTERM, then SIGKILL
after 2 s; a second Ctrl-C kills at once), everything in that cgroup is
killed: every process the command started, including ones that double-fork,
call setsid or ignore signals. Not killed: what the command asked another
service to start (a systemd unit, a job sent to a running server), and the
processes of --pid, --tid and --cgroup, which trace only watches.

A command runs as --user, which under sudo is the user who ran sudo (as
strace -u, with their uid, groups and HOME), so it runs as it would
without sudo; --user root keeps root.

Examples:
  sudo tmpprobe trace -- python3 upload.py
  sudo tmpprobe trace --follow --errors -- make -j2
  sudo tmpprobe trace --pid 1234 --duration 10s --interval 2s --top 10
  sudo tmpprobe trace --cgroup system.slice/nginx.service --duration 30s
  sudo tmpprobe trace --syscall openat,fsync --csv trace.csv -- ./app

Flags:
%s`

type traceFlags struct {
	pids, tids []string
	cgroup     string
	follow     bool
	duration   time.Duration
	interval   time.Duration
	syscalls   []string
	errors     bool
	top        int
	tracedFlags
}

func cmdTrace(in *session.Interrupts, args []string, stdout, stderr io.Writer) error {
	f := &traceFlags{}
	fs := pflag.NewFlagSet("trace", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringSliceVar(&f.pids, "pid", nil, "trace these running processes (all their threads)")
	fs.StringSliceVar(&f.tids, "tid", nil, "trace just these threads")
	fs.StringVar(&f.cgroup, "cgroup", "", "trace every process of this cgroup v2, not of its child cgroups (path, absolute or under the cgroup2 mount)")
	f.userFlag(fs, "command")
	fs.BoolVar(&f.follow, "follow", false, "also trace child processes (threads are always followed)")
	fs.DurationVar(&f.duration, "duration", 0, "stop after this long (default: when the target ends, or Ctrl-C)")
	fs.DurationVar(&f.interval, "interval", 0, "print a summary of each interval this long")
	fs.StringSliceVar(&f.syscalls, "syscall", nil, "show only these syscalls (openat covers "+results.ClassOpenatTmpfile+" and "+results.ClassOpenatCreate+")")
	fs.BoolVar(&f.errors, "errors", false, "count failed calls by errno")
	fs.IntVar(&f.top, "top", 20, "show the N syscalls with the most time (0: all)")
	f.tracedFlags.flags(fs, "save the trace to `DIR` (run.json, syscalls.csv, report.md, chart; diff-able)",
		"no 'tracing …' line on stderr")
	if err := parseCommand(fs, args, traceUsage, stdout); err != nil {
		return err
	}
	t, err := f.session(fs)
	if err != nil {
		return err
	}
	t.Stderr, t.Args = stderr, append([]string{"trace"}, args...)
	_, err = session.RunTrace(in, t, stdout)
	return err
}

// session checks trace's flags and makes its session.
func (f *traceFlags) session(fs *pflag.FlagSet) (session.Trace, error) {
	t := session.Trace{Errors: f.errors, Quiet: f.quiet, Outputs: f.Outputs, NoStacks: f.noStacks,
		View: render.TraceView{Top: f.top, Syscalls: f.syscalls, Sort: f.Sort}}
	var err error
	if t.Spec, err = f.spec(fs.Args(), fs.ArgsLenAtDash()); err != nil {
		return t, err
	}
	if t.Spec.As, err = f.runAs(fs.Changed("user"), len(t.Spec.Command) > 0); err != nil {
		return t, err
	}
	for _, name := range f.syscalls {
		if !probe.KnownClass(name) {
			return t, usagef("--syscall %s: not a syscall name (e.g. openat, fsync, %s)", name, results.ClassOpenatCreate)
		}
	}
	t.Backend, err = f.backend("trace has nothing to show without a probe")
	return t, err
}

// userFlag declares --user; what names the commands it runs as.
func (t *tracedFlags) userFlag(fs *pflag.FlagSet, what string) {
	fs.StringVarP(&t.user, "user", "u", "", "run the "+what+" as this `USER`: uid, groups, HOME (default: under sudo, the user who ran sudo; root keeps root)")
}

// runAs is who a launched command runs as: --user, or under sudo the user
// who ran it; nil for tmpprobe's own user.
func (t *tracedFlags) runAs(set, command bool) (*follow.User, error) {
	name := t.user
	if !set {
		if _, _, ok := safefs.Invoker(); !ok || !command {
			return nil, nil
		}
		name = os.Getenv("SUDO_USER")
	}
	if !command {
		return nil, usagef("--user goes with -- COMMAND: a running process already has its user")
	}
	u, err := user.Lookup(name)
	if err != nil {
		if u, err = user.LookupId(name); err != nil {
			return nil, usagef("--user %s: no such user", name)
		}
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil {
		return nil, usagef("--user %s: uid %s, gid %s", name, u.Uid, u.Gid)
	}
	as := &follow.User{Name: u.Username, UID: uint32(uid), GID: uint32(gid), Home: u.HomeDir}
	if uint32(uid) == uint32(os.Geteuid()) {
		return nil, nil // already that user
	}
	if os.Geteuid() != 0 {
		return nil, usagef("--user %s: only root can run a command as another user", name)
	}
	ids, err := u.GroupIds()
	if err != nil {
		return nil, usagef("--user %s: its groups: %v", name, err)
	}
	for _, id := range ids {
		if g, err := strconv.ParseUint(id, 10, 32); err == nil {
			as.Groups = append(as.Groups, uint32(g))
		}
	}
	return as, nil
}

// spec checks that exactly one target was named.
// minInterval is the shortest --interval: each one reads every kernel
// map and prints a summary (1ns printed 8,823 of them in 2 s).
const minInterval = 100 * time.Millisecond

func (f *traceFlags) spec(rest []string, dash int) (*follow.Spec, error) {
	s := &follow.Spec{Follow: f.follow, Duration: f.duration, Interval: f.interval, Cgroup: f.cgroup}
	var err error
	if s.PIDs, err = ints("--pid", f.pids); err != nil {
		return nil, err
	}
	if s.TIDs, err = ints("--tid", f.tids); err != nil {
		return nil, err
	}
	if dash >= 0 {
		s.Command = rest[dash:]
		rest = rest[:dash]
	}
	if len(rest) > 0 {
		return nil, usagef("unexpected %q: put the command after --", strings.Join(rest, " "))
	}
	n := 0
	for _, set := range []bool{len(s.Command) > 0, len(s.PIDs) > 0, len(s.TIDs) > 0, s.Cgroup != ""} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return nil, usagef("trace needs a target: -- COMMAND, --pid, --tid or --cgroup")
	case n > 1:
		return nil, usagef("trace takes one kind of target: -- COMMAND, --pid, --tid or --cgroup")
	case s.Cgroup != "" && s.Duration == 0:
		return nil, usagef("--cgroup needs --duration (a cgroup has no end to wait for)")
	case f.top < 0:
		return nil, usagef("--top %d: want 0 or more", f.top)
	case f.duration < 0 || f.interval < 0:
		return nil, usagef("--duration and --interval must not be negative")
	case f.interval > 0 && f.interval < minInterval:
		return nil, usagef("--interval %v: at least %v (each interval prints a summary)", f.interval, minInterval)
	}
	for _, pid := range append(s.PIDs, s.TIDs...) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return nil, usagef("no process or thread %d", pid)
		}
	}
	return s, nil
}

func ints(flag string, vals []string) ([]int, error) {
	var out []int
	for _, v := range vals {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return nil, usagef("%s %q: want a positive number", flag, v)
		}
		out = append(out, n)
	}
	return out, nil
}
