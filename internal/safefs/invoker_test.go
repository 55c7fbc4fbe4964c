//go:build linux

package safefs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// sudoAs makes the test run as if uid had run it through sudo.
func sudoAs(t *testing.T, uid int) {
	t.Setenv("SUDO_UID", strconv.Itoa(uid))
	t.Setenv("SUDO_GID", strconv.Itoa(uid))
}

// ownedDir is a new directory of uid's, mode 0755, that uid can reach.
func ownedDir(t *testing.T, uid int) string {
	t.Helper()
	base := t.TempDir()
	os.Chmod(filepath.Dir(base), 0o755) // the test's, above the subtest's
	os.Chmod(base, 0o755)
	d := filepath.Join(base, "theirs")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(d, uid, uid)
	return d
}

// Under sudo, AsInvoker opens as the invoker would: a file of root's they
// cannot write is refused with their EACCES, even through their own
// symlink, and what they create is theirs; the thread is root's again
// after it.
func TestAsInvokerHasTheirRights(t *testing.T) {
	needRoot(t)
	sudoAs(t, nobody)
	theirs := ownedDir(t, nobody)
	secret := filepath.Join(filepath.Dir(theirs), "secret")
	os.WriteFile(secret, []byte("root's"), 0o600)
	link := filepath.Join(theirs, "out.csv")
	os.Symlink(secret, link)

	err := AsInvoker(func() error {
		_, err := os.OpenFile(link, os.O_WRONLY|os.O_TRUNC, 0)
		return err
	})
	if !errors.Is(err, os.ErrPermission) {
		t.Errorf("opening root's file through their link: %v, want EACCES", err)
	}
	if b, _ := os.ReadFile(secret); string(b) != "root's" {
		t.Errorf("root's file now holds %q", b)
	}
	made := filepath.Join(theirs, "made")
	if err := AsInvoker(func() error { return os.WriteFile(made, nil, 0o644) }); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(made); err != nil || st.Sys().(*syscall.Stat_t).Uid != nobody {
		t.Errorf("a file made as the invoker: %v, want it uid %d's", err, nobody)
	}
	// Each of many calls gives its thread back as root's: none of the
	// runtime's threads is left the invoker's.
	for range 50 {
		AsInvoker(func() error { return nil })
	}
	for range 50 {
		if uid, err := fsUID(); err != nil || uid != 0 {
			t.Fatalf("a thread after AsInvoker has fsuid %d (%v)", uid, err)
		}
		if f, err := os.OpenFile(secret, os.O_WRONLY, 0); err != nil {
			t.Fatalf("root cannot open its own file after AsInvoker: %v", err)
		} else {
			f.Close()
		}
	}
}

// The swap of #37: between MkdirOwned's mkdir and its open, whoever owns
// the parent renames a directory of root's (with a root-only file in it)
// over the new, empty one. It must win nothing: MkdirOwned refuses what
// it opened, and root's directory keeps its owner, mode and file. The
// hook makes every one of the tries land its swap in the window.
func TestMkdirOwnedSwapWinsNothing(t *testing.T) {
	needRoot(t)
	sudoAs(t, nobody)
	parentPath := ownedDir(t, nobody)
	parent, err := OpenDir(parentPath, true)
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	bait := filepath.Join(parentPath, "roots")
	swapped := 0
	afterMkdir = func(p *os.File, name string) {
		if unix.Renameat(int(p.Fd()), "roots", int(p.Fd()), name) == nil {
			swapped++
			bait = filepath.Join(parentPath, name)
		}
	}
	defer func() { afterMkdir = func(*os.File, string) {} }()

	wins := 0
	for try := range 50 {
		bait = filepath.Join(parentPath, "roots")
		os.Mkdir(bait, 0o700)
		os.WriteFile(filepath.Join(bait, "key"), []byte("root's"), 0o600)
		// As root, as the release before this one made its stage, and as
		// the invoker, as outputs are made now: both must refuse.
		mk := func() error {
			_, f, err := MkdirOwned(parent, ".out.tmp-")
			if err == nil {
				var st unix.Stat_t
				unix.Fstat(int(f.Fd()), &st)
				if st.Uid == 0 {
					wins++
				}
				f.Close()
			}
			return err
		}
		if try%2 == 0 {
			err = mk()
		} else {
			err = AsInvoker(mk)
		}
		if err == nil {
			t.Errorf("try %d: MkdirOwned took the directory swapped in", try)
		}
		var st unix.Stat_t
		if err := unix.Lstat(bait, &st); err != nil || st.Uid != 0 || st.Mode&0o777 != 0o700 {
			t.Fatalf("try %d: root's directory is now uid %d, mode %04o (%v)", try, st.Uid, st.Mode&0o777, err)
		}
		if b, _ := os.ReadFile(filepath.Join(bait, "key")); !bytes.Equal(b, []byte("root's")) {
			t.Fatalf("try %d: root's file holds %q", try, b)
		}
		os.RemoveAll(bait)
	}
	if swapped != 50 || wins != 0 {
		t.Errorf("%d swaps landed of 50, %d won: want 50 and 0", swapped, wins)
	}
}
