//go:build linux

// Package marker is how a thread starts and ends a traced region:
// lseek(-1, cookie, phase<<1 | begin). The fd -1 makes the call fail with
// EBADF before the kernel reads the offset or whence, so nothing is
// seeked, and the BPF side (handle_marker in bpf/threads.bpf.h) accepts
// only the run's cookie, so no other process starts or ends a region.
// arms/driver.py issues the same call in Python; TestPythonMarksAsGo in
// arms holds it to this one.
package marker

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// NewCookie is a run's random cookie: 63 bits, since lseek's offset is a
// signed off_t and must stay positive, and never 0, which the BPF side
// takes for "no markers".
func NewCookie() (uint64, error) {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return 0, fmt.Errorf("marker cookie: %w", err)
		}
		if c := binary.LittleEndian.Uint64(b[:]) >> 1; c != 0 {
			return c, nil
		}
	}
}

// Whence is lseek's whence argument that marks phase's region: the BPF
// side reads it as 32 bits, so a phase has 31.
func Whence(phase uint32, begin bool) uintptr {
	w := uintptr(phase) << 1
	if begin {
		w |= 1
	}
	return w
}

// Begin starts the calling thread's region of phase.
func Begin(cookie uint64, phase uint32) { issue(cookie, Whence(phase, true)) }

// End ends the calling thread's region of phase.
func End(cookie uint64, phase uint32) { issue(cookie, Whence(phase, false)) }

// issue is a RawSyscall so that the Go worker's runtime never hands its P
// off around a marker (see arms/goworker.go); the call cannot block.
func issue(cookie uint64, whence uintptr) {
	unix.RawSyscall(unix.SYS_LSEEK, ^uintptr(0), uintptr(cookie), whence)
}
