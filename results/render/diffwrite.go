package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// WriteDiffText writes the diff for a terminal: what limits the
// comparison, preflight differences, a table per lab × runtime ×
// parameter with each group's drift, then one sentence per real change.
func WriteDiffText(w io.Writer, d *report.DiffDocument) { WriteDiffTextVerbose(w, d, false) }

// WriteDiffTextVerbose is WriteDiffText; verbose lists every fact a
// move of a work dir to another file system or device stands for, every
// fact of the work dirs and every neighbour.
func WriteDiffTextVerbose(w io.Writer, d *report.DiffDocument, verbose bool) {
	fmt.Fprintf(w, "OLD %s\nNEW %s\n", d.Old, d.New)
	for _, f := range d.Failures {
		fmt.Fprintln(w, wrap("FAILED: "+f, 78, "  "))
	}
	for _, p := range d.Problems {
		fmt.Fprintln(w, wrap("warning: "+p, 78, "  "))
	}
	if d.Between != "" {
		fmt.Fprintln(w, wrap(betweenLead+d.Between, 78, "  "))
	}
	if d.LeftOut != "" {
		fmt.Fprintln(w, wrap(leftOutLead+d.LeftOut, 78, "  "))
	}
	var tied, other []report.DiffFact
	for _, f := range d.Facts {
		switch {
		case f.Tied:
			tied = append(tied, f)
		case !f.InMove:
			other = append(other, f)
		}
	}
	if len(tied) > 0 {
		fmt.Fprintln(w, "\nPreflight differences that can explain the changes (by their mechanism):")
		for _, f := range tied {
			fmt.Fprintln(w, wrap("  "+factSaid(f, verbose), 78, "    "))
			writeStandsFor(w, f, verbose)
		}
	}
	shown, more := neighboursToShow(d, verbose)
	if len(shown) == 0 && more > 0 {
		fmt.Fprintf(w, "\nNeighbours: %d that NEW lost or had less of (-v lists them)\n", more)
	}
	if len(shown) > 0 {
		fmt.Fprintln(w, "\nNeighbours (other tasks on the CPU and the disk during traced batches):")
		for _, n := range shown {
			fmt.Fprintln(w, wrap("  "+n, 78, "    "))
		}
		if more > 0 {
			fmt.Fprintf(w, "  %d more (-v)\n", more)
		}
	}
	if len(other) > 0 {
		head := "Preflight differences (any of these can explain every change at once):"
		if len(tied) > 0 {
			head = "Other preflight differences (no change is tied to them):"
		}
		fmt.Fprintln(w, "\n"+head)
		hidden := 0
		for _, f := range other {
			if !verbose && f.Detail {
				hidden++ // a device's name, a mount point: -v
				continue
			}
			fmt.Fprintln(w, wrap("  "+factSaid(f, verbose), 78, "    "))
			writeStandsFor(w, f, verbose)
		}
		if hidden > 0 {
			fmt.Fprintf(w, "  %d more of the work dirs' facts, which explain no change (-v)\n", hidden)
		}
	}
	for _, g := range d.Groups {
		fmt.Fprintf(w, "\n%s\n", g.Title)
		if g.Drift != "" {
			fmt.Fprintln(w, wrap("  "+g.Drift, 78, "  "))
		}
		// ×BASE: the ratio is of throughput, to the lab's baseline arm.
		row(w, diffRow, "ARM", "OLD→NEW "+g.Rate, "Δ "+g.Rate, "OLD→NEW ×BASE", "Δ ×BASE")
		for _, r := range g.Rows {
			row(w, diffRow, trunc(r.Arm, 23), r.Ops.Arrow, r.Ops.Delta, r.Ratio.Arrow, r.Ratio.Delta)
		}
	}
	writeChanged(w, d, "  ", "")
	if d.Gate != "" {
		fmt.Fprintln(w, wrap(d.Gate, 78, "  "))
	}
}

// The leads of the lines that say where a diff's noise came from.
const (
	betweenLead = "Tests count the spread between runs: "
	leftOutLead = "Not replicates of NEW, so not its noise: "
)

// maxNeighbours is how many neighbours the terminal lists without -v.
const maxNeighbours = 2

// neighboursToShow are the neighbours the terminal lists, and how many
// more -v would: without -v, at most maxNeighbours, and those OLD had and
// NEW lost only when an arm got faster — what is gone explains no
// regression.
func neighboursToShow(d *report.DiffDocument, verbose bool) (shown []string, more int) {
	improved := false
	for i := range d.Diff.Arms {
		improved = improved || d.Diff.Arms[i].Status == compare.StatusImproved
	}
	for _, n := range d.Neighbours {
		if !verbose && (len(shown) == maxNeighbours || (!improved && n.Lost)) {
			more++
			continue
		}
		shown = append(shown, n.Text)
	}
	return shown, more
}

// diffRow fits 79 columns: "NamedTemporaryFile-keep", "154907→154907",
// "−9.2% p=0.002", "0.55→0.56".
const diffRow = "%-23s %13s %-13s %9s %-13s"

// row prints one table line without trailing blanks.
func row(w io.Writer, format string, cells ...any) {
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf(format, cells...), " "))
}

// writeChanged lists the real changes with their decomposition, the arms
// with too few rounds to judge, and what arms said alike within noise.
func writeChanged(w io.Writer, d *report.DiffDocument, indent, bullet string) {
	if len(d.Changed) > 0 {
		fmt.Fprintf(w, "\n%s\n", d.ChangedHead)
		for _, s := range d.Changed {
			line := indent + bullet + s
			if bullet != "" {
				line = bullet + mdCell(s)
			}
			fmt.Fprintln(w, wrapFor(line, bullet, indent))
		}
	} else {
		fmt.Fprintf(w, "\n%s\n", d.ChangedHead)
	}
	if d.TooFew != "" {
		fmt.Fprintln(w, wrapFor(bullet+d.TooFew, bullet, indent))
	}
	if d.Tellable != "" {
		fmt.Fprintln(w, wrapFor(bullet+d.Tellable, bullet, indent))
	}
	if len(d.WorkToo)+len(d.Storage) > 0 && bullet == "" {
		fmt.Fprintln(w)
	}
	for _, l := range d.Storage {
		fmt.Fprintln(w, wrapFor(bullet+l, bullet, indent))
	}
	for _, l := range d.WorkToo {
		fmt.Fprintln(w, wrapFor(bullet+l, bullet, indent))
	}
	for _, l := range d.RunQueue {
		fmt.Fprintln(w, wrapFor(bullet+l, bullet, indent))
	}
	if d.SameDirection != "" {
		fmt.Fprintln(w, wrapFor(bullet+d.SameDirection, bullet, indent))
	}
}

// wrapFor wraps terminal text; markdown (a bullet) is left to the viewer.
func wrapFor(s, bullet, indent string) string {
	if bullet != "" {
		return s
	}
	return wrap(s, 78, indent+"  ")
}

// WriteDiffMarkdown writes what WriteDiffText does with -v, as markdown.
func WriteDiffMarkdown(w io.Writer, d *report.DiffDocument) {
	fmt.Fprintf(w, "# tmpprobe diff\n\n- OLD: %s\n- NEW: %s\n", mdCode(d.Old), mdCode(d.New))
	for _, f := range d.Failures {
		fmt.Fprintf(w, "- **FAILED:** %s\n", mdCell(f))
	}
	for _, p := range d.Problems {
		fmt.Fprintf(w, "- **warning:** %s\n", mdCell(p))
	}
	if d.Between != "" {
		fmt.Fprintf(w, "- %s%s\n", betweenLead, mdCell(d.Between))
	}
	if d.LeftOut != "" {
		fmt.Fprintf(w, "- %s%s\n", leftOutLead, mdCell(d.LeftOut))
	}
	if len(d.Facts) > 0 {
		fmt.Fprintln(w, "\n## Preflight differences\n\nThose that explain a change first; any of the others can explain every change at once.\n\n| fact | OLD | NEW | explains |\n|---|---|---|---|")
		for _, f := range d.Facts {
			writeFactRow(w, f)
		}
	}
	if len(d.Neighbours) > 0 {
		fmt.Fprint(w, "\n## Neighbours\n\n")
		for _, n := range d.Neighbours {
			fmt.Fprintf(w, "- %s\n", mdCell(n.Text))
		}
	}
	fmt.Fprintln(w, "\n## What changed")
	writeChanged(w, d, "", "- ")
	for _, n := range d.Drift {
		fmt.Fprintf(w, "- %s\n", mdCell(n.Sentence))
	}
	if d.Gate != "" {
		fmt.Fprintf(w, "\n%s\n", mdCell(d.Gate))
	}
	fmt.Fprintln(w, "\n## Arms")
	for _, g := range d.Groups {
		fmt.Fprintf(w, "\n%s\n\n| arm | OLD %s | NEW %s | Δ | p | OLD ×BASE | NEW ×BASE | Δ | p | status |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n",
			mdCell(g.Title), g.Rate, g.Rate)
		for _, r := range g.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdCell(r.Arm), mdCells(r.Ops), mdCells(r.Ratio), r.Status)
		}
	}
}

// writeFactRow writes a difference as a row of the facts' table, a move's
// followed by the facts it stands for.
func writeFactRow(w io.Writer, f report.DiffFact) {
	fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdCell(f.Fact.Name), mdCell(f.Old), mdCell(f.New), mdCell(strings.Join(f.Explains, ", ")))
	for _, s := range f.StandsFor {
		writeFactRow(w, s)
	}
}

// mdCells are a comparison's four cells: OLD and NEW median [95% CI],
// Δ, p.
func mdCells(c report.DiffCells) string {
	if !c.Known {
		return " | | | "
	}
	return fmt.Sprintf("%s | %s | %s | %s", c.Old, c.New, c.Change, c.P)
}

// factSaid says a difference as the terminal lists it: a move's without
// -v with how many facts it stands for.
func factSaid(f report.DiffFact, verbose bool) string {
	if n := len(f.StandsFor); f.Move && n > 0 && !verbose {
		return f.Said + fmt.Sprintf(" (and %d facts with it: -v)", n)
	}
	return f.Said
}

// writeStandsFor lists, with verbose, the facts a move stands for.
func writeStandsFor(w io.Writer, f report.DiffFact, verbose bool) {
	if !verbose {
		return
	}
	for _, s := range f.StandsFor {
		fmt.Fprintln(w, wrap(fmt.Sprintf("      %s: %s", s.Fact.Name, s.Change), 78, "        "))
	}
}
