package render

import (
	"fmt"
	"io"
	"slices"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// DefaultWidth is the terminal report's width where the output is not a
// terminal (a pipe, a file): what a reader's terminal most often is.
const DefaultWidth = 80

// TextOptions lay out the terminal report.
type TextOptions struct {
	Width   int    // columns prose wraps at (tables are 79 wide); 0 = DefaultWidth
	Hist    bool   // log2 latency histograms of each syscall class
	Verbose bool   // also the notes every run repeats (why a backend was skipped)
	Sort    string // the breakdown's order, one of results.SortKeys; "" = time
}

// sortedBy is s with its breakdown in the order by names ("" or "time":
// as summarized); s itself is not changed.
func sortedBy(s *results.Summary, by string) *results.Summary {
	if by == "" || by == "time" {
		return s
	}
	f := *s
	f.Classes = slices.Clone(s.Classes)
	results.SortClasses(f.Classes, by)
	return &f
}

func widthOr(w int) int {
	if w <= 0 {
		return DefaultWidth
	}
	return w
}

// WriteTextReport is the terminal report of a run, fresh or saved. For a
// lab run the answer comes first: per group its table and the WHY
// sentences of the gaps the labs ask about; then each arm's sentence and
// syscall breakdown, histograms on request, failures and the footer. For
// a trace, WriteTraceReport of its top 20 syscalls.
func WriteTextReport(w io.Writer, run *results.Run, sums []*results.Summary, labs explain.LabKnowledge, o TextOptions) {
	width := widthOr(o.Width)
	if isTrace(run) {
		WriteTraceReport(w, run, sums, TraceView{Top: 20, Width: width}, o)
		return
	}
	if len(run.Arms) > 0 && run.Arms[0].Lab == results.LabCompare {
		WriteCommandsReport(w, run, sums, labs, o.Hist)
		return
	}
	traced := anyTraced(sums)
	gaps := explain.Comparisons(sums, labs.Pairs)
	for i, g := range results.PeerGroups(sums) {
		writeGroupTable(w, g)
		if i == 0 && traced && g[0].Traced != nil {
			fmt.Fprintln(w, wrap(tableLegend, width, ""))
		}
		if traced && g[0].Traced != nil {
			// A group without a compared pair (arms picked by hand) can
			// still have a ratio that moved with the state of the run.
			if lines := groupWhy(g, gaps, labs); len(lines) > 0 {
				fmt.Fprintln(w, "\nWHY")
				for _, l := range lines {
					bullet(w, "  ", l, width)
				}
			}
		}
	}
	if traced {
		writeSpills(w, sums, labs, width)
		fmt.Fprintln(w, "\nBREAKDOWN (per arm: where its time goes)")
		for _, g := range results.PeerGroups(sums) {
			if g[0].Traced == nil {
				continue
			}
			fmt.Fprintf(w, "\n%s\n", groupTitle(g[0]))
			for _, s := range g {
				if s.Traced == nil {
					continue
				}
				// The arm's sentence starts with its time split, the
				// header a breakdown has elsewhere.
				fmt.Fprintln(w)
				bullet(w, "  ", explain.ArmSentence(s), width)
				writeClassTable(w, sortedBy(s, o.Sort))
			}
		}
	}
	if o.Hist {
		WriteHistograms(w, sums)
	}
	WriteFailures(w, run.Arms)
	writeFooter(w, run, o)
}

// WriteTraceReport is the terminal report of a trace, fresh or saved.
func WriteTraceReport(w io.Writer, run *results.Run, sums []*results.Summary, v TraceView, o TextOptions) {
	if v.Width == 0 {
		v.Width = widthOr(o.Width)
	}
	if v.Sort == "" {
		v.Sort = o.Sort
	}
	WriteTrace(w, sums, v)
	if o.Hist {
		WriteHistograms(w, sums)
	}
	writeFooter(w, run, o)
}

// tableLegend says, once, why a row's ops/s, µs/op and TRACED do not
// multiply out: they are different statistics of different batches.
const tableLegend = "(ops/s and RATIO: median of the rounds' untraced batches; µs/op and KERNEL (µs/op too): " +
	"all traced batches pooled, Σ time ÷ Σ ops, so slow rounds weigh more; " +
	"TRACED: traced ÷ untraced ops/s, median of the rounds. 1e6 ÷ µs/op is " +
	"ops/s × TRACED only when every round ran at the same speed.)"

func isTrace(run *results.Run) bool {
	return len(run.Arms) > 0 && run.Arms[0].Lab == results.LabTrace
}
