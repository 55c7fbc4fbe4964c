//go:build linux

package safefs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make files another user owns")
	}
}

const nobody = 65534

// A directory another user could rename something in is refused: owned by
// another user, writable by others without the sticky bit, reached through
// another user's symlink, or below such a directory.
func TestCheckDir(t *testing.T) {
	needRoot(t)
	t.Setenv("SUDO_UID", "")
	base := t.TempDir()
	mk := func(name string, mode os.FileMode, uid int) string {
		p := filepath.Join(base, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		os.Chown(p, uid, uid)
		return p
	}
	ok := mk("ok", 0o755, 0)
	sticky := mk("sticky", 0o777|os.ModeSticky, 0)
	theirs := mk("theirs", 0o755, nobody)
	open := mk("open", 0o777, 0)
	groupOpen := mk("group", 0o775, 0)
	below := filepath.Join(theirs, "mine")
	os.Mkdir(below, 0o755)
	rootLink := filepath.Join(base, "rootlink")
	os.Symlink(ok, rootLink)
	theirLink := filepath.Join(sticky, "theirlink")
	os.Symlink(ok, theirLink)
	os.Lchown(theirLink, nobody, nobody)

	for _, c := range []struct {
		path, want string
	}{
		{ok, ""},
		{sticky, ""},
		{rootLink, ""},
		{theirs, "owned by uid 65534"},
		{below, "owned by uid 65534"},
		{open, "writable by other users (mode 0777)"},
		{groupOpen, "writable by other users (mode 0775)"},
		{theirLink, "symlink owned by uid 65534"},
		{filepath.Join(theirLink, "x"), "symlink owned by uid 65534"},
	} {
		_, err := CheckDir(c.path)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.path, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.path, err, c.want)
		}
	}
	// The invoking user of sudo is as trusted as root.
	t.Setenv("SUDO_UID", strconv.Itoa(nobody))
	if _, err := CheckDir(theirs); err != nil {
		t.Errorf("under sudo by uid %d: %v", nobody, err)
	}
}

// deadPid is the pid of a process that has exited and been reaped.
func deadPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// What a killed tmpprobe left (its pid gone, no lock held) is swept;
// anything in use, not ours, or named otherwise stays.
func TestSweepStale(t *testing.T) {
	dir := t.TempDir()
	dead := strconv.Itoa(deadPid(t))
	put := func(name string, isDir bool) string {
		p := filepath.Join(dir, name)
		if isDir {
			os.MkdirAll(filepath.Join(p, "arm-1", "deep"), 0o700)
			os.WriteFile(filepath.Join(p, "arm-1", "deep", "f"), nil, 0o600)
		} else {
			os.WriteFile(p, []byte("x"), 0o600)
		}
		return p
	}
	staleDir := put("tmpprobe-"+dead+"-aa", true)
	staleFile := put(".x.csv.tmp-"+dead+"-bb", false)
	oldStyle := put("tmpprobe-123456789", true) // made by an older tmpprobe: no pid in it
	other := put("other-"+dead+"-cc", true)
	// A live pid (ours) and a held lock each keep a directory.
	mine := put("tmpprobe-"+strconv.Itoa(os.Getpid())+"-dd", true)
	parent, err := OpenDir(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	name, held, err := MkdirOwned(parent, "tmpprobe-")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	// A lock held in another pid namespace looks like a dead pid here.
	lockedName := "tmpprobe-" + dead + "-ee"
	os.Mkdir(filepath.Join(dir, lockedName), 0o700)
	locker := exec.Command("flock", filepath.Join(dir, lockedName), "sleep", "30")
	if err := locker.Start(); err == nil {
		defer locker.Process.Kill()
		for i := 0; i < 100 && !isLocked(filepath.Join(dir, lockedName)); i++ {
			time.Sleep(50 * time.Millisecond)
		}
	} else {
		lockedName = ""
	}

	SweepStale(parent, "tmpprobe-")
	SweepStale(parent, ".x.csv.tmp-")
	for _, gone := range []string{staleDir, staleFile} {
		if _, err := os.Lstat(gone); err == nil {
			t.Errorf("%s was not swept", gone)
		}
	}
	kept := []string{oldStyle, other, mine, filepath.Join(dir, name)}
	if lockedName != "" {
		kept = append(kept, filepath.Join(dir, lockedName))
	}
	for _, p := range kept {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was swept: %v", p, err)
		}
	}
}

func isLocked(path string) bool {
	return exec.Command("flock", "-n", path, "true").Run() != nil
}

// Removal relative to fds never follows a symlink planted in the tree.
func TestRemoveAllAtKeepsLinkTargets(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	keep := filepath.Join(outside, "keep")
	os.WriteFile(keep, []byte("x"), 0o644)
	os.MkdirAll(filepath.Join(dir, "w", "sub"), 0o755)
	os.Symlink(outside, filepath.Join(dir, "w", "sub", "link"))
	parent, _ := OpenDir(dir, true)
	defer parent.Close()
	if err := RemoveAllAt(parent, "w"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(keep); err != nil {
		t.Errorf("the symlink's target lost %s: %v", keep, err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "w")); err == nil {
		t.Error("w is still there")
	}
}
