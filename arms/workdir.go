//go:build linux

package arms

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tmpprobe/tmpprobe/safefs"
)

// workPrefix names the run's private directory under each --dir:
// tmpprobe-<pid>-<random>, so the next run can tell a killed run's
// directory (pid gone, lock free) from one in use.
const workPrefix = "tmpprobe-"

// workDir is the run's private directory under one --dir. --dir is opened
// once and everything below it is made and removed relative to fds
// (mkdirat, unlinkat): renaming the private directory, or planting a
// symlink at its name, cannot move the work anywhere else. Workers still
// get a path, checked to lead to the directory just made.
type workDir struct {
	path   string   // --dir/tmpprobe-…: what workers' paths start with
	parent *os.File // --dir
	name   string
	dir    *os.File // the private directory, flock'ed while open
}

// newWorkDir sweeps what killed runs left in dir and makes this run's
// private directory there.
func newWorkDir(dir string) (*workDir, error) {
	parent, err := safefs.OpenDir(dir, true)
	if err != nil {
		return nil, err
	}
	safefs.SweepStale(parent, workPrefix)
	name, d, err := safefs.MkdirOwned(parent, workPrefix)
	if err != nil {
		parent.Close()
		return nil, err
	}
	return &workDir{path: filepath.Join(dir, name), parent: parent, name: name, dir: d}, nil
}

// groupDir makes a fresh directory for the cases a ratio compares and
// returns the path their workers are given. It goes with the private
// directory.
func (w *workDir) groupDir() (string, error) {
	name, d, err := safefs.MkdirOwned(w.dir, "group-")
	if err != nil {
		return "", err
	}
	defer d.Close()
	path := filepath.Join(w.path, name)
	if !safefs.SameFile(path, d) {
		safefs.RemoveAllAt(w.dir, name)
		return "", w.moved()
	}
	return path, nil
}

// moved says whether the private directory's path still leads to it. A
// worker that fails after the directory was moved fails because of the
// move (its paths then lead nowhere, or through a planted symlink), and
// says so.
func (w *workDir) moved() error {
	if safefs.SameFile(w.path, w.dir) {
		return nil
	}
	return fmt.Errorf("work dir %s was moved or replaced during the run", w.path)
}

// remove empties the private directory through its own fd, then removes
// its name only if the name still refers to it (a moved directory stays,
// empty, where it was moved to).
func (w *workDir) remove() {
	safefs.RemoveContents(w.dir)
	if safefs.IsAt(w.parent, w.name, w.dir) {
		safefs.RemoveAllAt(w.parent, w.name)
	}
	w.dir.Close()
	w.parent.Close()
}
