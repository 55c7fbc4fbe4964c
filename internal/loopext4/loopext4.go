// Package loopext4 makes, for a test or benchmark, the ext4 file systems
// that these machines' /tmp is not (a journaled one, one mounted with other
// options, one stacked on another): a file system image on a loop device,
// unmounted at cleanup.
package loopext4

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// journaled is mkfs.ext4's features of a journal test: fast commits off
// (mke2fs's default, pinned against a mke2fs.conf that turns them on), so
// every fsync is a full jbd2 commit, which the journal tests count.
var journaled = []string{"-O", "has_journal,^fast_commit"}

// Options say how Mount makes its file system.
type Options struct {
	Dir   string   // where the image and mount point go; tb's temp dir when ""
	Mkfs  []string // mkfs.ext4's arguments besides -q -F and the image
	Mount string   // mount options besides loop (e.g. "nobarrier")
}

// Journaled mounts a fresh journaled ext4 of size (as truncate takes it,
// e.g. "256M") on a loop device, its image in tb's temp dir, and returns
// the mount point.
func Journaled(tb testing.TB, size string) string {
	tb.Helper()
	return Mount(tb, size, Options{Mkfs: journaled})
}

// JournaledWith is Journaled mounted with these extra mount options, for
// tests that change one setting between runs.
func JournaledWith(tb testing.TB, size, mountOptions string) string {
	tb.Helper()
	return Mount(tb, size, Options{Mkfs: journaled, Mount: mountOptions})
}

// JournaledIn is Journaled with its image in dir: in another Journaled's
// mount point, a loop device on a loop device.
func JournaledIn(tb testing.TB, dir, size string) string {
	tb.Helper()
	return Mount(tb, size, Options{Dir: dir, Mkfs: journaled})
}

// NoJournal mounts a fresh ext4 without a journal, as this machine's /tmp
// is: there a create skips every inode deleted in the last minute.
// mkfsArgs are added to mkfs.ext4's (e.g. "-N", "32768").
func NoJournal(tb testing.TB, size string, mkfsArgs ...string) string {
	tb.Helper()
	return Mount(tb, size, Options{Mkfs: append([]string{"-O", "^has_journal"}, mkfsArgs...)})
}

// Mount makes and mounts an ext4 of size as o says and returns its mount
// point. A missing tool or a refused mount fails tb rather than skipping
// it: CI installs e2fsprogs, and a test that skips quietly proves nothing.
func Mount(tb testing.TB, size string, o Options) string {
	tb.Helper()
	for _, tool := range []string{"truncate", "mkfs.ext4", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			tb.Fatalf("%s not found (packages coreutils, e2fsprogs, mount; under sudo, keep /usr/sbin and /sbin on PATH)", tool)
		}
	}
	dir := o.Dir
	if dir == "" {
		dir = tb.TempDir()
	}
	img, mnt := filepath.Join(dir, "fs.img"), filepath.Join(dir, "mnt")
	run := func(name string, args ...string) {
		tb.Helper()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			tb.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
	}
	run("truncate", "-s", size, img)
	run("mkfs.ext4", append(append([]string{"-q", "-F"}, o.Mkfs...), img)...)
	if err := os.Mkdir(mnt, 0o755); err != nil {
		tb.Fatal(err)
	}
	mountOptions := "loop"
	if o.Mount != "" {
		mountOptions += "," + o.Mount
	}
	run("mount", "-o", mountOptions, img, mnt)
	tb.Cleanup(func() {
		if out, err := exec.Command("umount", mnt).CombinedOutput(); err != nil {
			tb.Errorf("umount %s: %v\n%s", mnt, err, out)
		}
	})
	return mnt
}
