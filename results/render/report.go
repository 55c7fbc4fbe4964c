package render

import (
	"io"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// WriteTextReport is the terminal report of a run, fresh or saved: for a
// lab run the tables, histograms on request, the explanations, failures
// and the footer; for a trace, WriteTraceReport of its top 20 syscalls.
func WriteTextReport(w io.Writer, run *results.Run, sums []*results.Summary, labs explain.LabKnowledge, hist bool) {
	if isTrace(run) {
		WriteTraceReport(w, run, sums, TraceView{Top: 20}, hist)
		return
	}
	if len(run.Arms) > 0 && run.Arms[0].Lab == results.LabCompare {
		WriteCommandsReport(w, run, sums, labs, hist)
		return
	}
	WriteTable(w, sums)
	if hist {
		WriteHistograms(w, sums)
	}
	WriteExplanations(w, sums, labs)
	WriteFailures(w, run.Arms)
	WriteFooter(w, run)
}

// WriteTraceReport is the terminal report of a trace, fresh or saved.
func WriteTraceReport(w io.Writer, run *results.Run, sums []*results.Summary, v TraceView, hist bool) {
	WriteTrace(w, sums, v)
	if hist {
		WriteHistograms(w, sums)
	}
	WriteFooter(w, run)
}

func isTrace(run *results.Run) bool {
	return len(run.Arms) > 0 && run.Arms[0].Lab == results.LabTrace
}
