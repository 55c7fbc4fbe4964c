package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// WriteTable prints per group (lab × runtime × dir × parameter) one line
// an arm, then each arm's syscall breakdown. Lines stay under 80 columns.
func WriteTable(w io.Writer, sums []*results.Summary) {
	d := report.New(report.Input{Run: &results.Run{}, Sums: sums}, report.Options{})
	for _, g := range d.Groups {
		writeGroupTable(w, g)
		for _, a := range g.Arms {
			writeBreakdown(w, a, DefaultWidth, false)
		}
	}
}

// writeGroupTable is one group's table: a line an arm, every line of one
// width whatever its figures (cells at their widest: tableRow), and what
// tracing cost the group's arms under it.
func writeGroupTable(w io.Writer, g *report.Group) {
	fmt.Fprintf(w, "\n%s\n", g.Title)
	fmt.Fprintf(w, tableRow, "ARM", g.Rate+" ±95%", ratioHeader(g, "BASE"), "µs/"+g.Unit)
	for _, r := range g.Rows {
		if r.Failed != "" {
			fmt.Fprintf(w, "%-23s FAILED: %s\n", trunc(r.Arm, 23), trunc(r.Failed, 56))
			continue
		}
		fmt.Fprintf(w, tableRow, trunc(r.Arm, 23), r.Head.Short, r.Ratio.Short, r.PerOp.Short)
		if r.Late != "" {
			fmt.Fprintf(w, "%-23s FAILED after %d rounds: %s\n", "", r.Rounds, trunc(r.Late, 36))
		}
	}
	if g.Observer != "" {
		fmt.Fprintln(w, wrap(g.Observer, DefaultWidth, "  "))
	}
}

// tableRow is 68 columns with the widest cells: "NamedTemporaryFile-keep",
// "154907 ±>99%", "0.0024 [0.0018–0.0030]", "12345.6".
const tableRow = "%-23s %12s %22s %8s\n"

// ratioHeader heads a ratio column with its convention, throughput ÷ the
// group's base: "ops/s ÷ TemporaryFile"; "×BASE ops/s" (base the word
// given) when the name would not fit the column.
func ratioHeader(g *report.Group, base string) string {
	if h := g.Ratio + " ÷ " + g.Base; g.Base != "" && len([]rune(h)) <= 22 {
		return h
	}
	return "×" + base + " " + g.Ratio
}

// writeBreakdown is an arm's time split, its syscall table and where in
// the code its time went (full: every function and call site).
func writeBreakdown(w io.Writer, a *report.Arm, width int, full bool) {
	if !a.Traced {
		return
	}
	fmt.Fprintf(w, "\n%s\n", wrap("  "+strings.TrimSuffix(a.Split, "."), width, "    "))
	writeClassTable(w, a)
	writeCode(w, a, width, full)
}

// writeCode says under an arm's syscall table where in the code its time
// went: a bullet for user space's functions and one for each syscall's
// call sites, short unless full.
func writeCode(w io.Writer, a *report.Arm, width int, full bool) {
	for _, s := range a.Code {
		text := s.Short
		if full || text == "" {
			text = s.Text
		}
		bullet(w, "    ", text, width)
	}
}

// classRow is a row of the breakdown's table, 76 columns with the widest
// header ("CALLS/round"); a stage's row or user space's ends after its
// calls (classCalls) or its off-CPU time (classOff), at a column's edge.
const (
	classRow   = "    %-22s %11s %9s %9s %8s %8s\n"
	classCalls = len("    %-22s %11s")
	classOff   = len("    %-22s %11s %9s %9s")
)

// writeClassTable is the breakdown's table: a row per syscall class, its
// stages under it.
func writeClassTable(w io.Writer, a *report.Arm) {
	unit, t := a.Unit, a.Scale
	fmt.Fprintf(w, classRow, "SYSCALL", "CALLS/"+unit, t.Unit+"/"+unit, "OFFCPU "+t.Unit, "p50 µs", "p99 µs")
	parent, beside, overlapped := "", false, false
	for _, c := range a.Breakdown {
		if c.Overlapped {
			overlapped = true
			fmt.Fprintf(w, classRow, trunc("("+c.Class+")", 22), results.Count(c.CallsPerOp),
				t.Of(c.NsPerOp), t.Of(c.OffNsPerOp), results.Micros(float64(c.P50)), results.Micros(float64(c.P99)))
			parent = c.Class
			continue
		}
		name := c.Class
		if c.Stage != "" {
			mark := " > "
			if c.Beside {
				mark, beside = " ⋯ ", true
			}
			name = " " + mark + c.Stage
			if c.Class != parent {
				name = c.Class + mark + c.Stage
			}
		}
		parent = c.Class
		switch {
		case c.Class == results.ClassUser && c.Stage == "" && a.UserMeasured:
			// On the CPU between syscalls, measured, and off it.
			fmt.Fprintf(w, classRow[:classOff]+"\n", "user (between calls)", "-", t.Of(c.NsPerOp), t.Of(c.OffNsPerOp))
		case c.Class == results.ClassUser && c.Stage == "":
			// Off the CPU between syscalls: part of user time, not work.
			fmt.Fprintf(w, classRow[:classOff]+"\n", "user (between calls)", "-", "-", t.Of(c.OffNsPerOp))
		case c.Stage != "" && c.NsPerOp == 0:
			fmt.Fprintf(w, classRow[:classCalls]+"\n", trunc(name, 22), results.Count(c.CallsPerOp))
		case c.Stage != "":
			// Stages carry a total, not a histogram of single calls.
			fmt.Fprintf(w, classRow[:classOff]+"\n", trunc(name, 22), results.Count(c.CallsPerOp),
				t.Of(c.NsPerOp), t.Of(c.OffNsPerOp))
		default:
			fmt.Fprintf(w, classRow, trunc(name, 22), results.Count(c.CallsPerOp),
				t.Of(c.NsPerOp), t.Of(c.OffNsPerOp), results.Micros(float64(c.P50)), results.Micros(float64(c.P99)))
		}
	}
	if beside {
		fmt.Fprintln(w, "    ⋯ the device was busy while inside, but this syscall cannot wait for it")
	}
	if overlapped {
		fmt.Fprintln(w, "    (…) waiting for a child, whose own time is above: in no sum")
	}
}

func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
