package probe

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// Pseudo classes and stages of bpf/tmpprobe.h.
const (
	classOpenatTmpfile = 1024
	classOpenatCreate  = 1025
	classUser          = 1100
	classRegion        = 1101
	stageErrno         = 0x8000
)

// ClassName names a syscall class the way reports and CSVs show it.
func ClassName(c uint16) string {
	switch c {
	case classOpenatTmpfile:
		return "openat[tmpfile]"
	case classOpenatCreate:
		return "openat[create]"
	case classUser:
		return "user"
	case classRegion:
		return "region"
	}
	if n, ok := syscallNames[c]; ok {
		return n
	}
	return fmt.Sprintf("syscall_%d", c)
}

// stageNames follow bpf/tmpprobe.h. "bio_*" are bios the thread queued;
// "dev_*" requests on a work dir's device issued while it was inside the
// syscall, with device time.
var stageNames = map[uint16]string{
	0:  "",
	1:  "page_fault",
	2:  "bio_write",
	3:  "bio_read",
	4:  "bio_discard",
	5:  "bio_flush",
	6:  "dev_write",
	7:  "dev_read",
	8:  "dev_discard",
	9:  "dev_flush",
	10: "jbd2_commit",
	11: "jbd2_handle",
	12: "ext4_sync_file",
	13: "ext4_unlink",
	14: "ext4_evict_inode",
	15: "ext4_free_inode",
	16: "bio_sync",
	17: "bio_meta",
	18: "bio_fua",
	19: "ext4_new_inode",
}

// kernelErrnos are the restart codes a syscall returns when a signal
// interrupts it (include/linux/errno.h); user space never sees them, the
// sys_exit tracepoint does.
var kernelErrnos = map[uint16]string{
	512: "ERESTARTSYS", 513: "ERESTARTNOINTR", 514: "ERESTARTNOHAND", 516: "ERESTART_RESTARTBLOCK",
}

// StageName names a stage inside a class; "" is the syscall itself.
func StageName(s uint16) string {
	if s&stageErrno != 0 {
		e := s &^ stageErrno
		if n := unix.ErrnoName(unix.Errno(e)); n != "" {
			return n
		}
		if n, ok := kernelErrnos[e]; ok {
			return n
		}
		return fmt.Sprintf("errno_%d", e)
	}
	if n, ok := stageNames[s]; ok {
		return n
	}
	for _, f := range StageFuncs {
		if f.Stage == s {
			return f.Func
		}
	}
	return fmt.Sprintf("stage_%d", s)
}

var (
	offStates = []string{"preempted", "sleep", "blocked"}
	offWakers = []string{"", "jbd2", "irq", "kworker", "other"}
)

// OffLabel names an off-CPU label index (state*5 + waker) of bpf/tmpprobe.h.
func OffLabel(i int) string {
	st, wk := i/len(offWakers), i%len(offWakers)
	if st >= len(offStates) {
		return fmt.Sprintf("label_%d", i)
	}
	if offWakers[wk] == "" || st == 0 {
		return offStates[st]
	}
	return offStates[st] + "/" + offWakers[wk]
}
