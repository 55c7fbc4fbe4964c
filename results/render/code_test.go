package render

import (
	"io"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// The runs of #39 as each writer lays them out: user space measured, by
// function, every syscall by its call sites; the terminal short and with
// -v, report.md and JSON whole.
func TestGoldenCode(t *testing.T) {
	for _, fx := range []struct {
		name string
		run  *results.Run
	}{{"code", resultstest.CodeRun()}, {"app", resultstest.AppTrace(true)}, {"spin", resultstest.SpinTrace()}} {
		labs := resultstest.CodeLabs
		sums := results.SummarizeAll(fx.run, labs.Baselines)
		resultstest.Golden(t, fx.name+"/report.txt", resultstest.Render(t, func(w io.Writer) error {
			WriteTextReport(w, fx.run, sums, labs, TextOptions{})
			return nil
		}))
		resultstest.Golden(t, fx.name+"/report-v.txt", resultstest.Render(t, func(w io.Writer) error {
			WriteTextReport(w, fx.run, sums, labs, TextOptions{Verbose: true})
			return nil
		}))
		resultstest.Golden(t, fx.name+"/report.md", resultstest.Render(t, func(w io.Writer) error { WriteMarkdown(w, fx.run, sums, labs); return nil }))
		resultstest.Golden(t, fx.name+"/report.json", resultstest.Render(t, func(w io.Writer) error { return WriteSummaryJSON(w, fx.run, sums, labs) }))
		resultstest.Golden(t, fx.name+"/syscalls.csv", resultstest.Render(t, func(w io.Writer) error { return WriteSyscallCSV(w, fx.run, sums) }))
	}
}
