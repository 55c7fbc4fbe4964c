//go:build linux

// Package safefs is what a process running as root needs to write where
// other users can reach: which directories are safe to write in, work
// relative to a directory fd so a rename elsewhere cannot redirect it, and
// temp names that carry their owner's pid, so a later run can sweep what a
// killed one left behind.
package safefs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Trusted reports whether a file owned by uid cannot be moved by anyone
// but root and us: root's, ours, or, under sudo, the invoking user's (who
// can run anything as root already, so trusting them gives nothing away).
func Trusted(uid uint32) bool {
	euid := uint32(os.Geteuid())
	if uid == 0 || uid == euid {
		return true
	}
	if euid == 0 {
		if s, err := strconv.ParseUint(os.Getenv("SUDO_UID"), 10, 32); err == nil && uint32(s) == uid {
			return true
		}
	}
	return false
}

// maxHops is the kernel's limit on symlinks followed in one lookup
// (MAXSYMLINKS).
const maxHops = 40

// CheckDir refuses a directory another user could rename or replace while
// tmpprobe writes in it: the directory and every directory above it must
// be owned by a trusted user and not writable by others unless sticky
// (where only an entry's owner may move it), and every symlink on the way
// must be a trusted user's. It returns the path with symlinks resolved.
func CheckDir(path string) (string, error) {
	real, err := Resolve(path, true)
	if err != nil {
		return "", err
	}
	var st unix.Stat_t
	if err := unix.Stat(real, &st); err != nil {
		return "", &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return "", fmt.Errorf("%s is not a directory", path)
	}
	return real, nil
}

// Resolve follows path one component at a time from the root, as the
// kernel does, checking each directory it passes (and, with checkLast, the
// last component when that is a directory) and each symlink it follows.
// A missing last component is fine: the result names where it would be.
func Resolve(path string, checkLast bool) (string, error) {
	if !strings.HasPrefix(path, "/") {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		path = wd + "/" + path
	}
	if err := checkDirStat("/"); err != nil {
		return "", err
	}
	cur := "/"
	rest := splitPath(path)
	for hops := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case "", ".":
			continue
		case "..":
			// cur has no symlink left in it, so going up is lexical.
			cur = parentOf(cur)
			continue
		}
		next := join(cur, name)
		var st unix.Stat_t
		if err := unix.Lstat(next, &st); err != nil {
			if errors.Is(err, unix.ENOENT) && len(rest) == 0 {
				return next, nil
			}
			return "", &os.PathError{Op: "lstat", Path: next, Err: err}
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			if !Trusted(st.Uid) {
				return "", fmt.Errorf("%s is a symlink owned by uid %d, who could point it anywhere", next, st.Uid)
			}
			if hops++; hops > maxHops {
				return "", &os.PathError{Op: "resolve", Path: path, Err: unix.ELOOP}
			}
			target, err := os.Readlink(next)
			if err != nil {
				return "", err
			}
			if strings.HasPrefix(target, "/") {
				cur = "/"
			}
			rest = append(splitPath(target), rest...)
		case unix.S_IFDIR:
			if len(rest) > 0 || checkLast {
				if err := checkDirMode(next, &st); err != nil {
					return "", err
				}
			}
			cur = next
		default:
			if len(rest) > 0 {
				return "", &os.PathError{Op: "resolve", Path: next, Err: unix.ENOTDIR}
			}
			cur = next
		}
	}
	return cur, nil
}

func checkDirStat(dir string) error {
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return &os.PathError{Op: "stat", Path: dir, Err: err}
	}
	return checkDirMode(dir, &st)
}

func checkDirMode(dir string, st *unix.Stat_t) error {
	if !Trusted(st.Uid) {
		return fmt.Errorf("%s is owned by uid %d, who could move what tmpprobe writes there", dir, st.Uid)
	}
	if st.Mode&0o022 != 0 && st.Mode&unix.S_ISVTX == 0 {
		return fmt.Errorf("%s is writable by other users (mode %04o) and not sticky, so they could move what tmpprobe writes there", dir, st.Mode&0o7777)
	}
	return nil
}

func splitPath(p string) []string { return strings.Split(p, "/") }

func join(dir, name string) string {
	if dir == "/" {
		return "/" + name
	}
	return dir + "/" + name
}

func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// OpenSafeDir opens a directory that passes CheckDir, for fd-relative work.
func OpenSafeDir(path string) (*os.File, error) {
	real, err := CheckDir(path)
	if err != nil {
		return nil, err
	}
	return OpenDir(real, false)
}

// OpenDir opens a directory for fd-relative work. With nofollow the last
// component must not be a symlink.
func OpenDir(path string, nofollow bool) (*os.File, error) {
	flags := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	if nofollow {
		flags |= unix.O_NOFOLLOW
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// OwnedName is prefix + pid + "-" + random: whose it is, for SweepStale.
func OwnedName(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}

// MkdirOwned makes a new 0700 directory named OwnedName(prefix) in parent
// and returns it open and flock'ed for as long as it stays open. The lock,
// not the pid alone, tells SweepStale it is in use: a pid can be reused,
// or belong to another pid namespace sharing the directory.
func MkdirOwned(parent *os.File, prefix string) (string, *os.File, error) {
	for range 100 {
		name := OwnedName(prefix)
		err := unix.Mkdirat(int(parent.Fd()), name, 0o700)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		if err != nil {
			return "", nil, &os.PathError{Op: "mkdir", Path: join(parent.Name(), name), Err: err}
		}
		afterMkdir(parent, name)
		f, err := openLocked(parent, name, unix.O_RDONLY|unix.O_DIRECTORY)
		if err == nil {
			err = checkMade(f)
			if err != nil {
				f.Close()
			}
		}
		if err != nil {
			// Only ours: what was swapped in stays for its owner.
			var st unix.Stat_t
			if uid, e := fsUID(); e == nil && unix.Fstatat(int(parent.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Uid == uid {
				unix.Unlinkat(int(parent.Fd()), name, unix.AT_REMOVEDIR)
			}
			return "", nil, err
		}
		return name, f, nil
	}
	return "", nil, fmt.Errorf("%s: no free name for %s*", parent.Name(), prefix)
}

// afterMkdir is a test's hook into the window between MkdirOwned's mkdir
// and its open, where a swap of the new name would land.
var afterMkdir = func(parent *os.File, name string) {}

// checkMade refuses a directory, opened by the name MkdirOwned just made,
// that is not the one it made: whoever can write the parent can rename
// another directory to that name between the mkdir and the open, and a
// directory of root's taken for tmpprobe's would then be written in,
// made 0755 or handed on. The one made is this thread's fsuid's, open to
// its owner alone (mode 0700 less the umask) and empty. (Its link count
// says nothing on btrfs, where every directory has one.)
func checkMade(dir *os.File) error {
	var st unix.Stat_t
	if err := unix.Fstat(int(dir.Fd()), &st); err != nil {
		return &os.PathError{Op: "fstat", Path: dir.Name(), Err: err}
	}
	uid, err := fsUID()
	if err != nil {
		return err
	}
	names, err := readNames(int(dir.Fd()))
	if err != nil {
		return &os.PathError{Op: "readdir", Path: dir.Name(), Err: err}
	}
	if st.Uid != uid || st.Mode&0o7077 != 0 || len(names) > 0 {
		return fmt.Errorf("%s was replaced between its mkdir and its open (now uid %d, mode %04o, %d entries): not using it", dir.Name(), st.Uid, st.Mode&0o7777, len(names))
	}
	return nil
}

// CreateOwned makes a new 0600 file named OwnedName(prefix) in parent,
// open for writing and flock'ed, as MkdirOwned does for a directory.
func CreateOwned(parent *os.File, prefix string) (string, *os.File, error) {
	for range 100 {
		name := OwnedName(prefix)
		f, err := openLocked(parent, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL)
		if errors.Is(err, unix.EEXIST) {
			continue
		}
		return name, f, err
	}
	return "", nil, fmt.Errorf("%s: no free name for %s*", parent.Name(), prefix)
}

func openLocked(parent *os.File, name string, flags int) (*os.File, error) {
	fd, err := unix.Openat(int(parent.Fd()), name, flags|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: join(parent.Name(), name), Err: err}
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "lock", Path: join(parent.Name(), name), Err: err}
	}
	return os.NewFile(uintptr(fd), join(parent.Name(), name)), nil
}

// SweepStale removes what a tmpprobe that is gone left in parent: entries
// named prefix<pid>-… that are ours, whose pid does not run here, and that
// no process holds locked. Anything else is left alone.
func SweepStale(parent *os.File, prefix string) {
	names, err := readNames(int(parent.Fd()))
	if err != nil {
		return
	}
	for _, name := range names {
		pid, ok := ownerPid(name, prefix)
		if !ok || pid == os.Getpid() || unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(int(parent.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Uid != uint32(os.Geteuid()) {
			continue
		}
		kind := st.Mode & unix.S_IFMT
		if kind != unix.S_IFDIR && kind != unix.S_IFREG {
			continue
		}
		// O_NONBLOCK: never wait on whatever the name holds by now.
		fd, err := unix.Openat(int(parent.Fd()), name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != nil {
			continue
		}
		if unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB) == nil {
			RemoveAllAt(parent, name)
		}
		unix.Close(fd)
	}
}

// ownerPid parses the pid out of prefix<pid>-<random>.
func ownerPid(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	digits, random, ok := strings.Cut(rest, "-")
	if !ok || random == "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	return pid, err == nil && pid > 0
}

// RemoveAllAt removes name in parent and everything below it, relative to
// fds and without following a symlink, so a directory renamed or replaced
// meanwhile cannot turn the removal elsewhere.
func RemoveAllAt(parent *os.File, name string) error {
	return removeAllAt(int(parent.Fd()), name)
}

func removeAllAt(parent int, name string) error {
	err := unix.Unlinkat(parent, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return err
	}
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	err = removeContents(fd)
	unix.Close(fd)
	if err != nil {
		return err
	}
	return unix.Unlinkat(parent, name, unix.AT_REMOVEDIR)
}

// RemoveContents empties the directory open as dir.
func RemoveContents(dir *os.File) error { return removeContents(int(dir.Fd())) }

func removeContents(fd int) error {
	names, err := readNames(fd)
	if err != nil {
		return err
	}
	var first error
	for _, n := range names {
		if err := removeAllAt(fd, n); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// readNames lists a directory through a fresh open of it, so the listing
// does not move the offset of the fd the caller holds.
func readNames(dir int) ([]string, error) {
	fd, err := unix.Openat(dir, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), ".")
	defer f.Close()
	return f.Readdirnames(-1)
}

// SameFile reports whether path (followed) is the file open as f.
func SameFile(path string, f *os.File) bool {
	var a, b unix.Stat_t
	return unix.Stat(path, &a) == nil && unix.Fstat(int(f.Fd()), &b) == nil && a.Dev == b.Dev && a.Ino == b.Ino
}

// IsAt reports whether name in parent (not followed) is the file open as f.
func IsAt(parent *os.File, name string, f *os.File) bool {
	var a, b unix.Stat_t
	return unix.Fstatat(int(parent.Fd()), name, &a, unix.AT_SYMLINK_NOFOLLOW) == nil &&
		unix.Fstat(int(f.Fd()), &b) == nil && a.Dev == b.Dev && a.Ino == b.Ino
}

// Inode flags from linux/fs.h (FS_IOC_GETFLAGS), which x/sys/unix does not
// name: chattr +i and chattr +a.
const (
	fsImmutableFl = 0x10
	fsAppendFl    = 0x20
)

// CheckReplaceable refuses, in advance, a name that tmpprobe could create
// but not rename over or remove: an immutable file or directory, a name in
// an append-only or immutable directory (where a temp could be made and
// then not renamed nor removed), or a mount point (rename(2) of a mount
// point fails EBUSY, a bind-mounted file included). A missing name is
// fine if its directory takes new names; name "" checks the directory
// alone.
func CheckReplaceable(dir *os.File, name string) error {
	if err := checkFlags(int(dir.Fd()), ".", dir.Name()); err != nil || name == "" {
		return err
	}
	var stx unix.Statx_t
	err := unix.Statx(int(dir.Fd()), name, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_TYPE, &stx)
	if errors.Is(err, unix.ENOENT) {
		return nil
	}
	path := join(dir.Name(), name)
	if err != nil {
		return &os.PathError{Op: "statx", Path: path, Err: err}
	}
	if stx.Attributes_mask&unix.STATX_ATTR_MOUNT_ROOT != 0 && stx.Attributes&unix.STATX_ATTR_MOUNT_ROOT != 0 {
		return fmt.Errorf("%s is a mount point, which cannot be replaced (rename: device or resource busy)", path)
	}
	kind := uint32(stx.Mode) & unix.S_IFMT
	if kind != unix.S_IFREG && kind != unix.S_IFDIR {
		return nil // not replaced: written as a stream or refused elsewhere
	}
	return checkFlags(int(dir.Fd()), name, path)
}

// checkFlags refuses an immutable or append-only file or directory.
func checkFlags(dir int, name, path string) error {
	// O_PATH cannot ioctl; O_RDONLY|O_NONBLOCK opens a regular file or a
	// directory without side effects.
	fd, err := unix.Openat(dir, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOFOLLOW|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	flags, err := unix.IoctlGetUint32(fd, unix.FS_IOC_GETFLAGS)
	if err != nil {
		return nil // a filesystem without inode flags has neither
	}
	switch {
	case flags&fsImmutableFl != 0:
		return fmt.Errorf("%s is immutable (chattr +i): nothing in or of it can be replaced", path)
	case flags&fsAppendFl != 0:
		return fmt.Errorf("%s is append-only (chattr +a): nothing in or of it can be replaced or removed", path)
	}
	return nil
}
