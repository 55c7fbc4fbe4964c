package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/safefs"
)

// A Stage is a directory written whole beside the one it replaces: made
// in the replaced directory's parent (.NAME.tmp-<pid>-…), filled, fsync'ed
// and renamed over NAME: onto a new name or an empty directory with
// rename(2), onto a full one with renameat2(RENAME_EXCHANGE), which swaps
// the two in one step. So NAME holds the old directory or the new, whole,
// after any failure, and nothing is ever written into NAME itself, so a
// directory another user can reach cannot redirect it. Until Close, the
// stage is tracked for RemoveTemps.
type Stage struct {
	parent  *os.File
	name    string
	dir     *os.File
	release func()
}

// NewStage makes a stage named prefix and an owner stamp in parent, once
// what killed writers left there under prefix is swept.
func NewStage(parent *os.File, prefix string) (*Stage, error) {
	name, dir, release, err := newTemp(parent, prefix, safefs.MkdirOwned)
	if err != nil {
		return nil, err
	}
	return &Stage{parent: parent, name: name, dir: dir, release: release}, nil
}

// Add writes a new file into the stage: created (never over another),
// written by write, made 0644 and fsync'ed.
func (s *Stage) Add(name string, write func(io.Writer) error) error {
	var fd int
	err := withTemps(func() (err error) {
		fd, err = unix.Openat(int(s.dir.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		return err
	})
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	return writeSynced(f, write)
}

// Replace makes the stage the parent's entry base: the stage is made
// 0755 and fsync'ed, then renamed over base, or, when base is a directory
// that is not empty, swapped with it once check (which refuses a base
// that may not be replaced) passes again: base may have changed since the
// caller first checked it.
func (s *Stage) Replace(base string, check func() error) error {
	if err := s.finish(); err != nil {
		return err
	}
	pfd := int(s.parent.Fd())
	err := withTemps(func() error {
		err := unix.Renameat(pfd, s.name, pfd, base)
		if errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
			if err := check(); err != nil {
				return err
			}
			err = unix.Renameat2(pfd, s.name, pfd, base, unix.RENAME_EXCHANGE)
		}
		return err
	})
	if err != nil {
		return err
	}
	// The stage is renamed by name, in a directory its user may own: what
	// landed must be what was written.
	if !safefs.IsAt(s.parent, base, s.dir) {
		return fmt.Errorf("%s was replaced while it was being written; not saved", filepath.Join(s.parent.Name(), s.name))
	}
	return syncDir(s.parent)
}

// Land renames the stage to name, a new entry of the parent, never over
// what is there (EEXIST), made 0755 and fsync'ed as Replace does.
func (s *Stage) Land(name string) error {
	if err := s.finish(); err != nil {
		return err
	}
	pfd := int(s.parent.Fd())
	if err := withTemps(func() error {
		return unix.Renameat2(pfd, s.name, pfd, name, unix.RENAME_NOREPLACE)
	}); err != nil {
		return err
	}
	if !safefs.IsAt(s.parent, name, s.dir) {
		return fmt.Errorf("%s was replaced while it was being written; not saved", filepath.Join(s.parent.Name(), name))
	}
	return syncDir(s.parent)
}

// finish makes the stage what a saved run directory is before it lands:
// 0755, its entries on disk.
func (s *Stage) finish() error {
	if err := s.dir.Chmod(0o755); err != nil {
		return err
	}
	return syncDir(s.dir)
}

// Close removes what is left of the stage (nothing after a rename, the
// directory it replaced after a swap, all of it after a failure) and stops
// tracking it.
func (s *Stage) Close() {
	s.dir.Close()
	safefs.RemoveAllAt(s.parent, s.name)
	s.release()
}
