package runfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
// It looks as the user who ran sudo (safefs.AsInvoker), as WriteRunDir
// writes.
func CheckRunDir(dir string) error {
	return safefs.AsInvoker(func() error { return checkRunDir(dir) })
}

// Held is what a run directory held when its run began (HeldNow):
// nothing, or the directory of a run saved before, by its inode.
type Held struct {
	exists   bool
	dev, ino uint64
}

// HeldNow is what dir holds now, for WriteRunDir to tell a run that
// another tmpprobe saved there since.
func HeldNow(dir string) (held Held) {
	safefs.AsInvoker(func() error {
		if abs, err := filepath.Abs(dir); err == nil {
			held = heldAt(abs)
		}
		return nil
	})
	return held
}

func heldAt(abs string) Held {
	var st unix.Stat_t
	if unix.Lstat(abs, &st) != nil {
		return Held{}
	}
	return Held{true, st.Dev, st.Ino}
}

func checkRunDir(dir string) error {
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
	// One level at a time, each opened without following a symlink.
	rel, err := filepath.Rel(p, parent)
	if err != nil {
		return err
	}
	for _, name := range strings.Split(rel, string(filepath.Separator)) {
		df, err := safefs.OpenDir(p, true)
		if err != nil {
			return err
		}
		err = safefs.Mkdir(df, name, 0o755)
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
// run there as a whole (see above), as the user who ran sudo
// (safefs.AsInvoker). The caller chooses what a saved run holds besides
// its run.json (RunJSON), which comes first: everything else can be
// rebuilt from it.
//
// held is what dir held when the run began (HeldNow). A run is never
// lost to another saved in its place: when another tmpprobe saved a run
// in dir meanwhile, or dir holds a whole run and this one is not whole
// (interrupted, or an arm failed), this one is saved beside it, in the
// first free dir.N, and the error is a *SavedAside that says where.
func WriteRunDir(dir string, held Held, whole bool, files []File) error {
	if len(files) == 0 || files[0].Name != "run.json" {
		return errors.New("a saved run starts with its run.json")
	}
	for _, f := range files {
		if !slices.Contains(RunFiles, f.Name) {
			return fmt.Errorf("%s is not a file of a saved run (%s)", f.Name, strings.Join(RunFiles, ", "))
		}
	}
	return safefs.AsInvoker(func() error { return writeRunDir(dir, held, whole, files) })
}

// SavedAside is a run saved in Dir instead of the --out it was given,
// for Reason.
type SavedAside struct {
	Dir    string
	Reason AsideReason
}

// AsideReason says why a run was saved beside its --out.
type AsideReason int

const (
	// SavedMeanwhile: another run was saved in --out while this one ran.
	SavedMeanwhile AsideReason = iota
	// KeptWhole: --out holds a whole run, and this one is not whole.
	KeptWhole
)

func (e *SavedAside) Error() string {
	if e.Reason == KeptWhole {
		return "it holds a whole run and this one is not: this run is saved in " + e.Dir + " instead"
	}
	return "another run was saved there while this one ran: this run is saved in " + e.Dir + " instead"
}

var errSavedMeanwhile = errors.New("saved meanwhile")

func writeRunDir(dir string, held Held, whole bool, files []File) error {
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
	base := filepath.Base(abs)
	if err := safefs.CheckReplaceable(pf, base); err != nil {
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
	reason := KeptWhole
	if whole || !holdsWholeRun(abs) {
		// A previous run there is checked again (it may have changed
		// during the run) before it is swapped out.
		err = stage.Replace(base, func() error {
			if _, err := replaceable(abs); err != nil {
				return err
			}
			if heldAt(abs) != held {
				return errSavedMeanwhile
			}
			return nil
		})
		if !errors.Is(err, errSavedMeanwhile) {
			if err != nil {
				return fmt.Errorf("moving the run into place: %w", err)
			}
			return nil
		}
		reason = SavedMeanwhile
	}
	for n := 2; n < 1000; n++ {
		name := base + "." + strconv.Itoa(n)
		err := stage.Land(name)
		if errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTEMPTY) {
			continue
		}
		if err != nil {
			return fmt.Errorf("moving the run beside %s: %w", dir, err)
		}
		return &SavedAside{Dir: filepath.Join(filepath.Dir(dir), name), Reason: reason}
	}
	return fmt.Errorf("no free name beside %s to save the run in", dir)
}

// holdsWholeRun reports whether abs holds a run.json of a run that
// finished with every arm.
func holdsWholeRun(abs string) bool {
	run, err := LoadRun(filepath.Join(abs, "run.json"))
	if err != nil || !run.Complete {
		return false
	}
	for _, a := range run.Arms {
		if a.Error != "" {
			return false
		}
	}
	return true
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
