package results

import (
	"maps"
	"slices"
	"strings"
)

// timeMatched are the stages the probe matches to a syscall by time, not
// by thread: device requests and journal commits that happened while the
// thread was inside it, issued by a kworker, the jbd2 thread or an irq.
func timeMatched(stage string) bool {
	return strings.HasPrefix(stage, DevStagePrefix) || stage == StageJBD2Commit
}

// waitsForIO are the syscalls that can wait for a block device: they read
// or write file data or metadata (a cache miss, dirty throttling, O_SYNC
// or O_DIRECT), flush it, or free blocks (close, unlink, rename onto a
// file, truncate, exit closing the last reference). Device work that
// happens while a thread is inside any other syscall (clock_nanosleep,
// futex, getpid) is the device being busy beside it, never its cause.
var waitsForIO = map[string]bool{}

func init() {
	for _, f := range strings.Fields(`
		fsync fdatasync sync syncfs sync_file_range msync fallocate fadvise64 readahead
		truncate ftruncate read pread64 readv preadv preadv2 write pwrite64 writev pwritev pwritev2
		copy_file_range sendfile splice io_uring_enter io_submit io_getevents io_pgetevents
		open openat openat2 creat close close_range unlink unlinkat rmdir rename renameat renameat2
		link linkat symlink symlinkat mkdir mkdirat mknod mknodat stat lstat fstat newfstatat statx
		getdents getdents64 execve execveat exit exit_group mount umount2`) {
		waitsForIO[f] = true
	}
}

// IOWaitSyscalls are waitsForIO's names, sorted. results cannot import
// probe, so probe's TestIOWaitSyscallsAreClasses holds each to a syscall
// class the probe reports: a misspelt one would match no record and let
// device time stand as that syscall's cause.
func IOWaitSyscalls() []string { return slices.Sorted(maps.Keys(waitsForIO)) }

// canWaitFor says whether the syscall class can wait for the I/O a
// stage counts: always for the stages the thread did itself (bios it
// queued, ext4 work), and for time-matched device I/O only when the
// syscall is one that waits for a device.
func canWaitFor(class, stage string) bool {
	if !timeMatched(stage) {
		return true
	}
	family, _, _ := strings.Cut(class, "[")
	return waitsForIO[family]
}
