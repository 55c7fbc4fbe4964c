//go:build linux

package probe

import "fmt"

// RegionFlag marks a region phase: a traced program marks its own regions
// with the same lseek marker, and their records carry REGION_FLAG | the
// program's phase (bpf/tmpprobe.h).
const RegionFlag = uint32(tmpprobePhaseFlagREGION_FLAG)

// TrackThreads traces just these threads (and the threads they start).
func (p *Probe) TrackThreads(tids []int, phase uint32, follow bool) error {
	for _, tid := range tids {
		st := tmpprobeThreadState{Phase: phase, BasePhase: phase}
		if follow {
			st.Follow = 1
		}
		// A thread caught inside a syscall (blocked in read) exits it
		// without an enter: skip that exit, as after a marker. The next
		// sys_enter clears the flag for a thread caught in user space.
		st.InMarker = 1
		if err := p.coll.Maps[tmpprobeMapThreads].Put(uint32(tid), &st); err != nil {
			return fmt.Errorf("tracking thread %d: %w", tid, err)
		}
	}
	return nil
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
