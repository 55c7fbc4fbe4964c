//go:build linux

package follow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
)

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
func launch(spec *Spec, cookie uint64) (cmd *exec.Cmd, release *os.File, execed int, cg *commandCgroup, clocked uint64, uncontained string, err error) {
	command := spec.Command
	if _, err := exec.LookPath(command[0]); err != nil {
		return nil, nil, -1, nil, 0, "", notRunnable(command[0], err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, -1, nil, 0, "", err
	}
	gateR, gateW, err := os.Pipe()
	if err != nil {
		return nil, nil, -1, nil, 0, "", err
	}
	// A blocking pipe, read with read(2) outside Go's poller (waitExec):
	// the launcher says it started on it, then closes it by its exec.
	var started [2]int
	if err := syscall.Pipe2(started[:], syscall.O_CLOEXEC); err != nil {
		gateR.Close()
		gateW.Close()
		return nil, nil, -1, nil, 0, "", err
	}
	startedR, startedW := started[0], os.NewFile(uintptr(started[1]), "started")
	keep := false
	defer func() {
		if !keep {
			syscall.Close(startedR)
			forgetClock(spec.Clock, clocked)
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
	// The launcher's own exec is its cgroup's first, the command's the
	// second.
	clocked = armClock(spec.Clock, cg, 2)
	err = startLaunched(cmd, cg)
	if err != nil && cg != nil && !errors.Is(err, errAborted) {
		// A cgroup the kernel would not start a process in (a parent
		// with controllers enabled for its children takes no process):
		// the command runs where tmpprobe runs.
		cg.remove()
		uncontained = fmt.Sprintf("the kernel would not start it in a cgroup below tmpprobe's (%v)", errtext.Cause(err))
		cg, cmd, clocked = nil, newCmd(), 0
		err = startLaunched(cmd, nil)
	}
	gateR.Close()
	startedW.Close()
	if err != nil {
		gateW.Close()
		if cg != nil {
			cg.remove()
		}
		return nil, nil, -1, nil, 0, "", err
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
		return nil, nil, -1, nil, 0, "", fmt.Errorf("the launcher ended before it started the command: %v", err)
	}
	keep = true
	return cmd, gateW, startedR, cg, clocked, uncontained, nil
}

// exit is a launched command's end: what Wait returned, and when (also
// as CLOCK_MONOTONIC ns, the exec clock's).
type exit struct {
	err  error
	at   time.Time
	mono uint64
}

// waitExec blocks until the launcher execs the command, which closes the
// launcher's end of the execed pipe (close-on-exec), and returns that
// moment; or until the launcher exits without exec'ing.
//
// A launched command's wall time starts here, not when the launcher is
// released: the launcher is a Go process, and its exec first stops its
// other threads and tears down its address space, 1–4 ms that are
// tmpprobe's, not the command's. The kernel closes close-on-exec files
// after both, in the command's execve, and compare's untraced runs start
// their clock at the same event (os/exec's Start returns when the child's
// exec closes its close-on-exec pipe), so that the traced and untraced
// wall times are the same span, exec to exit, and their ratio, the
// observer effect, is the probe's alone. The read is a blocking read(2),
// as os/exec's is, so both clocks are read after the same kind of wake-up.
func waitExec(execed int) time.Time {
	var b [1]byte
	for {
		n, err := syscall.Read(execed, b[:])
		if err == syscall.EINTR || n > 0 && err == nil {
			continue
		}
		return time.Now()
	}
}

// command is a command Run launched, while the trace runs.
type command struct {
	cmd     *exec.Cmd
	release *os.File // written once the probe tracks the launcher: it then execs the command
	execed  int      // closed by the command's exec (waitExec)
	cg      *commandCgroup
	execAt  chan time.Time
	exited  chan exit
	done    bool // its exit was seen
	clock   ExecClock
	clocked uint64 // the cgroup clock times it by (0: none)
}

// launchCommand launches spec's command, held by the launcher until run;
// uncontained says why it has no cgroup of its own.
func launchCommand(spec *Spec, cookie uint64) (c *command, uncontained string, err error) {
	c = &command{execAt: make(chan time.Time, 1), exited: make(chan exit, 1), clock: spec.Clock}
	if c.cmd, c.release, c.execed, c.cg, c.clocked, uncontained, err = launch(spec, cookie); err != nil {
		return nil, "", err
	}
	// The exec's time and the exit's are read one after the other by
	// one goroutine, as an untraced run's are (RunUntraced): read by
	// two, a late wake-up of the exec's reader on a loaded machine put
	// it after the exit of a command that ran 100 µs, and the wall time
	// came out negative.
	go func() {
		c.execAt <- waitExec(c.execed)
		err := c.cmd.Wait()
		c.exited <- exit{err, time.Now(), monotonicNs()}
	}()
	return c, uncontained, nil
}

// run lets the launcher exec the command and returns when it did.
func (c *command) run() time.Time {
	c.release.Write([]byte{1})
	return <-c.execAt
}

// exits is where the command's end comes; nil (never) without a command.
func (c *command) exits() <-chan exit {
	if c == nil {
		return nil
	}
	return c.exited
}

// close stops the command if it still runs, with every process it
// started, and removes its cgroup with whatever it left running there.
func (c *command) close() {
	c.release.Close()
	if !c.done {
		stopTree(c.cmd.Process.Pid, c.exited, c.cg)
	}
	if c.cg != nil {
		c.cg.remove()
	}
	forget(c.cmd.Process)
	syscall.Close(c.execed)
	forgetClock(c.clock, c.clocked)
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
