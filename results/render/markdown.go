package render

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// WriteMarkdown writes the report of a run as markdown (report.md).
func WriteMarkdown(w io.Writer, run *results.Run, sums []*results.Summary, labs explain.LabKnowledge) {
	WriteMarkdownDocument(w, report.New(report.Input{Run: run, Sums: sums, Labs: labs}, report.Options{}))
}

// WriteMarkdownDocument writes a report as markdown: per group the arms
// table, the group's sentences (each arm's, each compared gap's, each
// state link's) and each arm's syscall breakdown, then where a buffer
// rolled over, the failed arms and how it was measured.
func WriteMarkdownDocument(w io.Writer, d *report.Document) {
	fmt.Fprintln(w, "# tmpprobe report")
	fmt.Fprintln(w)
	if h := d.Head; len(h.Args) > 0 {
		fmt.Fprint(w, mdCode("tmpprobe "+strings.Join(h.Args, " ")))
		if !h.Started.IsZero() {
			fmt.Fprintf(w, ", started %s", h.Started.Format("2006-01-02 15:04:05 MST"))
		}
		fmt.Fprintln(w, ".")
	}
	if d.Kind == results.KindCompare {
		writeMarkdownCommands(w, d)
		writeMarkdownTail(w, d)
		return
	}
	for _, g := range d.Groups {
		fmt.Fprintf(w, "\n## %s\n\n", mdCell(g.Title))
		fmt.Fprintf(w, "| arm | %s (median) | 95%% CI | %s [95%% CI] | µs/%s | 95%% CI | traced µs/%s | syscalls µs | user µs | traced ÷ untraced %s |\n",
			g.Rate, mdCell(ratioHeader(g, "BASE")), g.Unit, g.Unit, g.Ratio)
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
		for _, r := range g.Rows {
			if r.Failed != "" {
				fmt.Fprintf(w, "| %s | FAILED: %s | | | | | | | | |\n", mdCell(r.Arm), mdCell(r.Failed))
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(r.Arm), r.Head.Long, r.Head.Bounds,
				r.Ratio.Long, r.PerOp.Long, r.PerOp.Bounds, r.Wall.Long, r.Kernel.Long, r.User.Long, r.Traced.Long)
		}
		writeMarkdownWhy(w, g)
		for _, a := range g.Arms {
			writeMarkdownBreakdown(w, a)
		}
	}
	writeMarkdownTail(w, d)
}

// writeMarkdownCommands is a compare report's table, its verdicts, its
// sentences and each command's breakdown, in markdown.
func writeMarkdownCommands(w io.Writer, d *report.Document) {
	fmt.Fprintln(w, "\n## Commands compared")
	fmt.Fprintln(w)
	var verdicts []report.Sentence
	for _, g := range d.Groups {
		fmt.Fprintf(w, "| command | wall/run (median) | 95%% CI | %s [95%% CI] | traced ÷ untraced runs/s |\n", mdCell(ratioHeader(g, "FIRST")))
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|")
		for _, r := range g.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdCell(r.Arm), r.Head.Long, r.Head.Bounds, r.Ratio.Long, r.Traced.Long)
		}
		verdicts = append(verdicts, g.Verdicts...)
	}
	if len(verdicts) > 0 {
		fmt.Fprintln(w)
		for _, v := range verdicts {
			fmt.Fprintf(w, "- %s\n", mdCell(v.Text))
		}
	}
	for _, g := range d.Groups {
		writeMarkdownWhy(w, g)
		for _, a := range g.Arms {
			writeMarkdownBreakdown(w, a)
		}
	}
}

// writeMarkdownWhy is the group's sentences: one per traced arm, then
// the group's WHY.
func writeMarkdownWhy(w io.Writer, g *report.Group) {
	var lines []string
	for _, a := range g.Arms {
		if a.Traced {
			lines = append(lines, "- "+mdCell(a.Sentence.Text))
		}
	}
	for _, s := range g.Why {
		lines = append(lines, "- "+mdCell(s.Text))
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nWhy:\n\n%s\n", strings.Join(lines, "\n"))
	}
}

func writeMarkdownBreakdown(w io.Writer, a *report.Arm) {
	if !a.Traced {
		return
	}
	unit := a.Unit
	fmt.Fprintf(w, "\n### %s\n\n", mdCell(a.Split))
	fmt.Fprintf(w, "| syscall | calls/%s | µs/%s | off-CPU µs | p50 µs | p99 µs | off-CPU by label (µs) |\n", unit, unit)
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|---|")
	for _, c := range a.Breakdown {
		name := c.Class
		switch {
		case c.Overlapped:
			name = "(" + c.Class + ") waiting for a child: in no sum"
		case c.Beside:
			name = c.Class + " ⋯ " + c.Stage + " (device busy beside it, not its cause)"
		case c.Stage != "":
			name = c.Class + " > " + c.Stage
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(name), results.Count(c.CallsPerOp), results.Micros(c.NsPerOp),
			results.Micros(c.OffNsPerOp), results.Micros(float64(c.P50)), results.Micros(float64(c.P99)), offLabels(c.OffByLabel))
	}
	if len(a.Code) > 0 {
		fmt.Fprintln(w)
		for _, s := range a.Code {
			fmt.Fprintf(w, "- %s\n", mdCell(s.Text))
		}
	}
}

// offLabels lists off-CPU time by label, largest first.
func offLabels(m map[string]float64) string {
	keys := slices.Sorted(maps.Keys(m))
	sort.SliceStable(keys, func(i, j int) bool { return math.Abs(m[keys[i]]) > math.Abs(m[keys[j]]) })
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+" "+results.Micros(m[k]))
	}
	return mdCell(strings.Join(parts, ", "))
}

// writeMarkdownTail is what follows the groups: where the spooled buffer
// rolled over, the failed arms with their stderr, and the footer.
func writeMarkdownTail(w io.Writer, d *report.Document) {
	if len(d.Spills) > 0 {
		fmt.Fprintln(w, "\n## Where the spooled buffer rolled over")
		fmt.Fprintln(w)
		for _, s := range d.Spills {
			fmt.Fprintf(w, "- %s\n", mdCell(s.Text))
		}
	}
	if len(d.Failures) > 0 {
		fmt.Fprintln(w, "\n## Failed arms")
		for _, f := range d.Failures {
			fmt.Fprintf(w, "\n**FAILED** %s\n", mdCell(f.Head))
			if len(f.Tail) > 0 {
				// Four backticks: a stderr line may hold a fence of three.
				fmt.Fprintf(w, "\n````\n%s\n````\n", strings.Join(f.Tail, "\n"))
			}
		}
	}
	fmt.Fprintln(w, "\n## How it was measured")
	fmt.Fprintln(w)
	for _, l := range d.Footer {
		switch l.Kind {
		case report.FooterWarning:
			fmt.Fprintf(w, "- **warning:** %s\n", mdCell(l.Text))
		case report.FooterFact:
			fmt.Fprintf(w, "- %s\n", mdCell(l.Text))
		default:
			fmt.Fprintf(w, "- %s: %s\n", l.Kind, mdCell(l.Text))
		}
	}
}
