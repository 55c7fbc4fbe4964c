//go:build linux

package follow

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
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
	tree := Descendants(pid)
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
		for _, c := range Descendants(p.Pid) {
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

var errAborted = errors.New("interrupted")

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
