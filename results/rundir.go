package results

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// RunFiles are the files WriteRunDir writes, in the order it writes them:
// run.json first, as everything else can be rebuilt from it.
var RunFiles = []string{"run.json", "arms.csv", "syscalls.csv", "report.md", "chart.svg", "chart.png"}

// WriteRunDir writes a complete saved run into dir (made if missing). Each
// file goes through a temp name in dir and is renamed into place, so a
// crash leaves whole files or none.
func WriteRunDir(dir string, run *Run, sums []*Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	writers := map[string]func(io.Writer) error{
		"run.json":     func(w io.Writer) error { return WriteRunJSON(w, withFigures(run, sums)) },
		"arms.csv":     func(w io.Writer) error { return WriteArmsCSV(w, sums) },
		"syscalls.csv": func(w io.Writer) error { return WriteSyscallCSV(w, run, sums) },
		"report.md":    func(w io.Writer) error { WriteMarkdown(w, run, sums); return nil },
		"chart.svg":    func(w io.Writer) error { return WriteChart(w, sums, "svg") },
		"chart.png":    func(w io.Writer) error { return WriteChart(w, sums, "png") },
	}
	for _, name := range RunFiles {
		if name == "chart.svg" || name == "chart.png" {
			if len(chartPanels(sums)) == 0 {
				continue // nothing ran long enough to draw
			}
		}
		if err := WriteFileAtomic(filepath.Join(dir, name), writers[name]); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// withFigures is run with each arm's headline figures filled in, for
// readers of run.json that do not recompute them; run itself is left as it
// is (sums are its arms' summaries, in order).
func withFigures(run *Run, sums []*Summary) *Run {
	out := *run
	out.Arms = append([]ArmResult(nil), run.Arms...)
	for i := range out.Arms {
		if i < len(sums) && sums[i].ArmResult == &run.Arms[i] {
			f := sums[i].Headline()
			out.Arms[i].Figures = &f
		}
	}
	return &out
}
