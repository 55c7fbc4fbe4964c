package runfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/atomicfile"
	"github.com/tmpprobe/tmpprobe/internal/safefs"
	"github.com/tmpprobe/tmpprobe/results"
)

// RunFiles are the files a saved run holds, run.json first: everything
// else can be rebuilt from it. A run directory holding anything else is
// not replaced.
var RunFiles = []string{"run.json", "arms.csv", "syscalls.csv", "report.md", "chart.svg", "chart.png"}

// A run directory is written whole (atomicfile.Stage): into a staging
// directory beside it (.NAME.tmp-<pid>-…), then renamed or swapped over
// NAME. So NAME holds one whole run, the previous or the new, after any
// failure: a full disk, an interrupt, a crash, a power cut.

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

// A File is one file of a saved run: its name, one of RunFiles, and what
// writes it.
type File struct {
	Name  string
	Write func(io.Writer) error
}

// RunJSON is a saved run's run.json: run with each arm's headline figures
// filled in (sums are its arms' summaries, in order).
func RunJSON(run *results.Run, sums []*results.Summary) File {
	return File{"run.json", func(w io.Writer) error { return WriteRunJSON(w, withFigures(run, sums)) }}
}

// WriteRunDir writes files as the run directory dir, replacing a previous
// run there as a whole (see above). The caller chooses what a saved run
// holds besides its run.json (RunJSON), which comes first: everything
// else can be rebuilt from it.
func WriteRunDir(dir string, files []File) error {
	if len(files) == 0 || files[0].Name != "run.json" {
		return errors.New("a saved run starts with its run.json")
	}
	for _, f := range files {
		if !slices.Contains(RunFiles, f.Name) {
			return fmt.Errorf("%s is not a file of a saved run (%s)", f.Name, strings.Join(RunFiles, ", "))
		}
	}
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
	stage, err := atomicfile.NewStage(pf, stagePrefix(abs))
	if err != nil {
		return err
	}
	defer stage.Close()
	for _, f := range files {
		if err := stage.Add(f.Name, f.Write); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	// A previous run there is checked again (it may have changed during
	// the run) before it is swapped out.
	err = stage.Replace(filepath.Base(abs), func() error {
		_, err := replaceable(abs)
		return err
	})
	if err != nil {
		return fmt.Errorf("moving the run into place: %w", err)
	}
	return nil
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
