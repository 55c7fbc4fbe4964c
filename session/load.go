//go:build linux

package session

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/tmpprobe/tmpprobe/internal/atomicfile"
	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/internal/escape"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// Load reads a saved run (a run directory, its run.json, or a
// syscalls.csv) and summarizes it as the run did. Its error is one line
// naming the input.
func Load(path string) (*Outcome, error) {
	run, err := loadRun(path)
	if err != nil {
		return nil, err
	}
	labs := knowledge()
	return &Outcome{Run: run, Sums: results.SummarizeAll(run, labs.Baselines), Labs: labs}, nil
}

// loadRun reads a saved run, not yet summarized; its error is one line
// naming the input.
func loadRun(path string) (*results.Run, error) {
	run, err := runfile.LoadRun(path)
	if err != nil {
		return nil, fmt.Errorf("%s", errtext.FirstLine(err.Error()))
	}
	return run, nil
}

// What a diff gates on (--gate) and its defaults, as compare has them.
const (
	GateTime            = compare.GateTime
	GateWork            = compare.GateWork
	DefaultMinEffectPct = compare.DefaultMinEffectPct
)

// Gate is what fails a diff of two runs (Regressed): an arm that changed,
// by its On (GateTime, GateWork), by ThresholdPct or more. A diff with no
// Gate does not gate.
type Gate = compare.Gate

// GateOn is the gate on what at thresholdPct.
func GateOn(on string, thresholdPct float64) *Gate { return compare.GateOn(on, thresholdPct) }

// Diff compares saved runs: two as OLD and NEW, more side by side.
type Diff struct {
	Paths        []string
	MinEffectPct float64
	// Gate fails a diff of two runs; nil: it does not gate.
	Gate *Gate
	// History is where the earlier runs for the spread between runs are
	// read ("": the directory OLD and NEW share; "none": nowhere).
	History string
	Format  render.Format
	Verbose bool
}

// Regressed is a diff that fails its gate: Verdict says so, as the
// diff's report does, and Why lists each reason.
type Regressed struct {
	Verdict string
	Why     []string
}

func (e *Regressed) Error() string { return e.Verdict }

// RunDiff reads the runs, compares them and writes the diff (or, for
// three runs or more, the matrix) to w.
func RunDiff(d Diff, w io.Writer) error {
	var runs []*results.Run
	// compare summarizes each run as it compares them: read only.
	for _, path := range d.Paths {
		run, err := loadRun(path)
		if err != nil {
			return err
		}
		runs = append(runs, run)
	}
	baselines := knowledge().Baselines
	// The paths as the diff prints them: typed by the user, escaped as a
	// run's own strings are.
	names := make([]string, len(d.Paths))
	for i, p := range d.Paths {
		names[i] = escape.Line(p)
	}
	if len(runs) > 2 {
		return writing(d.Format, d.Format.Matrix(w, compare.DiffMany(names, runs, baselines, d.MinEffectPct)))
	}
	opt := compare.Options{MinEffectPct: d.MinEffectPct, Gate: d.Gate}
	opt.HistoryFrom = historyOf(d.Paths[0], d.Paths[1], d.History)
	if opt.HistoryFrom != "" && !runs[0].Derived.Between.Measured() && !runs[1].Derived.Between.Measured() {
		// Replicates of NEW: runs beside it of another environment (OLD's
		// among them) differ by what changed, which is not noise.
		sums := results.SummarizeAll(runs[1], results.CommandBaseline(runs[1], baselines))
		if earlier, leftOut, _, err := runfile.LoadEarlier(opt.HistoryFrom, runDirOf(d.Paths[1]), func(e *results.Run) string {
			return compare.NotReplicate(runs[1], sums, e, baselines)
		}, results.MaxEarlierRuns); err == nil {
			// OLD, beside NEW, is its replicate or the change itself:
			// not one to name as left out.
			oldName := filepath.Base(runDirOf(d.Paths[0]))
			opt.History, opt.LeftOut = earlier, slices.DeleteFunc(leftOut, func(l results.LeftOut) bool { return l.Name == oldName })
		}
	}
	doc := report.NewDiff(compare.DiffWith(names[0], runs[0], names[1], runs[1], baselines, opt))
	if err := writing(d.Format, d.Format.Diff(w, doc, d.Verbose)); err != nil {
		return err
	}
	if len(doc.Gated) > 0 {
		return &Regressed{Verdict: doc.Gate, Why: doc.Gated}
	}
	return nil
}

// writing names the format a writer failed in.
func writing(f render.Format, err error) error {
	if err != nil {
		return fmt.Errorf("writing %s: %w", f.What, err)
	}
	return nil
}

// runDirOf is the run directory a diff's argument names: itself, or the
// directory of a run.json; "" for a syscalls.csv, which has no history.
func runDirOf(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return filepath.Clean(path)
	}
	if filepath.Base(path) == "run.json" {
		return filepath.Dir(filepath.Clean(path))
	}
	return ""
}

// historyOf is where a diff reads earlier runs from: --history, else
// the directory OLD's and NEW's run dirs are both in; "" for none.
func historyOf(old, cur, flag string) string {
	switch flag {
	case "none":
		return ""
	case "":
		o, n := runDirOf(old), runDirOf(cur)
		if o == "" || n == "" || filepath.Dir(o) != filepath.Dir(n) {
			return ""
		}
		return filepath.Dir(n)
	}
	return flag
}

// Write writes the outcome's report in f.
func (o *Outcome) Write(w io.Writer, f render.Format, opts render.TextOptions) error {
	return writing(f, f.Report(w, report.Input{Run: o.Run, Sums: o.Sums, Labs: o.Labs}, opts))
}

// Chart draws the outcome's chart to path, as format (svg or png).
func (o *Outcome) Chart(path, format string) error {
	return atomicfile.Write(path, func(w io.Writer) error { return render.WriteChart(w, o.Sums, format) })
}

// SaveRunDir saves the outcome as a run directory, as --out does.
func (o *Outcome) SaveRunDir(dir string) error {
	if err := runfile.CheckRunDir(dir); err != nil {
		return err
	}
	return runfile.WriteRunDir(dir, runfile.HeldNow(dir), o.Whole(), runDirFiles(o))
}

// Whole says whether the run finished with every arm: one that did not
// never replaces one that did.
func (o *Outcome) Whole() bool {
	if !o.Run.Complete {
		return false
	}
	for _, a := range o.Run.Arms {
		if a.Error != "" {
			return false
		}
	}
	return true
}
