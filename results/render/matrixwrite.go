package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// WriteMatrixJSON writes the matrix for machines.
func WriteMatrixJSON(w io.Writer, rep *compare.MatrixReport) error { return WriteJSON(w, rep) }

// WriteMatrixText prints one table per group: a column per run, the first
// with its median and interval, the others with their change from it
// (benchstat's "~" when the rounds cannot tell it from noise). Throughput
// first, then the ratio to the lab's baseline.
func WriteMatrixText(w io.Writer, rep *compare.MatrixReport) {
	for i, n := range rep.Runs {
		fmt.Fprintf(w, "#%d %s\n", i+1, n)
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(w, wrap("warning: "+p, 78, "  "))
	}
	if len(rep.Preflight) > 0 {
		fmt.Fprintln(w, "\nPreflight differences (any of these can explain every change at once):")
		for _, f := range rep.Preflight {
			fmt.Fprintln(w, wrap(fmt.Sprintf("  %s: %s", f.Name, strings.Join(f.Values, " | ")), 78, "    "))
		}
	}
	for _, g := range rep.Groups {
		fmt.Fprintf(w, "\n%s\n", g.Title)
		for _, block := range g.Blocks() {
			head := []string{fmt.Sprintf("%-23s", blockTitle(block, g.Rate))}
			for i := range rep.Runs {
				head = append(head, fmt.Sprintf("%-18s", fmt.Sprintf("#%d", i+1)))
			}
			fmt.Fprintln(w, strings.TrimRight(strings.Join(head, " "), " "))
			for _, row := range g.Rows {
				if block == "ratio" && row.Baseline {
					continue
				}
				cells := []string{fmt.Sprintf("%-23s", trunc(row.Arm, 23))}
				for i, c := range row.Cells {
					cells = append(cells, fmt.Sprintf("%-18s", matrixCell(c, i, block != "ratio")))
				}
				fmt.Fprintln(w, strings.TrimRight(strings.Join(cells, " "), " "))
			}
		}
	}
	fmt.Fprintf(w, "\n#1: median ±95%%; #2…: median and change from #1 (p < %g and ≥ %g%%), or ~ with p\n", rep.Alpha, rep.MinEffectPct)
}

func matrixCell(c *compare.MatrixCell, i int, rate bool) string {
	if c == nil {
		return "-"
	}
	e, cmp, f := c.OpsPerS, c.OpsVsFirst, results.Rate
	if !rate {
		if c.Ratio == nil {
			return "-"
		}
		e, cmp, f = *c.Ratio, c.RatioVsFirst, results.Ratio
	}
	v := f(e.Center)
	switch {
	case i == 0:
		return strings.TrimSpace(v + " " + report.PctCell(e))
	case cmp == nil:
		return v
	case cmp.Verdict == results.VerdictTooFew:
		return v + " too few"
	case cmp.Verdict == results.VerdictSame:
		return v + " ~ p=" + results.PValue(cmp.P)
	}
	return v + " " + results.SignedPct(cmp.DeltaPct) + " p=" + results.PValue(cmp.P)
}

// WriteMatrixMarkdown writes the matrix as markdown tables.
func WriteMatrixMarkdown(w io.Writer, rep *compare.MatrixReport) {
	fmt.Fprintln(w, "# tmpprobe diff")
	fmt.Fprintln(w)
	for i, n := range rep.Runs {
		fmt.Fprintf(w, "- #%d: %s\n", i+1, mdCode(n))
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "- **warning:** %s\n", mdCell(p))
	}
	if len(rep.Preflight) > 0 {
		fmt.Fprintf(w, "\n## Preflight differences\n\n| fact |")
		for i := range rep.Runs {
			fmt.Fprintf(w, " #%d |", i+1)
		}
		fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---|", len(rep.Runs)))
		for _, f := range rep.Preflight {
			fmt.Fprintf(w, "| %s |", mdCell(f.Name))
			for _, v := range f.Values {
				fmt.Fprintf(w, " %s |", mdCell(v))
			}
			fmt.Fprintln(w)
		}
	}
	for _, g := range rep.Groups {
		fmt.Fprintf(w, "\n## %s\n", mdCell(g.Title))
		for _, block := range g.Blocks() {
			fmt.Fprintf(w, "\n| %s |", blockTitle(block, g.Rate))
			for i := range rep.Runs {
				fmt.Fprintf(w, " #%d |", i+1)
			}
			fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("--:|", len(rep.Runs)))
			for _, row := range g.Rows {
				if block == "ratio" && row.Baseline {
					continue
				}
				fmt.Fprintf(w, "| %s |", mdCell(row.Arm))
				for i, c := range row.Cells {
					fmt.Fprintf(w, " %s |", matrixCell(c, i, block != "ratio"))
				}
				fmt.Fprintln(w)
			}
		}
	}
	fmt.Fprintf(w, "\n#1: median ±95%%; #2…: median and change from #1 (p < %g and ≥ %g%%), or ~ with p.\n", rep.Alpha, rep.MinEffectPct)
}

// blockTitle heads a block of a matrix: its figure, as the labs' tables
// head it ("ops/s", "MiB/s"), the ratio as what it divides ("×BASE
// ops/s": throughput ÷ the lab's baseline's).
func blockTitle(block, rate string) string {
	if block == "ratio" {
		return "×BASE " + rate
	}
	return block
}
