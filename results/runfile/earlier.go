package runfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// LoadEarlier reads the complete saved runs in dir's subdirectories that
// want accepts, newest run.json first, up to limit: the runs a new run's
// spread between runs is measured against (results.MeasureBetween). skip
// is the run directory being written now, which replaces what is there.
// Subdirectories without a run.json are not runs and are passed over; a
// run.json that cannot be read is named in unread, with why.
func LoadEarlier(dir, skip string, want func(*results.Run) bool, limit int) (runs []results.EarlierRun, unread []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	type candidate struct {
		name string
		mod  time.Time
	}
	var cands []candidate
	skipInfo, _ := os.Stat(skip)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue // a run directory being staged (see WriteRunDir), or not a run
		}
		path := filepath.Join(dir, e.Name())
		st, err := os.Stat(path)
		if err != nil || !st.IsDir() || (skipInfo != nil && os.SameFile(st, skipInfo)) {
			continue
		}
		js, err := os.Stat(filepath.Join(path, "run.json"))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			unread = append(unread, err.Error())
			continue
		}
		cands = append(cands, candidate{e.Name(), js.ModTime()})
	}
	slices.SortStableFunc(cands, func(a, b candidate) int { return b.mod.Compare(a.mod) })
	for _, c := range cands {
		if len(runs) == limit {
			break
		}
		run, err := LoadRun(filepath.Join(dir, c.name, "run.json"))
		if err != nil {
			unread = append(unread, err.Error())
			continue
		}
		if run.Complete && want(run) {
			runs = append(runs, results.EarlierRun{Name: c.name, Run: run})
		}
	}
	return runs, unread, nil
}
