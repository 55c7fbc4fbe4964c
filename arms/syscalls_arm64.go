//go:build linux

package arms

import "golang.org/x/sys/unix"

// The syscalls os.unlink and os.rename make on arm64, whose syscall table
// (the generic one) has no unlink or rename: glibc calls unlinkat and
// renameat with AT_FDCWD, and so does the Go worker.
const (
	UnlinkSyscall = "unlinkat"
	RenameSyscall = "renameat"
)

func (w *goWorker) unlink() error { return w.call(unix.SYS_UNLINKAT, atFdcwd, ptr(w.path), 0) }

func (w *goWorker) rename() error {
	return w.call(unix.SYS_RENAMEAT, atFdcwd, ptr(w.path), atFdcwd, ptr(w.dest))
}
