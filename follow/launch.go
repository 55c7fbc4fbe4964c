//go:build linux

package follow

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
)

// stopTree ends a launched command that is still running, and whatever it
// started: SIGTERM to its cgroup (or, without one, its process tree), then
// SIGKILL to what is left after a grace.
func stopTree(pid int, exited <-chan exit, cg *commandCgroup) {
	if cg != nil {
		cg.signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(2 * time.Second):
			cg.kill()
			<-exited
		}
		cg.kill()
		return
	}
	tree := descendants(pid)
	for _, p := range append(tree, pid) {
		syscall.Kill(p, syscall.SIGTERM)
	}
	select {
	case <-exited:
	case <-time.After(2 * time.Second):
		syscall.Kill(pid, syscall.SIGKILL)
		<-exited
	}
	for _, p := range tree {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// launched are the commands Run started, for Abort.
var launched struct {
	sync.Mutex
	procs   map[*os.Process]*commandCgroup // nil: none
	aborted bool
}

func forget(p *os.Process) {
	launched.Lock()
	delete(launched.procs, p)
	launched.Unlock()
}

// Abort kills every command Run launched, and every process below it or in
// a process group one of them leads, at once and with SIGKILL: it is for a
// second interrupt, when tmpprobe exits without waiting out stopTree's
// grace period, and a command that ignores SIGINT and SIGTERM would
// otherwise outlive tmpprobe. The command shares tmpprobe's process group
// (so a terminal's Ctrl-C and job control reach it as they would without
// tmpprobe), so the group to kill is the one below it, not tmpprobe's own.
// It keeps the lock: nothing is launched after it.
func Abort() {
	launched.Lock()
	launched.aborted = true
	for p, cg := range launched.procs {
		if cg != nil {
			cg.remove()
		}
		killTree(p)
	}
}

// killTree stops the tree first, so nothing in it forks or reaps while it
// is listed, then kills it. os.Process signals through a pidfd, so a
// command already reaped (and its pid perhaps reused) is left alone.
func killTree(p *os.Process) {
	if p.Signal(syscall.SIGSTOP) != nil {
		return
	}
	stopped := map[int]bool{}
	for more := true; more; {
		more = false
		for _, c := range descendants(p.Pid) {
			if !stopped[c] {
				stopped[c], more = true, true
				syscall.Kill(c, syscall.SIGSTOP)
			}
		}
	}
	own := syscall.Getpgrp()
	for c := range stopped {
		if pg, err := syscall.Getpgid(c); err == nil && pg == c && pg != own {
			syscall.Kill(-pg, syscall.SIGKILL)
		}
		syscall.Kill(c, syscall.SIGKILL)
	}
	if pg, err := syscall.Getpgid(p.Pid); err == nil && pg == p.Pid && pg != own {
		syscall.Kill(-pg, syscall.SIGKILL)
	}
	p.Kill()
}

// descendants lists every process below pid, from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := ReadProc(n); err == nil && p.PPID > 0 {
			children[p.PPID] = append(children[p.PPID], n)
		}
	}
	var out []int
	for queue := children[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, children[queue[0]]...)
	}
	return out
}

// launch starts "tmpprobe __launch CMD…", which blocks until release is
// written, so the probe tracks its pid before the command's first syscall.
//
// It returns only once the launcher says it runs, with the read end of a
// pipe its exec of the command closes (see waitExec). cmd.Start returns when
// the launcher's exec has woken the vfork parent and closed the CLOEXEC
// pipe, both early in execve, before the kernel fires sched_process_exec
// for it; a pid tracked in that window sees the launcher's own exec, takes
// it for the command's, and counts the launcher's Go runtime start-up
// (clone3, sigaltstack, futex…) as the command's, as CI saw once.
//
// The launcher starts in a cgroup of its own (see commandCgroup) when one
// can be made; cg is nil otherwise, and uncontained says why.
func launch(spec *Spec, cookie uint64) (cmd *exec.Cmd, release *os.File, execed int, cg *commandCgroup, uncontained string, err error) {
	command := spec.Command
	if _, err := exec.LookPath(command[0]); err != nil {
		return nil, nil, -1, nil, "", notRunnable(command[0], err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, -1, nil, "", err
	}
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, nil, -1, nil, "", err
	}
	// A blocking pipe, read with read(2) outside Go's poller (waitExec):
	// the launcher says it started on it, then closes it by its exec.
	var started [2]int
	if err := syscall.Pipe2(started[:], syscall.O_CLOEXEC); err != nil {
		gateR.Close()
		gateW.Close()
		return nil, nil, -1, nil, "", err
	}
	startedR, startedW := started[0], os.NewFile(uintptr(started[1]), "started")
	keep := false
	defer func() {
		if !keep {
			syscall.Close(startedR)
		}
	}()
	newCmd := func() *exec.Cmd {
		cmd := exec.Command(exe, append([]string{LaunchArg}, command...)...)
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
		if spec.Stdin != nil || spec.Stdout != nil || spec.Stderr != nil {
			cmd.Stdin, cmd.Stdout, cmd.Stderr = spec.Stdin, spec.Stdout, spec.Stderr
		}
		cmd.ExtraFiles = []*os.File{gateR, startedW}
		cmd.Env = commandEnv(spec, cookie)
		if as := spec.As; as != nil {
			// The launcher becomes the user itself (becomeUser), so that
			// its own binary need not be one the user may run.
			groups := make([]string, len(as.Groups))
			for i, g := range as.Groups {
				groups[i] = strconv.FormatUint(uint64(g), 10)
			}
			cmd.Env = append(cmd.Env, fmt.Sprintf("%s=%d:%d:%s", launchAsEnv, as.UID, as.GID, strings.Join(groups, ",")))
		}
		cmd.SysProcAttr = spec.procAttr()
		return cmd
	}
	cmd = newCmd()
	if cg, uncontained = newCommandCgroup(); cg != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, int(cg.dir.Fd())
	}
	err = startLaunched(cmd, cg)
	if err != nil && cg != nil && !errors.Is(err, errAborted) {
		// A cgroup the kernel would not start a process in (a parent
		// with controllers enabled for its children takes no process):
		// the command runs where tmpprobe runs.
		cg.remove()
		uncontained = fmt.Sprintf("the kernel would not start it in a cgroup below tmpprobe's (%v)", errtext.Cause(err))
		cg, cmd = nil, newCmd()
		err = startLaunched(cmd, nil)
	}
	gateR.Close()
	startedW.Close()
	if err != nil {
		gateW.Close()
		if cg != nil {
			cg.remove()
		}
		return nil, nil, -1, nil, "", err
	}
	// Read outside launched's lock, so that Abort can still kill it.
	var b [1]byte
	n, rerr := syscall.Read(startedR, b[:])
	for rerr == syscall.EINTR {
		n, rerr = syscall.Read(startedR, b[:])
	}
	if n != 1 {
		gateW.Close()
		err := cmd.Wait()
		forget(cmd.Process)
		if cg != nil {
			cg.remove()
		}
		return nil, nil, -1, nil, "", fmt.Errorf("the launcher ended before it started the command: %v", err)
	}
	keep = true
	return cmd, gateW, startedR, cg, uncontained, nil
}

// commandEnv is a command's environment: tmpprobe's (under sudo, what
// sudo kept), the marker cookie, and the identity of the user it runs as,
// as login would set it.
func commandEnv(spec *Spec, cookie uint64) []string {
	env := append(os.Environ(), CookieEnv+"="+strconv.FormatUint(cookie, 10))
	if as := spec.As; as != nil {
		env = append(env, "HOME="+as.Home, "USER="+as.Name, "LOGNAME="+as.Name)
	}
	return env
}

// procAttr starts a command's first process. It dies with tmpprobe
// (Pdeathsig): a tmpprobe killed with SIGKILL cannot stop it, and it
// would run on unwatched; what it started is left in its cgroup, which
// the next trace or compare removes (SweepCgroups). With OwnGroup it leads
// a process group of its own.
func (s *Spec) procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: s.OwnGroup}
}

var errAborted = errors.New("interrupted")

// RunUntraced runs spec's command as Run launches one (as spec.As, with
// the same environment and process attributes, in a cgroup of its own)
// but untraced, and times it from its exec to its exit: Start returns once
// the child's exec has closed os/exec's close-on-exec pipe, the event a
// traced run's clock starts at too (waitExec). It returns the command's
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
	err = startLaunched(cmd, cg)
	if err != nil && cg != nil && !errors.Is(err, errAborted) {
		cg.remove() // see launch
		cg, cmd = nil, newCmd()
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
		exited <- exit{err, time.Now()}
	}()
	select {
	case e := <-exited:
		wall, status = e.at.Sub(start), exitCode(e.err, cmd)
	case <-ctx.Done():
		stopTree(cmd.Process.Pid, exited, cg)
		err = ctx.Err()
	}
	if cg != nil {
		cg.remove()
	}
	return wall, status, err
}

// startLaunched starts cmd and records it, with its cgroup, for Abort,
// unless Abort came first.
func startLaunched(cmd *exec.Cmd, cg *commandCgroup) error {
	launched.Lock()
	defer launched.Unlock()
	if launched.aborted {
		return errAborted
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	if launched.procs == nil {
		launched.procs = map[*os.Process]*commandCgroup{}
	}
	launched.procs[cmd.Process] = cg
	return nil
}

// Runnable says why a command cannot be run, in one line, or nil.
func Runnable(name string) error {
	if _, err := exec.LookPath(name); err != nil {
		return notRunnable(name, err)
	}
	return nil
}

// ExitStatus is a command's status as trace reports it (exitCode), for
// commands run beside a trace; err is what cmd.Wait returned.
func ExitStatus(err error, cmd *exec.Cmd) int { return exitCode(err, cmd) }

// notRunnable says why LookPath refused a command.
func notRunnable(name string, err error) error {
	switch {
	case errors.Is(err, syscall.EISDIR):
		return fmt.Errorf("%s is a directory, not a command", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%s is not executable (permission denied)", name)
	}
	return fmt.Errorf("%s: command not found", name)
}

// RunLauncher is the body of "__launch": say it runs on fd 4, wait for
// the go byte on fd 3, then become the command. Fd 4 stays open until the
// exec closes it, which tells tmpprobe the command's time starts (see
// waitExec).
func RunLauncher(command []string) error {
	parent := os.Getppid()
	syscall.Write(4, []byte{1})
	syscall.CloseOnExec(4)
	gate := os.NewFile(3, "gate")
	var b [1]byte
	if n, _ := gate.Read(b[:]); n != 1 {
		return errors.New("tracer went away before the command started")
	}
	gate.Close()
	if err := becomeUser(); err != nil {
		return err
	}
	// A change of credentials clears the parent-death signal (prctl(2)):
	// set it again, then check that tmpprobe did not go meanwhile.
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0); err != nil {
		return fmt.Errorf("prctl PR_SET_PDEATHSIG: %w", err)
	}
	if os.Getppid() != parent {
		return errors.New("tracer went away before the command started")
	}
	path, err := exec.LookPath(command[0])
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return syscall.Exec(path, command, os.Environ())
}

// becomeUser drops the launcher's root for the user launch named, if any.
// The launcher does it, not exec.Cmd's Credential, so that its own binary
// need not be one the user may run; the probe counts from the command's
// exec, after this.
func becomeUser() error {
	as, ok := os.LookupEnv(launchAsEnv)
	if !ok {
		return nil
	}
	os.Unsetenv(launchAsEnv)
	parts := strings.Split(as+"::", ":")
	uid, err1 := strconv.Atoi(parts[0])
	gid, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return fmt.Errorf("%s=%q: want uid:gid:groups", launchAsEnv, as)
	}
	var gids []int
	for _, g := range strings.Split(parts[2], ",") {
		if n, err := strconv.Atoi(g); err == nil {
			gids = append(gids, n)
		}
	}
	// Groups, then gid, then uid: after setuid there is no right left to
	// change the others.
	if err := syscall.Setgroups(gids); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("setresgid %d: %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("setresuid %d: %w", uid, err)
	}
	return nil
}

// exitCode is the command's status the way a shell reports it: its exit
// code, or 128 + the signal that ended it.
func exitCode(err error, cmd *exec.Cmd) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}
