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

	"github.com/tmpprobe/tmpprobe/internal/safefs"
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
	// parent is the work dir and top the directory made in it (named
	// topPrefix<pid>-…, flock'ed while tmpprobe holds it open: see
	// Sweep), both open, so that Remove works by fd, wherever the work
	// dir was renamed to during the run.
	parent, top *os.File
	topName     string
}

// topPrefix names the directory a fresh file system is made in.
const topPrefix = "tmpprobe-freshfs-"

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
	if f.parent, err = safefs.OpenDir(dir, true); err != nil {
		return nil, err
	}
	safefs.SweepStale(f.parent, topPrefix) // what a run killed while it made one left
	if f.topName, f.top, err = safefs.MkdirOwned(f.parent, topPrefix); err != nil {
		f.parent.Close()
		return nil, err
	}
	// Paths through this process's fd of top: a rename of the work dir
	// while the file system is made cannot send it elsewhere.
	at := fmt.Sprintf("/proc/%d/fd/%d/", os.Getpid(), f.top.Fd())
	f.Image, f.Dir = filepath.Join(dir, f.topName, "fs.img"), filepath.Join(dir, f.topName, "mnt")
	fail := func(err error) (*FS, error) {
		f.Remove()
		return nil, err
	}
	img, err := os.OpenFile(at+"fs.img", os.O_CREATE|os.O_RDWR|os.O_EXCL, 0o600)
	if err != nil {
		return fail(err)
	}
	err = img.Truncate(size)
	img.Close()
	if err != nil {
		return fail(err)
	}
	if _, err := run("mkfs.ext4", append(mkfs, at+"fs.img")...); err != nil {
		return fail(err)
	}
	if err := unix.Mkdirat(int(f.top.Fd()), "mnt", 0o755); err != nil {
		return fail(&os.PathError{Op: "mkdir", Path: f.Dir, Err: err})
	}
	out, err := run("losetup", "--find", "--show", at+"fs.img")
	if err != nil {
		return fail(err)
	}
	f.Device = strings.TrimSpace(out)
	// The loop device holds the image open: unlinked now, its blocks go
	// with the device, and a kill leaves no 1 GiB file behind.
	if err := unix.Unlinkat(int(f.top.Fd()), "fs.img", 0); err != nil {
		return fail(err)
	}
	if _, err := run("mount", "-t", "ext4", "-o", f.Options, f.Device, at+"mnt"); err != nil {
		return fail(err)
	}
	// Autoclear, set once the mount holds the device: unmounting then
	// detaches it, as mount -o loop's devices are.
	if err := setAutoclear(f.Device); err != nil {
		return fail(err)
	}
	return f, nil
}

// setAutoclear has the loop device detach itself when its last user
// closes it.
func setAutoclear(dev string) error {
	fd, err := unix.Open(dev, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dev, Err: err}
	}
	defer unix.Close(fd)
	st, err := unix.IoctlLoopGetStatus64(fd)
	if err != nil {
		return &os.PathError{Op: "LOOP_GET_STATUS64", Path: dev, Err: err}
	}
	st.Flags |= unix.LO_FLAGS_AUTOCLEAR
	if err := unix.IoctlLoopSetStatus64(fd, st); err != nil {
		return &os.PathError{Op: "LOOP_SET_STATUS64", Path: dev, Err: err}
	}
	return nil
}

// Remove unmounts the file system, detaches its loop device and removes
// its directory, by the device and the fds it holds: after a rename of
// the work dir during the run, the paths it was made at name nothing.
func (f *FS) Remove() error {
	var errs []error
	if f.Device != "" {
		errs = append(errs, unmountDevice(f.Device, 0)...)
		f.Device = ""
	}
	if f.top != nil {
		if err := safefs.RemoveContents(f.top); err != nil {
			errs = append(errs, err)
		}
		f.top.Close()
		f.top = nil
		if err := unix.Unlinkat(int(f.parent.Fd()), f.topName, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
			errs = append(errs, &os.PathError{Op: "rmdir", Path: f.topName, Err: err})
		}
	}
	if f.parent != nil {
		f.parent.Close()
		f.parent = nil
	}
	return errors.Join(errs...)
}

// unmountDevice unmounts every mount of the loop device dev, wherever its
// mount point is now, and detaches the device. flags are umount2's: a
// sweep detaches lazily (MNT_DETACH), as the workers of a killed run may
// still be closing their files there.
func unmountDevice(dev string, flags int) []error {
	var errs []error
	ms, _ := preflight.Mounts()
	for _, m := range ms {
		if m.Source == dev {
			if err := unix.Unmount(m.Point, flags); err != nil {
				errs = append(errs, &os.PathError{Op: "umount", Path: m.Point, Err: err})
			}
		}
	}
	if err := detachLoop(dev); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// detachLoop detaches a loop device; one already detached (autoclear) is
// fine.
func detachLoop(dev string) error {
	fd, err := unix.Open(dev, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dev, Err: err}
	}
	defer unix.Close(fd)
	if err := unix.IoctlSetInt(fd, unix.LOOP_CLR_FD, 0); err != nil && !errors.Is(err, unix.ENXIO) {
		return &os.PathError{Op: "LOOP_CLR_FD", Path: dev, Err: err}
	}
	return nil
}

// Sweep removes what the fresh file systems of a tmpprobe that was
// killed (with SIGKILL, which no process can catch) left: their mounts,
// loop devices and directories, wherever their work dirs are now, and
// says what it removed. A fresh file system is in use while its
// directory is flock'ed: by the tmpprobe that made it, until it exits.
func Sweep() []string {
	var said []string
	done := map[string]bool{}
	ms, _ := preflight.Mounts()
	for _, m := range ms {
		top := filepath.Dir(m.Point)
		if filepath.Base(m.Point) != "mnt" || !strings.HasPrefix(filepath.Base(top), topPrefix) ||
			!strings.HasPrefix(m.Source, "/dev/loop") || !abandoned(top) {
			continue
		}
		what := "mount " + m.Point + " of " + m.Source
		if errs := unmountDevice(m.Source, unix.MNT_DETACH); len(errs) > 0 {
			what += " (" + errors.Join(errs...).Error() + ")"
		}
		os.Remove(m.Point)
		os.Remove(top)
		done[m.Source] = true
		said = append(said, "removed --fresh-fs "+what+", which a killed tmpprobe left")
	}
	// A device left attached, unmounted (killed between losetup and
	// mount, or without autoclear).
	loops, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, bf := range loops {
		b, err := os.ReadFile(bf)
		dev := "/dev/" + filepath.Base(filepath.Dir(filepath.Dir(bf)))
		img := strings.TrimSuffix(strings.TrimSpace(string(b)), " (deleted)")
		top := filepath.Dir(img)
		if err != nil || done[dev] || filepath.Base(img) != "fs.img" || !strings.HasPrefix(filepath.Base(top), topPrefix) || !abandoned(top) {
			continue
		}
		if err := detachLoop(dev); err == nil {
			os.Remove(img)
			os.Remove(filepath.Join(top, "mnt"))
			os.Remove(top)
			said = append(said, "removed --fresh-fs loop device "+dev+" of "+img+", which a killed tmpprobe left")
		}
	}
	return said
}

// abandoned reports whether a fresh file system's directory is no
// longer held: gone, or not flock'ed by the tmpprobe that made it.
func abandoned(top string) bool {
	fd, err := unix.Open(top, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return true
	}
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	return unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil
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
