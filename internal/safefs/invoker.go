//go:build linux

package safefs

import (
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

// GiveToInvoker hands name, an output tmpprobe just made in dir, to the
// user who ran sudo, when dir is theirs: the results of a run they asked
// for, in their own directory, are theirs to move and delete, as they
// would be without sudo. In a directory they do not own (root's, or a
// third user's) the file stays root's: giving it away there would let
// them plant files where they cannot write. The symlink is not followed.
func GiveToInvoker(dir *os.File, name string) error { return GiveToInvokerIn(dir, dir, name) }

// GiveToInvokerIn gives name in dir to the invoker when landing, where dir
// itself will land (a run directory's parent), is theirs.
func GiveToInvokerIn(landing, dir *os.File, name string) error {
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
	if err := unix.Fchownat(int(dir.Fd()), name, uid, gid, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &os.PathError{Op: "chown", Path: join(dir.Name(), name), Err: err}
	}
	return nil
}
