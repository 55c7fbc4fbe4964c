//go:build linux

// Package freshfs makes, for one run, a fresh file system that matches a
// work dir's: the same type, mkfs features (the journal among them) and
// mount options (discard and barrier among them), on a loop device backed
// by an image file on the work dir's own file system. A comparison then
// starts from the same file-system state each time, where the work dir
// itself carries whatever was created and deleted before: on an ext4
// without a journal a create skips every inode deleted in the last
// minute, and the cost of that moves a run's ratios by half (#18).
package freshfs

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/preflight"
)

// DefaultSize is the image's size: sparse, so it costs what the run writes.
const DefaultSize = 1 << 30

// FS is a fresh file system, mounted until Remove.
type FS struct {
	Of       string // the work dir it matches
	Dir      string // where to run: its mount point
	Device   string // the loop device
	Image    string // the backing file, on Of's file system
	Features string // mkfs.ext4 -O, as made
	Options  string // mount -o, as mounted
	// Guessed says what could not be read off the work dir's file system
	// and was taken from mke2fs's defaults instead ("" when nothing was).
	Guessed string
	top     string
}

// ErrNotNeeded is returned for a tmpfs: a new one would be the same as
// the old, as it keeps nothing between files but memory.
var ErrNotNeeded = errors.New("is a tmpfs: it keeps no state a fresh one would not, so there is nothing to remake")

// runtimeFlags are superblock features that describe the file system's
// state, not how it was made.
var runtimeFlags = []string{"needs_recovery", "orphan_present"}

// Make makes and mounts a fresh file system matching dir's.
func Make(dir string, size int64) (*FS, error) {
	facts, _, err := preflight.Dir(dir)
	if err != nil {
		return nil, err
	}
	switch facts.FSType {
	case "tmpfs":
		return nil, fmt.Errorf("%s %w", dir, ErrNotNeeded)
	case "ext4":
	default:
		return nil, fmt.Errorf("%s is %s: only ext4 can be remade to match (its features and options are known)", dir, facts.FSType)
	}
	for _, tool := range []string{"mkfs.ext4", "losetup", "mount", "umount"} {
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s not found (packages e2fsprogs, mount; under sudo, keep /usr/sbin and /sbin on PATH)", tool)
		}
	}
	f := &FS{Of: dir, Options: facts.Options}
	mkfs := []string{"-q", "-F"}
	if feats, bsize, isize, err := readFeatures(facts.Source); err == nil {
		f.Features = feats
		mkfs = append(mkfs, "-O", "none,"+feats, "-b", bsize, "-I", isize)
	} else {
		// A device cgroup may refuse root the block device (this
		// machine's /dev/vda): mke2fs's defaults then, with the journal
		// and fast commits set as the kernel shows them.
		f.Features = "has_journal"
		if facts.Journal == "no" {
			f.Features = "^has_journal"
		}
		if facts.FastCommit == "yes" {
			f.Features += ",fast_commit"
		} else {
			f.Features += ",^fast_commit"
		}
		var st unix.Statfs_t
		if unix.Statfs(dir, &st) == nil {
			mkfs = append(mkfs, "-b", fmt.Sprint(st.Bsize))
		}
		f.Guessed = fmt.Sprintf("%s's features could not be read (%v): mke2fs's defaults with %s", facts.Source, err, f.Features)
		mkfs = append(mkfs, "-O", f.Features)
	}
	if f.top, err = os.MkdirTemp(dir, "tmpprobe-freshfs-"); err != nil {
		return nil, err
	}
	f.Image, f.Dir = filepath.Join(f.top, "fs.img"), filepath.Join(f.top, "mnt")
	fail := func(err error) (*FS, error) {
		f.Remove()
		return nil, err
	}
	img, err := os.OpenFile(f.Image, os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o600)
	if err != nil {
		return fail(err)
	}
	err = img.Truncate(size)
	img.Close()
	if err != nil {
		return fail(err)
	}
	if _, err := run("mkfs.ext4", append(mkfs, f.Image)...); err != nil {
		return fail(err)
	}
	if err := os.Mkdir(f.Dir, 0o755); err != nil {
		return fail(err)
	}
	out, err := run("losetup", "--find", "--show", f.Image)
	if err != nil {
		return fail(err)
	}
	f.Device = strings.TrimSpace(out)
	if _, err := run("mount", "-t", "ext4", "-o", f.Options, f.Device, f.Dir); err != nil {
		return fail(err)
	}
	return f, nil
}

// Remove unmounts the file system, detaches its loop device and removes
// its image.
func (f *FS) Remove() error {
	var errs []error
	if f.Device != "" {
		if mounted(f.Dir) {
			if _, err := run("umount", f.Dir); err != nil {
				errs = append(errs, err)
			}
		}
		if _, err := run("losetup", "-d", f.Device); err != nil {
			errs = append(errs, err)
		}
		f.Device = ""
	}
	if f.top != "" {
		if err := os.RemoveAll(f.top); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Describe names it in one line, for the footer.
func (f *FS) Describe() string {
	s := fmt.Sprintf("--fresh-fs: %s ran in a fresh ext4 on %s (image in %s; mkfs -O %s; mount -o %s), removed after the run",
		f.Of, f.Device, filepath.Dir(f.Image), f.Features, f.Options)
	if f.Guessed != "" {
		s += "; " + f.Guessed
	}
	return s
}

// readFeatures reads an ext4's features, block size and inode size with
// dumpe2fs -h.
func readFeatures(dev string) (features, blockSize, inodeSize string, err error) {
	out, err := run("dumpe2fs", "-h", dev)
	if err != nil {
		return "", "", "", err
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch k {
		case "Filesystem features":
			var fs []string
			for _, feat := range strings.Fields(v) {
				if !slices.Contains(runtimeFlags, feat) {
					fs = append(fs, feat)
				}
			}
			features = strings.Join(fs, ",")
		case "Block size":
			blockSize = v
		case "Inode size":
			inodeSize = v
		}
	}
	if features == "" || blockSize == "" || inodeSize == "" {
		return "", "", "", fmt.Errorf("dumpe2fs -h %s: no features, block or inode size", dev)
	}
	return features, blockSize, inodeSize, nil
}

func mounted(dir string) bool {
	ms, _ := preflight.Mounts()
	for _, m := range ms {
		if m.Point == dir {
			return true
		}
	}
	return false
}

func run(name string, args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.ReplaceAll(strings.TrimSpace(stderr.String()), "\n", "; ")
		return "", fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, msg)
	}
	return stdout.String(), nil
}
