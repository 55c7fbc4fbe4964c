//go:build linux

package safefs

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/user"
	"runtime"
	"strconv"
	"strings"

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

// AsInvoker runs fn with the file-system rights of the user who ran sudo
// (Invoker), so that every path fn looks up, opens, creates, renames or
// removes is one they could reach themselves: the results of a run they
// asked for are written as they would write them, theirs, and a symlink
// of theirs to a file of root's fails with their EACCES instead of root
// replacing that file. Without sudo it is fn().
//
// The rights are a thread's: its fsuid, fsgid and supplementary groups,
// set on a thread locked to fn's goroutine and set back after it. Linux
// keeps credentials per thread (only libc's wrappers broadcast a change),
// a fsuid other than 0 drops CAP_DAC_OVERRIDE and the other file
// capabilities until it is 0 again (capabilities(7)), and Go starts no
// new thread from a locked one (newm hands that to its template thread).
// So fn must do its file work on its own goroutine: one it starts runs as
// root.
func AsInvoker(fn func() error) error {
	uid, gid, ok := Invoker()
	if !ok {
		return fn()
	}
	groups := invokerGroups(uid, gid)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// A thread whose credentials could not be set back is never
		// unlocked: its goroutine ends locked, and the runtime ends the
		// thread with it rather than run anything else as the invoker.
		rootGroups, err := unix.Getgroups()
		if err != nil {
			done <- fmt.Errorf("getgroups: %w", err)
			runtime.UnlockOSThread()
			return
		}
		if err := setFsCred(uid, gid, groups); err != nil {
			if setFsCred(0, 0, rootGroups) == nil {
				runtime.UnlockOSThread()
			}
			done <- fmt.Errorf("taking the rights of uid %d (SUDO_UID): %w", uid, err)
			return
		}
		defer func() {
			if setFsCred(0, 0, rootGroups) == nil {
				runtime.UnlockOSThread()
			}
		}()
		done <- fn()
	}()
	return <-done
}

// setFsCred sets the calling thread's fsuid, fsgid and groups, uid last
// on the way to a user and first on the way back: changing fsgid and the
// groups needs CAP_SETGID, which a fsuid of a user's keeps, and reaching
// fsuid 0 again gives back the file capabilities.
func setFsCred(uid, gid int, groups []int) error {
	if uid == 0 {
		unix.Setfsuid(0)
	}
	if err := unix.Setgroups(groups); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	unix.Setfsgid(gid)
	if uid != 0 {
		unix.Setfsuid(uid)
	}
	// setfsuid(2) and setfsgid(2) report no error: an id of -1 (never a
	// valid one) changes nothing and returns the one in force.
	gotUID, _ := unix.SetfsuidRetUid(-1)
	gotGID, _ := unix.SetfsgidRetGid(-1)
	if gotUID != uid || gotGID != gid {
		return fmt.Errorf("fsuid %d, fsgid %d after setting %d, %d", gotUID, gotGID, uid, gid)
	}
	return nil
}

// invokerGroups is the invoker's group list as login gives it (their
// primary group and every group that names them); their primary group
// alone when the user database does not know them.
func invokerGroups(uid, gid int) []int {
	groups := []int{gid}
	u, err := user.LookupId(strconv.Itoa(uid))
	if err != nil {
		return groups
	}
	ids, err := u.GroupIds()
	if err != nil {
		return groups
	}
	for _, id := range ids {
		if g, err := strconv.Atoi(id); err == nil && g != gid {
			groups = append(groups, g)
		}
	}
	return groups
}

// fsUID is the calling thread's fsuid: whose a file it creates is.
func fsUID() (uint32, error) {
	f, err := os.Open("/proc/thread-self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// Uid:	real	effective	saved	fs
		if rest, ok := strings.CutPrefix(sc.Text(), "Uid:"); ok {
			if ids := strings.Fields(rest); len(ids) == 4 {
				fs, err := strconv.ParseUint(ids[3], 10, 32)
				return uint32(fs), err
			}
		}
	}
	return 0, errors.New("/proc/thread-self/status: no Uid line")
}

// Mkdir makes the directory name in dir with mode, unless something is
// there already (made meanwhile by another run saving beside this one,
// say): for the parents of an output, made with AsInvoker's rights.
func Mkdir(dir *os.File, name string, mode uint32) error {
	err := unix.Mkdirat(int(dir.Fd()), name, mode)
	if err != nil && !errors.Is(err, unix.EEXIST) {
		return &os.PathError{Op: "mkdir", Path: join(dir.Name(), name), Err: err}
	}
	return nil
}
