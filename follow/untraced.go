//go:build linux

package follow

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// RunUntraced runs spec's command as Run launches one (as spec.As, with
// the same environment and process attributes, in a cgroup of its own)
// but untraced, and times it from its exec to its exit: with spec.Clock,
// from the exec as the kernel saw it, as a traced run is; else from when
// Start returns, once the child's exec has closed os/exec's close-on-exec
// pipe, the event a traced run's clock starts at too (waitExec). It returns the command's
// status as a shell reports it. When ctx ends first the command is
// stopped, with everything it started, and ctx's error returned.
func RunUntraced(ctx context.Context, spec *Spec, cookie uint64) (wall time.Duration, status int, err error) {
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = spec.Stdin, spec.Stdout, spec.Stderr
		cmd.Env = commandEnv(spec, cookie)
		cmd.SysProcAttr = spec.procAttr()
		if as := spec.As; as != nil {
			cmd.SysProcAttr.Credential = &syscall.Credential{Uid: as.UID, Gid: as.GID, Groups: as.Groups}
		}
		return cmd
	}
	cmd := newCmd()
	cg, _ := newCommandCgroup()
	if cg != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(cg.dir.Fd())
	}
	clocked := armClock(spec.Clock, cg, 1)              // the command's own exec, the first in its cgroup
	defer func() { forgetClock(spec.Clock, clocked) }() // whatever happened
	err = startLaunched(cmd, cg)
	if err != nil && cg != nil && !errors.Is(err, errAborted) {
		cg.remove() // see launch
		cg, cmd, clocked = nil, newCmd(), 0
		err = startLaunched(cmd, nil)
	}
	if err != nil {
		if cg != nil {
			cg.remove()
		}
		return 0, 0, err
	}
	start := time.Now()
	defer forget(cmd.Process)
	exited := make(chan exit, 1)
	go func() {
		err := cmd.Wait()
		exited <- exit{err, time.Now(), monotonicNs()}
	}()
	select {
	case e := <-exited:
		wall, status = e.at.Sub(start), exitCode(e.err, cmd)
		if ns, ok := clockedSince(spec.Clock, clocked, e); ok {
			wall = ns
		}
	case <-ctx.Done():
		stopTree(cmd.Process.Pid, exited, cg)
		err = ctx.Err()
	}
	if cg != nil {
		cg.remove()
	}
	return wall, status, err
}

// forgetClock drops what the clock armed for cgroup (0: nothing): the
// probe's map holds few cgroups, and a run that ended early, or was never
// started, read none.
func forgetClock(clock ExecClock, cgroup uint64) {
	if clock != nil && cgroup != 0 {
		clock.ExecTime(cgroup)
	}
}

// clockedSince is a run's wall time from the exec the clock recorded in
// cgroup to its exit e; ok is false with no clock, no cgroup to time by,
// or no exec recorded before the exit.
func clockedSince(clock ExecClock, cgroup uint64, e exit) (time.Duration, bool) {
	if clock == nil || cgroup == 0 {
		return 0, false
	}
	ns, ok := clock.ExecTime(cgroup)
	if !ok || ns >= e.mono {
		return 0, false
	}
	return time.Duration(e.mono - ns), true
}
