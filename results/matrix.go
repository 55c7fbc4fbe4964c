package results

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// MatrixReport puts N runs side by side (a kernel, Python, filesystem or
// machine matrix): per arm, each run's throughput and ratio to the lab's
// baseline, and each later run compared with the first, round by round.
type MatrixReport struct {
	Runs         []string       `json:"runs"`
	Problems     []string       `json:"problems,omitempty"`
	Preflight    []MatrixFact   `json:"preflight_differences,omitempty"`
	Groups       []*MatrixGroup `json:"groups"`
	MinEffectPct float64        `json:"min_effect_pct"`
	Alpha        float64        `json:"alpha"`
}

// MatrixFact is a preflight fact that is not the same in every run.
type MatrixFact struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// MatrixGroup is a lab × runtime × dir × parameter.
type MatrixGroup struct {
	Title string       `json:"group"`
	Rate  string       `json:"rate"`
	Rows  []*MatrixRow `json:"arms"`
}

// MatrixRow is one arm across the runs; a cell is nil where a run lacks
// the arm.
type MatrixRow struct {
	Arm      string        `json:"arm"`
	Baseline bool          `json:"baseline,omitempty"`
	Cells    []*MatrixCell `json:"runs"`
}

// MatrixCell is one run's figures for an arm; every run after the first
// carries its comparison with the first.
type MatrixCell struct {
	OpsPerS      Estimate    `json:"ops_per_s"` // in the group's rate unit
	Ratio        *Estimate   `json:"ratio,omitempty"`
	OpsVsFirst   *Comparison `json:"ops_per_s_vs_first,omitempty"`
	RatioVsFirst *Comparison `json:"ratio_vs_first,omitempty"`
}

// DiffMany lines up any number of runs against the first.
func DiffMany(names []string, runs []*Run, baseline map[string]string, minEffectPct float64) *MatrixReport {
	rep := &MatrixReport{Runs: names, MinEffectPct: minEffectPct, Alpha: Alpha}
	for i := 1; i < len(runs); i++ {
		for _, p := range comparability(runs[0], runs[i]) {
			p = strings.Replace(strings.Replace(p, "NEW", names[i], 1), "OLD", names[0], 1)
			if !contains(rep.Problems, p) {
				rep.Problems = append(rep.Problems, p)
			}
		}
	}
	rep.Preflight = differingFacts(runs)
	key := matrixKey(runs)
	groups := map[string]*MatrixGroup{}
	rows := map[string]*MatrixRow{}
	firsts := map[string]*Summary{}
	for i, run := range runs {
		for _, s := range SummarizeAll(run, baseline) {
			k := key(s.ArmResult)
			row := rows[k]
			if row == nil {
				title := fmt.Sprintf("%s lab · %s · %s · %s", s.Lab, s.Runtime, matrixDir(runs, s.ArmResult), paramTitle(s.ArmResult))
				g := groups[title]
				if g == nil {
					g = &MatrixGroup{Title: title, Rate: "ops/s"}
					if s.SizeBytes > 0 {
						g.Rate = "MB/s"
					}
					groups[title] = g
					rep.Groups = append(rep.Groups, g)
				}
				row = &MatrixRow{Arm: s.Arm, Baseline: baseline[s.Lab] == s.Arm, Cells: make([]*MatrixCell, len(runs))}
				rows[k] = row
				g.Rows = append(g.Rows, row)
			}
			if row.Cells[i] != nil || !s.OpsPerS.Known() {
				continue
			}
			c := &MatrixCell{OpsPerS: Median(rateSamples(s))}
			if r := ratioSamples(s); len(r) > 0 && !row.Baseline {
				e := Median(r)
				c.Ratio = &e
			}
			if i == 0 {
				firsts[k] = s
			} else if f := firsts[k]; f != nil {
				ops := Compare(rateSamples(f), rateSamples(s), minEffectPct)
				c.OpsVsFirst = &ops
				if c.Ratio != nil && len(ratioSamples(f)) > 0 {
					r := Compare(ratioSamples(f), ratioSamples(s), minEffectPct)
					c.RatioVsFirst = &r
				}
			}
			row.Cells[i] = c
		}
	}
	return rep
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// matrixKey pairs arms across all runs: by dir when every run used the
// same dirs, else by the dir's position (a tmpfs run beside an ext4 one).
func matrixKey(runs []*Run) func(*ArmResult) string {
	same := true
	for _, r := range runs[1:] {
		same = same && sameSet(runDirs(runs[0]), runDirs(r))
	}
	if same {
		return func(a *ArmResult) string { return a.Key() }
	}
	return func(a *ArmResult) string {
		pos := 0
		for _, r := range runs {
			for i, d := range runDirs(r) {
				if d == a.Dir {
					pos = i
				}
			}
		}
		return fmt.Sprintf("%s/%s/%s/dir#%d/%s", a.Lab, a.Arm, a.Runtime, pos, a.Param())
	}
}

// matrixDir names the dir of a group: itself when every run used the
// same dirs, else "dir N".
func matrixDir(runs []*Run, a *ArmResult) string {
	for _, r := range runs[1:] {
		if !sameSet(runDirs(runs[0]), runDirs(r)) {
			for i, d := range runDirs(runs[0]) {
				if d == a.Dir {
					return fmt.Sprintf("dir %d", i+1)
				}
			}
			return "dir"
		}
	}
	return a.Dir
}

// WriteMatrixJSON writes the matrix for machines.
func WriteMatrixJSON(w io.Writer, rep *MatrixReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteMatrixText prints one table per group: a column per run, the first
// with its median and interval, the others with their change from it
// (benchstat's "~" when the rounds cannot tell it from noise). Throughput
// first, then the ratio to the lab's baseline.
func WriteMatrixText(w io.Writer, rep *MatrixReport) {
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
		for _, block := range g.blocks() {
			head := []string{fmt.Sprintf("%-23s", strings.ToUpper(block))}
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

// blocks are the tables of a group: throughput, and the ratio to the
// baseline when some arm has one.
func (g *MatrixGroup) blocks() []string {
	for _, r := range g.Rows {
		for _, c := range r.Cells {
			if c != nil && c.Ratio != nil {
				return []string{g.Rate, "ratio"}
			}
		}
	}
	return []string{g.Rate}
}

func matrixCell(c *MatrixCell, i int, rate bool) string {
	if c == nil {
		return "-"
	}
	e, cmp, f := c.OpsPerS, c.OpsVsFirst, "%.0f"
	if !rate {
		if c.Ratio == nil {
			return "-"
		}
		e, cmp, f = *c.Ratio, c.RatioVsFirst, "%.2f"
	}
	v := fmt.Sprintf(f, e.Center)
	switch {
	case i == 0:
		return strings.TrimSpace(v + " " + pctCell(e))
	case cmp == nil:
		return v
	case cmp.Verdict == VerdictTooFew:
		return v + " too few"
	case cmp.Verdict == VerdictSame:
		return v + " ~ p=" + pValue(cmp.P)
	}
	return v + " " + signedPct(cmp.DeltaPct) + " p=" + pValue(cmp.P)
}

// WriteMatrixMarkdown writes the matrix as markdown tables.
func WriteMatrixMarkdown(w io.Writer, rep *MatrixReport) {
	fmt.Fprintln(w, "# tmpprobe diff")
	fmt.Fprintln(w)
	for i, n := range rep.Runs {
		fmt.Fprintf(w, "- #%d: `%s`\n", i+1, n)
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
		for _, block := range g.blocks() {
			fmt.Fprintf(w, "\n| %s |", block)
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
