package runfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/safefs"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/render"
)

// RunFiles are the files WriteRunDir writes, in the order it writes them:
// run.json first, as everything else can be rebuilt from it.
var RunFiles = []string{"run.json", "arms.csv", "syscalls.csv", "report.md", "chart.svg", "chart.png"}

// A run directory is written whole into a staging directory beside it
// (.NAME.tmp-<pid>-…), fsync'ed, and renamed over NAME: onto a new name or
// an empty directory with rename(2), onto a previous run with
// renameat2(RENAME_EXCHANGE), which swaps the two in one step. So NAME
// holds one whole run, the previous or the new, after any failure: a full
// disk, an interrupt, a crash, a power cut. Nothing is ever written into
// NAME itself, so a directory another user can reach cannot redirect it.

// CheckRunDir refuses, before a run, an --out that could not take it: a
// symlink (another user may have planted it), a file, a directory another
// user could change, one holding files that are not a saved run (the swap
// would delete them), or a filesystem that cannot swap directories when
// there is a run to replace, a mount point, an immutable directory or
// one in an append-only directory (see safefs.CheckReplaceable). It makes
// a staging directory to see that one can be made, in the nearest
// directory that exists: missing parents are made only when the run is
// saved, so a run refused later (no BPF privilege) leaves none behind.
func CheckRunDir(dir string) error {
	abs, err := runDirPath(dir)
	if err != nil {
		return err
	}
	parent := filepath.Dir(abs)
	if _, err := os.Lstat(parent); err != nil {
		existing, err := nearestExisting(parent)
		if err != nil {
			return err
		}
		ef, err := safefs.OpenSafeDir(existing)
		if err != nil {
			return err
		}
		defer ef.Close()
		if err := safefs.CheckReplaceable(ef, ""); err != nil {
			return err
		}
		probe, pd, err := safefs.MkdirOwned(ef, stagePrefix(abs))
		if err != nil {
			return err
		}
		pd.Close()
		return safefs.RemoveAllAt(ef, probe)
	}
	nonEmpty, err := replaceable(abs)
	if err != nil {
		return err
	}
	pf, err := safefs.OpenSafeDir(parent)
	if err != nil {
		return err
	}
	defer pf.Close()
	if err := safefs.CheckReplaceable(pf, filepath.Base(abs)); err != nil {
		return err
	}
	prefix := stagePrefix(abs)
	a, ad, err := safefs.MkdirOwned(pf, prefix)
	if err != nil {
		return err
	}
	ad.Close()
	defer safefs.RemoveAllAt(pf, a)
	if !nonEmpty {
		return nil
	}
	b, bd, err := safefs.MkdirOwned(pf, prefix)
	if err != nil {
		return err
	}
	bd.Close()
	defer safefs.RemoveAllAt(pf, b)
	if err := unix.Renameat2(int(pf.Fd()), a, int(pf.Fd()), b, unix.RENAME_EXCHANGE); err != nil {
		return fmt.Errorf("%s holds a run, and this filesystem cannot swap directories in one step (renameat2 RENAME_EXCHANGE: %v): give --out a new or empty directory", dir, err)
	}
	return nil
}

// runDirPath is dir made absolute; the root has no parent to stage in.
func runDirPath(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if abs == "/" {
		return "", errors.New("/ cannot be a run directory")
	}
	return abs, nil
}

func stagePrefix(abs string) string { return "." + filepath.Base(abs) + ".tmp-" }

// makeParents makes the missing directories above a run directory, once
// the nearest one that exists has passed safefs.CheckDir.
func makeParents(parent string) error {
	p, err := nearestExisting(parent)
	if err != nil {
		return err
	}
	if _, err := safefs.CheckDir(p); err != nil {
		return err
	}
	// One level at a time, each handed to the user who ran sudo when the
	// one above is theirs (see safefs.GiveToInvoker).
	rel, err := filepath.Rel(p, parent)
	if err != nil {
		return err
	}
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		df, err := safefs.OpenDir(p, true)
		if err != nil {
			return err
		}
		err = safefs.MkdirGiven(df, name)
		df.Close()
		if err != nil {
			return err
		}
		p = filepath.Join(p, name)
	}
	return nil
}

// nearestExisting is dir or the nearest directory above it that exists.
func nearestExisting(dir string) (string, error) {
	p := dir
	for {
		_, err := os.Lstat(p)
		if err == nil || p == "/" {
			return p, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		p = filepath.Dir(p)
	}
}

// replaceable checks that abs is missing, or a directory only trusted users
// can change that holds nothing but a saved run; it reports whether it
// holds anything.
func replaceable(abs string) (bool, error) {
	st, err := os.Lstat(abs)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return false, nil
	case err != nil:
		return false, err
	case st.Mode()&os.ModeSymlink != 0:
		return false, fmt.Errorf("%s is a symlink; pass the directory it points to", abs)
	case !st.IsDir():
		return false, fmt.Errorf("%s is not a directory", abs)
	}
	if _, err := safefs.CheckDir(abs); err != nil {
		return false, err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return false, err
	}
	for _, e := range entries {
		if !isRunFile(e.Name()) {
			return false, fmt.Errorf("%s holds %q, which is not part of a saved run, and saving replaces the whole directory: give --out a new or empty directory", abs, e.Name())
		}
	}
	return len(entries) > 0, nil
}

// isRunFile: a file WriteRunDir writes, or the temp of one that an older
// tmpprobe, which wrote them one by one, left behind.
func isRunFile(name string) bool {
	for _, f := range RunFiles {
		if name == f || strings.HasPrefix(name, "."+f+".tmp-") {
			return true
		}
	}
	return false
}

// WriteRunDir writes a complete saved run as dir, replacing a previous run
// there as a whole (see above); labs is what report.md compares.
func WriteRunDir(dir string, run *results.Run, sums []*results.Summary, labs explain.LabKnowledge) error {
	abs, err := runDirPath(dir)
	if err != nil {
		return err
	}
	if err := makeParents(filepath.Dir(abs)); err != nil {
		return err
	}
	if _, err := replaceable(abs); err != nil {
		return err
	}
	pf, err := safefs.OpenSafeDir(filepath.Dir(abs))
	if err != nil {
		return err
	}
	defer pf.Close()
	if err := safefs.CheckReplaceable(pf, filepath.Base(abs)); err != nil {
		return err
	}
	stage, sd, release, err := newTemp(pf, stagePrefix(abs), safefs.MkdirOwned)
	if err != nil {
		return err
	}
	defer release()
	// After a rename nothing is left here; after a swap, the previous run.
	defer safefs.RemoveAllAt(pf, stage)
	defer sd.Close()
	writers := map[string]func(io.Writer) error{
		"run.json":     func(w io.Writer) error { return WriteRunJSON(w, withFigures(run, sums)) },
		"arms.csv":     func(w io.Writer) error { return render.WriteArmsCSV(w, sums) },
		"syscalls.csv": func(w io.Writer) error { return render.WriteSyscallCSV(w, run, sums) },
		"report.md":    func(w io.Writer) error { render.WriteMarkdown(w, run, sums, labs); return nil },
		"chart.svg":    func(w io.Writer) error { return render.WriteChart(w, sums, "svg") },
		"chart.png":    func(w io.Writer) error { return render.WriteChart(w, sums, "png") },
	}
	for _, name := range RunFiles {
		if name == "chart.svg" || name == "chart.png" {
			if !render.Chartable(sums) {
				continue // nothing ran long enough to draw
			}
		}
		var fd int
		err := withTemps(func() (err error) {
			fd, err = unix.Openat(int(sd.Fd()), name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		f := os.NewFile(uintptr(fd), name)
		// The run directory will be the invoker's when its parent is.
		if err := safefs.GiveToInvoker(pf, f); err != nil {
			f.Close()
			return err
		}
		if err := writeSynced(f, writers[name]); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := safefs.GiveToInvoker(pf, sd); err != nil {
		return err
	}
	if err := sd.Chmod(0o755); err != nil {
		return err
	}
	if err := syncDir(sd); err != nil {
		return err
	}
	base := filepath.Base(abs)
	err = withTemps(func() error {
		err := unix.Renameat(int(pf.Fd()), stage, int(pf.Fd()), base)
		if errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) {
			// A previous run: check it again (it may have changed during
			// the run), then swap it out in one step.
			if _, err := replaceable(abs); err != nil {
				return err
			}
			err = unix.Renameat2(int(pf.Fd()), stage, int(pf.Fd()), base, unix.RENAME_EXCHANGE)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("moving the run into place: %w", err)
	}
	// The staging directory is renamed by name, in a directory its user
	// may own: what landed must be what was written.
	if !safefs.IsAt(pf, base, sd) {
		return fmt.Errorf("moving the run into place: %s was replaced while the run was being saved there; not saved", filepath.Join(filepath.Dir(abs), stage))
	}
	return syncDir(pf)
}

// withFigures is run with each arm's headline figures filled in, for
// readers of run.json that do not recompute them; run itself is left as it
// is (sums are its arms' summaries, in order).
func withFigures(run *results.Run, sums []*results.Summary) *results.Run {
	out := *run
	out.Derived.Figures, out.Derived.Neighbours = make([]*results.Figures, len(run.Arms)), nil
	for i := range run.Arms {
		if i < len(sums) && sums[i].ArmResult == &run.Arms[i] {
			f := sums[i].Headline()
			out.Derived.Figures[i] = &f
			out.Derived.Neighbours = results.SumNeighbours(out.Derived.Neighbours, f.Neighbours)
		}
	}
	return &out
}
