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
		"run.json":     func(w io.Writer) error { return WriteRunJSON(w, run) },
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
