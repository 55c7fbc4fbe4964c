// Package loopext4 makes, for a test or benchmark, the journaled ext4 that
// these machines' /tmp is not: a file system image on a loop device,
// unmounted at cleanup.
package loopext4

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Journaled mounts a fresh journaled ext4 of size (as truncate takes it,
// e.g. "256M") on a loop device, its image in tb's temp dir, and returns
// the mount point. A missing tool or a refused mount fails tb rather than
// skipping it: CI installs e2fsprogs, and a journal test that skips
// quietly proves nothing. Fast commits are off (mke2fs's default, pinned
// against a mke2fs.conf that turns them on), so every fsync is a full jbd2
// commit, which the journal tests count.
func Journaled(tb testing.TB, size string) string {
	tb.Helper()
	return Make(tb, size, "-O", "has_journal,^fast_commit")
}

// NoJournal mounts a fresh ext4 without a journal, as this machine's /tmp
// is: there a create skips every inode deleted in the last minute.
// mkfsArgs are added to mkfs.ext4's (e.g. "-N", "32768").
func NoJournal(tb testing.TB, size string, mkfsArgs ...string) string {
	tb.Helper()
	return Make(tb, size, append([]string{"-O", "^has_journal"}, mkfsArgs...)...)
}

// Make mounts a fresh ext4 of size made with mkfsArgs (see Journaled).
func Make(tb testing.TB, size string, mkfsArgs ...string) string {
	tb.Helper()
	for _, tool := range []string{"truncate", "mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Fatalf("%s not found (packages coreutils, e2fsprogs, mount; under sudo, keep /usr/sbin and /sbin on PATH)", tool)
		}
	}
	dir := tb.TempDir()
	img, mnt := filepath.Join(dir, "fs.img"), filepath.Join(dir, "mnt")
	run := func(name string, args ...string) {
		tb.Helper()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	run("truncate", "-s", size, img)
	run("mkfs.ext4", append([]string{"-q", "-F"}, append(mkfsArgs, img)...)...)
	if err := os.Mkdir(mnt, 0o755); err != nil {
		tb.Fatal(err)
	}
	run("mount", "-o", "loop", img, mnt)
	tb.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			tb.Errorf("umount %s: %v\n%s", mnt, err, out)
		}
	})
	return mnt
}
