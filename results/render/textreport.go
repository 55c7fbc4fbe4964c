package render

import (
	"fmt"
	"io"
	"slices"

	"github.com/tmpprobe/tmpprobe/internal/textwrap"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// DefaultWidth is the terminal report's width where the output is not a
// terminal (a pipe, a file): what a reader's terminal most often is.
const DefaultWidth = 80

// DefaultTop is how many syscalls the report of a saved trace shows.
const DefaultTop = 20

// TextOptions lay out the terminal report.
type TextOptions struct {
	Width   int  // columns prose wraps at (tables are 79 wide); 0 = DefaultWidth
	Hist    bool // log2 latency histograms of each syscall class
	Verbose bool // also the notes every run repeats (why a backend was skipped), and FullWhy
	// FullWhy says each WHY sentence whole (every term, stage, off-CPU
	// cause and term within noise, and the state links), as report.md
	// does; by default a gap says its Short.
	FullWhy bool
	Sort    string // the breakdown's order, one of results.SortKeys; "" = time
	// Trace is what a trace's report shows; nil: its top DefaultTop
	// syscalls.
	Trace *TraceView
}

// TraceView selects what a trace report shows.
type TraceView struct {
	Top      int      // syscall classes shown, largest time first; 0 = all
	Syscalls []string // only these classes (a name matches its [variants])
	Width    int      // columns the WHY sentences wrap at; 0 = DefaultWidth
	Sort     string   // the order of the classes (results.SortKeys); "" = time
}

func widthOr(w int) int {
	if w <= 0 {
		return DefaultWidth
	}
	return w
}

// WriteTextReport is the terminal report of a run, fresh or saved: its
// report.Document, a trace's as o.Trace shows it.
func WriteTextReport(w io.Writer, run *results.Run, sums []*results.Summary, labs explain.LabKnowledge, o TextOptions) {
	fill := report.Options{Sort: o.Sort, Hist: o.Hist}
	if run.Kind == results.KindTrace {
		v := TraceView{Top: DefaultTop}
		if o.Trace != nil {
			v = *o.Trace
		}
		fill.Top, fill.Syscalls = v.Top, v.Syscalls
	}
	WriteText(w, report.New(report.Input{Run: run, Sums: sums, Labs: labs}, fill), o)
}

// WriteTrace prints a traced target and its regions as a trace's report
// does, without its footer: per arm its breakdown, then why. The view's
// filter applies to both.
func WriteTrace(w io.Writer, sums []*results.Summary, v TraceView) {
	run := &results.Run{Kind: results.KindTrace}
	d := report.New(report.Input{Run: run, Sums: sums}, report.Options{Sort: v.Sort, Top: v.Top, Syscalls: v.Syscalls})
	writeTraceBody(w, d, widthOr(v.Width), false)
}

// WriteText writes a report as the terminal shows it. For a lab run the
// answer comes first: per group its table and the WHY of the gaps the
// labs ask about, the headline ones first, each in its Short unless
// FullWhy; then each arm's sentence and syscall breakdown, histograms on
// request, failures and the footer.
func WriteText(w io.Writer, d *report.Document, o TextOptions) {
	width := widthOr(o.Width)
	full := o.FullWhy || o.Verbose
	switch d.Kind {
	case results.KindTrace:
		writeTraceBody(w, d, width, full)
		writeHistograms(w, d)
		writeFooter(w, d.Footer, width, o.Verbose)
		return
	case results.KindCompare:
		// A compare report wraps at 80 columns and says every note.
		writeCommands(w, d, full)
		writeHistograms(w, d)
		writeFailures(w, d.Failures)
		writeFooter(w, d.Footer, DefaultWidth, true)
		return
	}
	explained := false
	for _, g := range d.Groups {
		writeGroupTable(w, g)
		writeWhy(w, g.Why, width, full)
		explained = explained || g.Explained
	}
	if explained {
		writeSpills(w, d, width)
		writeArms(w, d, width, full)
	}
	writeHistograms(w, d)
	writeFailures(w, d.Failures)
	writeFooter(w, d.Footer, width, o.Verbose)
}

// writeWhy is a group's WHY: each gap's Short, or with full each
// sentence whole and the state links too.
func writeWhy(w io.Writer, why []report.Sentence, width int, full bool) {
	var said []string
	shortened := false
	for _, s := range why {
		switch {
		case full || s.Short == "" && s.Kind != report.SentenceStateLink:
			said = append(said, s.Text)
		case s.Short != "":
			said = append(said, s.Short)
			shortened = shortened || s.Short != s.Text
		default:
			shortened = true
		}
	}
	if len(said) == 0 {
		return
	}
	head := "\nWHY"
	if shortened {
		head += " (every term and cause: -v, and report.md)"
	}
	fmt.Fprintln(w, head)
	for _, s := range said {
		bullet(w, "  ", s, width)
	}
}

// writeArms is the BREAKDOWN: per explained group each traced arm's
// sentence, which starts with its time split, its syscall table and
// where in the code its time went.
func writeArms(w io.Writer, d *report.Document, width int, full bool) {
	fmt.Fprintln(w, "\nBREAKDOWN (per arm, traced: where its time goes)")
	for _, g := range d.Groups {
		if !g.Explained {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", g.Title)
		for _, a := range g.Arms {
			if a.Traced {
				writeArmBreakdown(w, a, width, full)
			}
		}
	}
}

// writeArmBreakdown is a traced arm's sentence, which starts with its
// time split, its syscall table and where in the code its time went.
func writeArmBreakdown(w io.Writer, a *report.Arm, width int, full bool) {
	fmt.Fprintln(w)
	bullet(w, "  ", a.Sentence.Text, width)
	writeClassTable(w, a)
	writeCode(w, a, width, full)
}

// writeTraceBody is a trace's report before its footer: per traced arm
// (the target, its regions) its heading and breakdown, then WHY.
func writeTraceBody(w io.Writer, d *report.Document, width int, full bool) {
	for _, a := range d.Arms {
		if a.Traced {
			fmt.Fprintf(w, "\n%s\n", a.Heading)
			writeBreakdown(w, a, width, full)
		}
	}
	fmt.Fprintln(w, "\nWHY")
	for _, a := range d.Arms {
		if a.Traced {
			bullet(w, "  ", a.Sentence.Text, width)
		}
	}
}

// writeCommands is a compare report before its failures and footer:
// the table (per command its untraced wall time per run and its
// throughput ÷ the first command's), what tracing cost, the verdicts
// where no WHY says them (or with full), the WHY of each command
// against the first, and each command's sentence and breakdown over its
// process tree.
func writeCommands(w io.Writer, d *report.Document, full bool) {
	fmt.Fprintf(w, "\n%s\n", d.Heading)
	for _, g := range d.Groups {
		fmt.Fprintf(w, commandsRow, "COMMAND", "WALL/run ±95%", ratioHeader(g, "FIRST"))
		for _, r := range g.Rows {
			fmt.Fprintf(w, commandsRow, textwrap.Middle(r.Arm, commandWidth), r.Head.Short, r.Ratio.Short)
		}
		if g.Observer != "" {
			fmt.Fprintln(w, wrap(g.Observer, DefaultWidth, "  "))
		}
		if len(g.Verdicts) > 0 && (full || len(g.Why) == 0) {
			fmt.Fprintln(w)
			for _, v := range g.Verdicts {
				bullet(w, "", v.Text, DefaultWidth)
			}
		}
		writeWhy(w, g.Why, DefaultWidth, full)
	}
	writeSpills(w, d, DefaultWidth)
	if !slices.ContainsFunc(d.Arms, func(a *report.Arm) bool { return a.Traced }) {
		return // throughput only: nothing was attributed
	}
	fmt.Fprintln(w, "\nBREAKDOWN (per command, traced over its process tree)")
	for _, a := range d.Arms {
		if a.Traced {
			writeArmBreakdown(w, a, DefaultWidth, full)
		}
	}
}

// commandsRow is 79 columns with the widest cells: a command cut at
// commandWidth, "1234 ms ±>99%", the widest ratio.
const (
	commandWidth = 40
	commandsRow  = "%-40s %15s %22s\n"
)

// writeSpills says where each spilling arm rolled over to a file.
func writeSpills(w io.Writer, d *report.Document, width int) {
	for _, s := range d.Spills {
		fmt.Fprintln(w)
		bullet(w, "  ", s.Text, width)
	}
}

// bullet prints text as a bulleted paragraph under width columns.
func bullet(w io.Writer, indent, text string, width int) {
	fmt.Fprintln(w, textwrap.Bullet(indent, text, width))
}

// writeFailures names each arm that failed and shows the tail of its
// worker's stderr.
func writeFailures(w io.Writer, fs []report.Failure) {
	for _, f := range fs {
		fmt.Fprintf(w, "\nFAILED %s\n", f.Head)
		for _, l := range f.Tail {
			fmt.Fprintf(w, "  | %s\n", trunc(l, 74))
		}
	}
}

// writeFooter is the terminal footer: a blank line, then each line
// wrapped to the width, warnings and notes prefixed "warning: " and
// "note: " (vmtest greps them); the notes every run repeats only when
// verbose.
func writeFooter(w io.Writer, lines []report.FooterLine, width int, verbose bool) {
	fmt.Fprintln(w)
	for _, l := range lines {
		if l.Repeated && !verbose {
			continue
		}
		text := l.Text
		if l.Kind != report.FooterFact {
			text = string(l.Kind) + ": " + text
		}
		fmt.Fprintln(w, wrap(text, width, "  "))
	}
}
