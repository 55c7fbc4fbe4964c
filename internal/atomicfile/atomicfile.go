// Package atomicfile writes outputs whole or not at all, as root, where
// other users can reach: a file (Write) or a directory (Stage) is written
// beside its name, fsync'ed and renamed into place, so a crash, a full
// disk, an interrupt or a power cut leaves the old content or the new.
// Every temp it makes is tracked until it is renamed or removed, so a
// second interrupt removes them all (RemoveTemps).
package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/safefs"
)

// An output path is written one of three ways:
//   - a regular file, or a name that does not exist yet, is replaced whole:
//     a temp file beside it is written, fsync'ed and renamed over it, and
//     the directory fsync'ed, so after a crash or a power cut the name holds
//     the old content or the new, never a part;
//   - a character device or a FIFO (/dev/null, a named pipe, a terminal) is
//     written as a stream, and stays what it is; it is opened non-blocking,
//     so a FIFO nobody reads fails at once rather than hanging the run,
//     and another user's FIFO is refused, as their symlinks are: its owner
//     could hold tmpprobe's write there forever;
//   - "-", /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are
//     tmpprobe's own fd N, written in place (after what the report wrote).
//
// A symlink is followed (if a trusted user owns it: the kernel's
// protected_symlinks does not cover a readlink) and the same rules apply to
// its target; it is never replaced itself.
type outTarget struct {
	own    bool   // write to our fd
	fd     int    // which
	stream string // write to this device or FIFO
	file   string // replace this regular file (or create it)
}

// ownFd matches the names of tmpprobe's own fds. They are matched as names,
// not followed: /proc/self/fd/1 reads back as "pipe:[…]" for a pipe.
var ownFd = regexp.MustCompile(`^/(?:dev/fd|proc/(?:self|thread-self|[0-9]+)/fd)/([0-9]+)$`)

func resolveOutput(path string) (outTarget, error) {
	switch path {
	case "-", "/dev/stdout":
		return outTarget{own: true, fd: 1}, nil
	case "/dev/stderr":
		return outTarget{own: true, fd: 2}, nil
	}
	p := path
	for hops := 0; ; hops++ {
		if m := ownFd.FindStringSubmatch(p); m != nil {
			if pid, isPid := procPid(p); !isPid || pid == os.Getpid() {
				n, _ := strconv.Atoi(m[1])
				return outTarget{own: true, fd: n}, nil
			}
		}
		var st unix.Stat_t
		err := unix.Lstat(p, &st)
		if errors.Is(err, unix.ENOENT) {
			return outTarget{file: p}, nil
		}
		if err != nil {
			return outTarget{}, &os.PathError{Op: "lstat", Path: p, Err: err}
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFREG:
			return outTarget{file: p}, nil
		case unix.S_IFIFO:
			if !safefs.Trusted(st.Uid) {
				return outTarget{}, fmt.Errorf("%s is a FIFO owned by uid %d, who could hold tmpprobe's write to it forever: not writing to it", p, st.Uid)
			}
			return outTarget{stream: p}, nil
		case unix.S_IFCHR:
			return outTarget{stream: p}, nil
		case unix.S_IFDIR:
			return outTarget{}, fmt.Errorf("%s is a directory", p)
		case unix.S_IFLNK:
			if !safefs.Trusted(st.Uid) {
				return outTarget{}, fmt.Errorf("%s is a symlink owned by uid %d: not following it", p, st.Uid)
			}
			if hops >= 40 {
				return outTarget{}, &os.PathError{Op: "resolve", Path: path, Err: unix.ELOOP}
			}
			target, err := os.Readlink(p)
			if err != nil {
				return outTarget{}, err
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			p = target
		default:
			return outTarget{}, fmt.Errorf("%s is neither a regular file, a character device nor a FIFO", p)
		}
	}
}

// procPid is the pid of a /proc/<pid>/fd/N name; ok is false for the
// self and dev/fd forms, which are always ours.
func procPid(p string) (int, bool) {
	var pid int
	if _, err := fmt.Sscanf(p, "/proc/%d/fd/", &pid); err != nil {
		return 0, false
	}
	return pid, true
}

// Check refuses, before a run, an output path its results could
// not be written to: a missing or unsafe directory (see safefs.CheckDir),
// a directory that does not take a new file, a file or directory that
// cannot be replaced (safefs.CheckReplaceable), a device that cannot be
// opened to write (/dev/tty without a terminal), a FIFO that is not
// writable, an fd that is not open to write or is not one tmpprobe was
// given.
func Check(path string) error {
	return safefs.AsInvoker(func() error { return check(path) })
}

func check(path string) error {
	t, err := resolveOutput(path)
	switch {
	case err != nil:
		return err
	case t.own:
		return checkOwnFd(t.fd)
	case t.stream != "":
		// Opening a FIFO would wait for its reader, or, non-blocking, give
		// a reader already there an end of file; access() does neither.
		if err := unix.Access(t.stream, unix.W_OK); err != nil {
			return &os.PathError{Op: "write", Path: t.stream, Err: err}
		}
		var st unix.Stat_t
		if unix.Stat(t.stream, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFCHR {
			fd, err := unix.Open(t.stream, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
			if err != nil {
				return &os.PathError{Op: "open", Path: t.stream, Err: err}
			}
			unix.Close(fd)
		}
		return nil
	}
	pf, err := openReplaceable(t.file)
	if err != nil {
		return err
	}
	defer pf.Close()
	name, f, err := safefs.CreateOwned(pf, tempPrefix(t.file))
	if err != nil {
		return err
	}
	f.Close()
	return unix.Unlinkat(int(pf.Fd()), name, 0)
}

// checkOwnFd refuses an fd tmpprobe cannot write its output to: one not
// open, open read-only (/dev/stdin), or one tmpprobe opened itself (an fd
// it was given came through exec, so it has no close-on-exec; every fd
// the Go runtime and tmpprobe open has it).
func checkOwnFd(fd int) error {
	fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return fmt.Errorf("fd %d is not open", fd)
	}
	if fdfl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && fdfl&unix.FD_CLOEXEC != 0 {
		return fmt.Errorf("fd %d is one tmpprobe opened itself, not one it was given", fd)
	}
	if fl&unix.O_ACCMODE == unix.O_RDONLY {
		return fmt.Errorf("fd %d is open read-only", fd)
	}
	return nil
}

// ReplacedFile is the real path of the regular file an output path replaces,
// every symlink followed, or "" for an output written as a stream or to
// tmpprobe's own fd: what two outputs must not share, nor --out hold.
func ReplacedFile(path string) (real string, err error) {
	err = safefs.AsInvoker(func() error {
		t, err := resolveOutput(path)
		if err != nil || t.file == "" {
			return err
		}
		real, err = safefs.Resolve(t.file, false)
		return err
	})
	return real, err
}

func tempPrefix(file string) string { return "." + filepath.Base(file) + ".tmp-" }

// Write writes path by the rules above, with the rights of the user who
// ran sudo (safefs.AsInvoker): what they could not write, it does not.
func Write(path string, write func(io.Writer) error) error {
	return safefs.AsInvoker(func() error { return writeOutput(path, write) })
}

func writeOutput(path string, write func(io.Writer) error) error {
	t, err := resolveOutput(path)
	if err != nil {
		return err
	}
	switch {
	case t.own:
		fd, err := unix.Dup(t.fd)
		if err != nil {
			return fmt.Errorf("fd %d: %w", t.fd, err)
		}
		return writeStream(os.NewFile(uintptr(fd), path), write)
	case t.stream != "":
		// Non-blocking: a FIFO nobody reads fails (ENXIO) instead of
		// waiting forever in open(2). The writes then block as a shell
		// redirection's do, for a reader that is there.
		fd, err := unix.Open(t.stream, unix.O_WRONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENXIO) {
			return fmt.Errorf("%s: no process has it open for reading", t.stream)
		}
		if err != nil {
			return &os.PathError{Op: "open", Path: t.stream, Err: err}
		}
		if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err == nil {
			unix.FcntlInt(uintptr(fd), unix.F_SETFL, fl&^unix.O_NONBLOCK)
		}
		f := os.NewFile(uintptr(fd), t.stream)
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || (st.Mode&unix.S_IFMT != unix.S_IFCHR && st.Mode&unix.S_IFMT != unix.S_IFIFO) {
			f.Close()
			return fmt.Errorf("%s changed while being opened", t.stream)
		}
		return writeStream(f, write)
	}
	// Checked again here: report --chart has no run to check it before.
	pf, err := openReplaceable(t.file)
	if err != nil {
		return err
	}
	defer pf.Close()
	tmp, f, release, err := newTemp(pf, tempPrefix(t.file), safefs.CreateOwned)
	if err != nil {
		return err
	}
	defer release()
	defer f.Close()
	if err := writeSynced(f, write); err != nil {
		unix.Unlinkat(int(pf.Fd()), tmp, 0)
		return err
	}
	base := filepath.Base(t.file)
	if err := withTemps(func() error {
		return unix.Renameat(int(pf.Fd()), tmp, int(pf.Fd()), base)
	}); err != nil {
		unix.Unlinkat(int(pf.Fd()), tmp, 0)
		return &os.PathError{Op: "rename", Path: t.file, Err: err}
	}
	// The temp is renamed by name, in a directory its user may write in:
	// what landed must be what was written.
	if !safefs.IsAt(pf, base, f) {
		return fmt.Errorf("%s was replaced while it was being written; not saved", filepath.Join(pf.Name(), tmp))
	}
	return syncDir(pf)
}

func writeStream(f *os.File, write func(io.Writer) error) error {
	bw := bufio.NewWriter(f)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeSynced writes a new file, makes it 0644 and fsyncs it before the
// caller renames it into place: without the fsync, a power cut after the
// rename can leave the new name on an empty or partial file. The caller
// closes f, which it may still need to tell the file it wrote.
func writeSynced(f *os.File, write func(io.Writer) error) error {
	bw := bufio.NewWriter(f)
	err := write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	return err
}

// syncDir makes a rename in dir durable: the new name is an entry of the
// directory, which fsync of the file does not write.
func syncDir(dir *os.File) error {
	err := dir.Sync()
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOTSUP) {
		return nil // a filesystem that has nothing to sync for a directory
	}
	return err
}

// openReplaceable opens file's directory, safely, once file is one an
// output may replace (a regular file or nothing: see
// safefs.CheckReplaceable).
func openReplaceable(file string) (*os.File, error) {
	pf, err := safefs.OpenSafeDir(filepath.Dir(file))
	if err != nil {
		return nil, err
	}
	if err := safefs.CheckReplaceable(pf, filepath.Base(file)); err != nil {
		pf.Close()
		return nil, err
	}
	return pf, nil
}
