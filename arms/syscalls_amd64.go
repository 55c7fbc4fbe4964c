//go:build linux

package arms

import "golang.org/x/sys/unix"

// The syscalls os.unlink and os.rename make on x86-64 (CPython through
// glibc, as strace shows them), and so the Go worker's unlink and rename
// steps; the exact-count tests and the guide's tables name them.
const (
	UnlinkSyscall = "unlink"
	RenameSyscall = "rename"
)

func (w *goWorker) unlink() error { return w.call(unix.SYS_UNLINK, ptr(w.path)) }

func (w *goWorker) rename() error { return w.call(unix.SYS_RENAME, ptr(w.path), ptr(w.dest)) }
