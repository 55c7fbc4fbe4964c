//go:build linux

package session

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/freshfs"
	"github.com/tmpprobe/tmpprobe/results"
)

// GuardArg is the hidden subcommand of the process that cleans up after a
// tmpprobe that was killed with SIGKILL, which no process can catch: the
// cgroup of a traced or compared command with whatever the command
// started (its parent-death signal ends only the command itself), and the
// mounts and loop devices of --fresh-fs. The next run would find and remove them too,
// and say so; the guard removes them at once.
const GuardArg = "__guard"

// launching readies a run that launches commands (trace, compare): it
// notes whom they run as, removes (and says) what an earlier tmpprobe's
// commands left, and starts the guard for what these leave.
func launching(run *results.Run, as *follow.User, stderr io.Writer) {
	run.Meta.Notes = append(run.Meta.Notes, results.Note{Kind: results.NoteRanAs, What: AsWho(as)})
	run.Meta.Notes = append(run.Meta.Notes, say(stderr, run.Kind, leftovers(follow.SweepCgroups())...)...)
	startGuard()
}

// startGuard starts the guard. It runs in a session of its own, so a
// signal to tmpprobe's process group does not end it with tmpprobe, and
// is not waited for: it outlives tmpprobe by the moment its sweep takes.
// Without one (a failed exec) the next run still sweeps.
func startGuard() {
	exe, err := os.Executable()
	if err != nil {
		return
	}
	cmd := exec.Command(exe, GuardArg, strconv.Itoa(os.Getpid()))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if cmd.Start() == nil {
		cmd.Process.Release()
	}
}

// RunGuard waits until the tmpprobe that started it (pid, its parent)
// has exited, then removes what it left. Its exit, not the close of its
// files, is waited for: a process leaves its cgroup after its files are
// closed, and until it has, its cgroups are still its own.
func RunGuard(args []string) {
	pid, err := strconv.Atoi(args[0])
	if err != nil {
		return
	}
	// Still our parent once the pidfd is open: the pidfd is tmpprobe's,
	// not a process's that took its pid after it went.
	if pidfd, err := unix.PidfdOpen(pid, 0); err == nil && os.Getppid() == pid {
		fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				break
			}
		}
	}
	follow.SweepCgroups()
	freshfs.Sweep()
}
