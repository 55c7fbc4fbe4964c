//go:build linux

package probe

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/results"
)

// RegionFlag marks a region phase: a traced program marks its own regions
// with the same lseek marker, and their records carry REGION_FLAG | the
// program's phase (bpf/tmpprobe.h).
const RegionFlag = uint32(tmpprobePhaseFlagREGION_FLAG)

// TrackThreads traces just these threads (and the threads they start).
// A thread blocked inside a syscall now (trace --pid of a sleep) is
// noted (InFlight): that call is not counted, and none of its time is
// user time.
func (p *Probe) TrackThreads(tids []int, phase uint32, follow bool) error {
	p.inFlight = nil
	for _, tid := range tids {
		st := tmpprobeThreadState{Phase: phase, BasePhase: phase}
		if follow {
			st.Follow = 1
		}
		// A thread caught inside a syscall (blocked in read) exits it
		// without an enter: skip that exit, as after a marker. The next
		// sys_enter clears the flag for a thread caught in user space.
		st.InMarker = 1
		switch nr, state := syscallNow(tid); state {
		case threadRunning:
			// On a CPU or waiting for one: in user mode, as far as
			// anything tells (a runnable thread inside a syscall reads
			// the same, and its rest of that call counts as user time).
			st.UserSince = monotonicNs()
		case threadInSyscall:
			st.InFlight = 1
			p.inFlight = append(p.inFlight, results.Note{Kind: results.NoteInFlight,
				What: fmt.Sprintf("tid %d (%s)", tid, commOf(tid)), Syscall: className(nr)})
		}
		if err := p.putThread(uint32(tid), &st); err != nil {
			return fmt.Errorf("tracking thread %d: %w", tid, err)
		}
	}
	return nil
}

// InFlight are the notes of the threads the last TrackThreads found
// blocked inside a syscall.
func (p *Probe) InFlight() []results.Note { return p.inFlight }

type threadNow int

const (
	threadUnknown   threadNow = iota // gone, unreadable, or blocked outside a syscall (a fault)
	threadRunning                    // runnable: on a CPU or waiting for one
	threadInSyscall                  // blocked inside syscall nr
)

// syscallNow reads what the kernel says tid is doing: /proc/TID/syscall is
// "running" for a runnable task, else the syscall it is blocked in (its
// number, arguments, stack pointer and pc), or -1 when it is blocked
// outside one.
func syscallNow(tid int) (uint16, threadNow) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/syscall", tid))
	if err != nil {
		return 0, threadUnknown
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, threadUnknown
	}
	if f[0] == "running" {
		return 0, threadRunning
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil || nr < 0 || nr > 0xffff {
		return 0, threadUnknown
	}
	return uint16(nr), threadInSyscall
}

func commOf(tid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", tid))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// monotonicNs is CLOCK_MONOTONIC, bpf_ktime_get_ns's clock.
func monotonicNs() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return uint64(ts.Nano())
}

// KnownClass reports whether name is a syscall class tmpprobe can report:
// a syscall name of this architecture, openat[tmpfile], openat[create], or
// syscall_N for a number without a name.
func KnownClass(name string) bool {
	if _, ok := syscallNr(name); ok {
		return true
	}
	if name == pseudoClassNames[tmpprobePseudoClassCLASS_OPENAT_TMPFILE] || name == pseudoClassNames[tmpprobePseudoClassCLASS_OPENAT_CREATE] {
		return true
	}
	var nr uint16
	n, err := fmt.Sscanf(name, "syscall_%d", &nr)
	return err == nil && n == 1 && className(nr) == name
}
