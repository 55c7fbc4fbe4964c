//go:build linux

package probe

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/results"
)

// pseudoClassNames are how reports and CSVs show bpf/tmpprobe.h's pseudo
// classes; every other class is a syscall number. The names are results',
// which keys on them.
var pseudoClassNames = map[tmpprobePseudoClass]string{
	tmpprobePseudoClassCLASS_OPENAT_TMPFILE: results.ClassOpenatTmpfile,
	tmpprobePseudoClassCLASS_OPENAT_CREATE:  results.ClassOpenatCreate,
	tmpprobePseudoClassCLASS_USER:           results.ClassUser,
	tmpprobePseudoClassCLASS_REGION:         results.ClassRegion,
}

// className names a syscall class the way reports and CSVs show it.
func className(c uint16) string {
	if n, ok := pseudoClassNames[tmpprobePseudoClass(c)]; ok {
		return n
	}
	if n, ok := syscallNames[c]; ok {
		return n
	}
	return fmt.Sprintf("syscall_%d", c)
}

// kernelErrnos are the restart codes a syscall returns when a signal
// interrupts it (include/linux/errno.h); user space never sees them, the
// sys_exit tracepoint does.
var kernelErrnos = map[uint16]string{
	512: "ERESTARTSYS", 513: "ERESTARTNOINTR", 514: "ERESTARTNOHAND", 516: "ERESTART_RESTARTBLOCK",
}

// stageName names a stage inside a class; "" is the syscall itself. The
// stages are enum stage's, named as their enumerators: "bio_write" for
// STAGE_BIO_WRITE ("bio_*" are bios the thread queued, "dev_*" requests on
// a work dir's device issued while it was inside the syscall, the kernel
// functions of the function backends are their own names).
func stageName(s tmpprobeStage) string {
	if s&tmpprobeStageSTAGE_ERRNO != 0 {
		e := uint16(s &^ tmpprobeStageSTAGE_ERRNO)
		if n := unix.ErrnoName(unix.Errno(e)); n != "" {
			return n
		}
		if n, ok := kernelErrnos[e]; ok {
			return n
		}
		return fmt.Sprintf("errno_%d", e)
	}
	if s == tmpprobeStageSTAGE_SYSCALL {
		return ""
	}
	if n, ok := enumLabel(enumStage, uint64(s)); ok {
		return n
	}
	return fmt.Sprintf("stage_%d", s)
}

// offLabel names an off-CPU label index, state * NR_OFF_WAKERS + waker
// (bpf/tmpprobe.h): "blocked/jbd2", or the state alone when nothing woke
// the thread or it was preempted (runnable: nothing needed to wake it).
func offLabel(i int) string {
	nw := int(tmpprobeOffWakerNR_OFF_WAKERS)
	st, wk := tmpprobeOffState(i/nw), tmpprobeOffWaker(i%nw)
	if i < 0 || st >= tmpprobeOffStateNR_OFF_STATES {
		return fmt.Sprintf("label_%d", i)
	}
	state, _ := enumLabel(enumOffState, uint64(st))
	if wk == tmpprobeOffWakerWAKER_NONE || st == tmpprobeOffStateOFF_PREEMPTED {
		return state
	}
	waker, _ := enumLabel(enumOffWaker, uint64(wk))
	return state + "/" + waker
}
