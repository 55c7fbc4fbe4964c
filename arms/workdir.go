//go:build linux

package arms

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tmpprobe/tmpprobe/internal/safefs"
)

// workPrefix names the run's private directory under each --dir:
// tmpprobe-<pid>-<random>, so the next run can tell a killed run's
// directory (pid gone, lock free) from one in use.
const workPrefix = "tmpprobe-"

// workDir is the run's private directory under one --dir. --dir is opened
// once and everything below it is made and removed relative to fds
// (mkdirat, unlinkat): renaming the private directory, or planting a
// symlink at its name, cannot move the work anywhere else. Workers are
// handed their group directory open (Config.DirFile) and reach it only
// through that fd.
type workDir struct {
	path   string   // --dir/tmpprobe-…: how messages name it
	parent *os.File // --dir
	name   string
	dir    *os.File   // the private directory, flock'ed while open
	groups []*os.File // the group directories made, open until remove
}

// groupDir is a group's directory: its path, for messages, and the
// directory itself, open, for its workers.
type groupDir struct {
	path string
	file *os.File
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

// groupDir makes a fresh directory for the cases a ratio compares. It
// goes with the private directory. A private directory whose path no
// longer leads to it fails the cases from here on: something moved it.
func (w *workDir) groupDir() (groupDir, error) {
	name, d, err := safefs.MkdirOwned(w.dir, "group-")
	if err != nil {
		return groupDir{}, err
	}
	path := filepath.Join(w.path, name)
	if !safefs.SameFile(path, d) {
		d.Close()
		safefs.RemoveAllAt(w.dir, name)
		return groupDir{}, w.moved()
	}
	w.groups = append(w.groups, d)
	return groupDir{path: path, file: d}, nil
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
	for _, g := range w.groups {
		g.Close()
	}
	w.dir.Close()
	w.parent.Close()
}
