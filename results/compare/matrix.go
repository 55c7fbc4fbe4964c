package compare

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
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
	OpsPerS      results.Estimate    `json:"ops_per_s"` // in the group's rate unit
	Ratio        *results.Estimate   `json:"ratio,omitempty"`
	OpsVsFirst   *results.Comparison `json:"ops_per_s_vs_first,omitempty"`
	RatioVsFirst *results.Comparison `json:"ratio_vs_first,omitempty"`
}

// DiffMany lines up any number of runs against the first.
func DiffMany(names []string, runs []*results.Run, baseline map[string]string, minEffectPct float64) *MatrixReport {
	rep := &MatrixReport{Runs: names, MinEffectPct: minEffectPct, Alpha: results.Alpha}
	baseline = results.CommandBaseline(runs[0], baseline) // a comparison names its own
	for i := 1; i < len(runs); i++ {
		for _, problem := range comparability(runs[0], runs[i]) {
			p := explain.ProblemText(problem, names[0], names[i])
			if !slices.Contains(rep.Problems, p) {
				rep.Problems = append(rep.Problems, p)
			}
		}
	}
	rep.Preflight = differingFacts(runs)
	key := matrixKey(runs)
	groups := map[string]*MatrixGroup{}
	rows := map[results.CaseID]*MatrixRow{}
	firsts := map[results.CaseID]*results.Summary{}
	for i, run := range runs {
		for _, s := range results.SummarizeAll(run, baseline) {
			k := key(s.ArmResult)
			row := rows[k]
			if row == nil {
				title := explain.GroupTitle(s.Lab, s.Runtime, matrixDir(runs, s.ArmResult), s.ParamTitle())
				g := groups[title]
				if g == nil {
					g = &MatrixGroup{Title: title, Rate: "ops/s"}
					if s.SizeBytes > 0 {
						g.Rate = "MiB/s"
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
			// Each run's figures as it printed them (its intervals with
			// the spread between runs it recorded), and each change
			// tested against that spread too, as diff does.
			c := &MatrixCell{OpsPerS: rateEstimate(s)}
			if r := ratioSamples(s); len(r) > 0 && !row.Baseline {
				e := s.Ratio
				c.Ratio = &e
			}
			if i == 0 {
				firsts[k] = s
			} else if f := firsts[k]; f != nil {
				sp, _ := spreadsOf(runs[0], run, nil, baseline, Options{})
				opsSpread, ratioSpread := sp(f, s)
				ops := results.CompareRuns(rateEstimate(f), rateEstimate(s), rateSamples(f), rateSamples(s), opsSpread, minEffectPct)
				c.OpsVsFirst = &ops
				if c.Ratio != nil && len(ratioSamples(f)) > 0 {
					r := results.CompareRuns(f.Ratio, s.Ratio, ratioSamples(f), ratioSamples(s), ratioSpread, minEffectPct)
					c.RatioVsFirst = &r
				}
			}
			row.Cells[i] = c
		}
	}
	return rep
}

// matrixKey pairs arms across all runs: by dir when every run used the
// same dirs, else by the dir's position (a tmpfs run beside an ext4 one).
func matrixKey(runs []*results.Run) func(*results.ArmResult) results.CaseID {
	same := true
	for _, r := range runs[1:] {
		same = same && sameSet(runDirs(runs[0]), runDirs(r))
	}
	if same {
		return func(a *results.ArmResult) results.CaseID { return a.CaseID }
	}
	return func(a *results.ArmResult) results.CaseID {
		pos := 0
		for _, r := range runs {
			for i, d := range runDirs(r) {
				if d == a.Dir {
					pos = i
				}
			}
		}
		return a.At(fmt.Sprintf("dir#%d", pos))
	}
}

// matrixDir names the dir of a group: itself when every run used the
// same dirs, else the dir at its position in each run, "/tmp → /dev/shm
// → /mnt" (a three-run diff said "dir 1").
func matrixDir(runs []*results.Run, a *results.ArmResult) string {
	for _, r := range runs[1:] {
		if sameSet(runDirs(runs[0]), runDirs(r)) {
			continue
		}
		pos := -1
		for _, r := range runs {
			for i, d := range runDirs(r) {
				if d == a.Dir {
					pos = i
				}
			}
		}
		if pos < 0 {
			return "dir"
		}
		var names []string
		for _, r := range runs {
			n := "-"
			if ds := runDirs(r); pos < len(ds) {
				n = ds[pos]
			}
			names = append(names, n)
		}
		return strings.Join(names, " → ")
	}
	return a.Dir
}

// Blocks are the tables of a group: throughput, and the ratio to the
// baseline when some arm has one.
func (g *MatrixGroup) Blocks() []string {
	for _, r := range g.Rows {
		for _, c := range r.Cells {
			if c != nil && c.Ratio != nil {
				return []string{g.Rate, "ratio"}
			}
		}
	}
	return []string{g.Rate}
}
