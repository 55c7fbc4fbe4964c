package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"sync"

	"github.com/tmpprobe/tmpprobe/internal/safefs"
)

// The temp files and directories in use, for RemoveTemps. A second
// interrupt exits at once, from another goroutine, without unwinding the
// writer's defers.
var temps struct {
	sync.Mutex
	paths   map[string]bool
	aborted bool
}

// newTemp sweeps what killed runs left in dir under prefix, then makes a
// new temp there with mk (safefs.CreateOwned or MkdirOwned), tracked
// for RemoveTemps until release.
func newTemp(dir *os.File, prefix string, mk func(*os.File, string) (string, *os.File, error)) (name string, f *os.File, release func(), err error) {
	safefs.SweepStale(dir, prefix)
	release, err = trackTemp(func() (path string, err error) {
		name, f, err = mk(dir, prefix)
		return filepath.Join(dir.Name(), name), err
	})
	return name, f, release, err
}

// trackTemp creates a temp (create returns its path) and records it until
// release. Creating and recording happen under one lock, so RemoveTemps
// never misses a temp made while it runs.
func trackTemp(create func() (string, error)) (release func(), err error) {
	temps.Lock()
	defer temps.Unlock()
	if temps.aborted {
		return nil, errors.New("interrupted")
	}
	path, err := create()
	if err != nil {
		return nil, err
	}
	if temps.paths == nil {
		temps.paths = map[string]bool{}
	}
	temps.paths[path] = true
	return func() {
		temps.Lock()
		delete(temps.paths, path)
		temps.Unlock()
	}, nil
}

// withTemps runs f, which creates in or renames a tracked temp, under the
// same lock, unless RemoveTemps has run: a temp is then never renamed into
// place while it is being removed, nor a file created in a directory that
// is being removed.
func withTemps(f func() error) error {
	temps.Lock()
	defer temps.Unlock()
	if temps.aborted {
		return errors.New("interrupted")
	}
	return f()
}

// RemoveTemps removes every temp file and staging directory being written,
// and refuses new ones: for a second interrupt, just before tmpprobe exits.
// It keeps the lock, so no temp is made after it. It removes with the
// rights the temps were made with (safefs.AsInvoker): under sudo, a temp's
// name is in a directory of the user's, who could rename something of
// root's to it.
func RemoveTemps() {
	temps.Lock()
	temps.aborted = true
	safefs.AsInvoker(func() error {
		for p := range temps.paths {
			os.RemoveAll(p)
		}
		return nil
	})
}
