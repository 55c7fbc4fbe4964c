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
	return JournaledWith(tb, size, "")
}

// JournaledWith is Journaled mounted with these extra mount options
// (e.g. "nobarrier"), for tests that change one setting between runs.
func JournaledWith(tb testing.TB, size, options string) string {
	tb.Helper()
	return Make(tb, size, "has_journal,^fast_commit", options)
}

// Make mounts a fresh ext4 made with these mkfs features (-O) and mount
// options: e.g. "^has_journal" and "discard" for an ext4 like this
// machine's /tmp.
func Make(tb testing.TB, size, features, options string) string {
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
	run("mkfs.ext4", "-q", "-F", "-O", features, img)
	if err := os.Mkdir(mnt, 0o755); err != nil {
		tb.Fatal(err)
	}
	opts := "loop"
	if options != "" {
		opts += "," + options
	}
	run("mount", "-o", opts, img, mnt)
	tb.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			tb.Errorf("umount %s: %v\n%s", mnt, err, out)
		}
	})
	return mnt
}
