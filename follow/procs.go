//go:build linux

package follow

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
)

// trackProcess traces every thread of pid in phase, as a whole (no
// markers). New threads are picked up at fork; with follow, new child
// processes too.
func trackProcess(p Tracer, pid int, phase uint32, follow bool) error {
	tids, err := threadsOf(pid)
	if err != nil {
		return err
	}
	return p.TrackThreads(tids, phase, follow)
}

// threadsOf lists pid's threads from /proc/<pid>/task.
func threadsOf(pid int) ([]int, error) {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, fmt.Errorf("pid %d: %w", pid, errtext.Cause(err))
	}
	var out []int
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}

// Proc is what /proc/PID/stat says of a process: its state (R, S, D,
// Z for a zombie, …) and its parent.
type Proc struct {
	State byte
	PPID  int
}

// ReadProc reads /proc/PID/stat.
func ReadProc(pid int) (Proc, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Proc{}, err
	}
	// pid (comm) state ppid …: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 2 || len(f[0]) != 1 {
		return Proc{}, fmt.Errorf("/proc/%d/stat: no state and parent in %q", pid, b)
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return Proc{}, fmt.Errorf("/proc/%d/stat: parent %q", pid, f[1])
	}
	return Proc{State: f[0][0], PPID: ppid}, nil
}

// anyAlive reports whether any of the processes still runs; a zombie
// (exited, not yet reaped by its parent) does not.
func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if p, err := ReadProc(pid); err == nil && p.State != 'Z' {
			return true
		}
	}
	return false
}

// Descendants lists every process below pid, from /proc.
func Descendants(pid int) []int {
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
