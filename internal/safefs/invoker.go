//go:build linux

package safefs

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Invoker is the user who ran tmpprobe through sudo (SUDO_UID, SUDO_GID),
// when it runs as root on their behalf; ok is false otherwise.
func Invoker() (uid, gid int, ok bool) {
	if os.Geteuid() != 0 {
		return 0, 0, false
	}
	u, err1 := strconv.ParseUint(os.Getenv("SUDO_UID"), 10, 32)
	g, err2 := strconv.ParseUint(os.Getenv("SUDO_GID"), 10, 32)
	if err1 != nil || err2 != nil || u == 0 {
		return 0, 0, false
	}
	return int(u), int(g), true
}

// GiveToInvoker hands f, an output tmpprobe made and holds open, to the
// user who ran sudo, when landing (the directory it will be found in) is
// theirs: the results of a run they asked for, in their own directory,
// are theirs to move and delete, as they would be without sudo. In a
// directory they do not own (root's, or a third user's) it stays root's:
// giving it away there would let them plant files where they cannot
// write.
//
// It changes the open file, never a name: in a directory the user owns
// they can swap the name of what tmpprobe wrote, between the write and a
// chown by name, for a hard link to a file of root's, and root would hand
// them that file.
func GiveToInvoker(landing, f *os.File) error {
	uid, gid, ok := Invoker()
	if !ok {
		return nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(landing.Fd()), &st); err != nil {
		return &os.PathError{Op: "fstat", Path: landing.Name(), Err: err}
	}
	if int(st.Uid) != uid {
		return nil
	}
	if err := unix.Fchown(int(f.Fd()), uid, gid); err != nil {
		return &os.PathError{Op: "chown", Path: f.Name(), Err: err}
	}
	return nil
}

// MkdirGiven makes the directory name in dir (if it is missing) and, when
// dir is the invoker's, gives it to them. It is made under a temp name,
// given by its fd (see GiveToInvoker) and then renamed to name: a swap of
// either name in between moves what is there, never gives it away.
func MkdirGiven(dir *os.File, name string) error {
	var st unix.Stat_t
	if unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		return nil
	}
	tmp, made, err := MkdirOwned(dir, "."+name+".tmp-")
	if err != nil {
		return err
	}
	defer made.Close()
	err = made.Chmod(0o755)
	if err == nil {
		err = GiveToInvoker(dir, made)
	}
	if err == nil {
		err = unix.Renameat2(int(dir.Fd()), tmp, int(dir.Fd()), name, unix.RENAME_NOREPLACE)
		if err == nil {
			return nil
		}
		if errors.Is(err, unix.EEXIST) {
			err = nil // made meanwhile, by another run saving beside this one
		} else {
			err = &os.PathError{Op: "rename", Path: join(dir.Name(), name), Err: err}
		}
	}
	unix.Unlinkat(int(dir.Fd()), tmp, unix.AT_REMOVEDIR)
	return err
}
