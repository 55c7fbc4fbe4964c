package results

import (
	"math"
	"slices"
)

// BetweenRuns is how much each case's figures moved between this run and
// earlier runs like it: the part of the spread that no run can see from
// inside.
//
// A run's interval comes from its own worker generations (see
// ClusteredMedian), and those share the state of the minutes the run
// took: a host busy for the whole run, a block group whose deleted inodes
// are skipped until the next run. Measured over five runs a setting, such
// a run-wide shift moved every Go modes ratio of one run by 10–20% at
// once, and a run's own interval held another run's median in 53–86% of
// pairs, not the 83% that honest intervals give (#18). So each run's
// figure is taken as the case's figure plus a shift of the run plus the
// run's own error (the random-effects model, DerSimonian & Laird 1986,
// "Meta-analysis in clinical trials", Controlled Clinical Trials
// 7:177–188), and the interval adds, in quadrature on each side, 1.96
// times the standard deviation of the runs' medians (in logs) to the
// run's own. That standard deviation holds the runs' own errors as well
// as their shifts, so they count twice, deliberately: estimating the
// shifts alone, as the variance less the runs' own (Hedges & Olkin 1985,
// ch. 9), leaves a variance from three to ten runs that is often near 0
// by chance, and over the same saved runs such intervals held another
// run's median in 71–86% of pairs (74–90% with Student's t for the
// handful of runs, Hartung & Knapp 2001), where these hold it in 84–97%.
type BetweenRuns struct {
	// From is the directory the earlier runs were read from.
	From string `json:"from"`
	// Runs are the earlier runs like this one (see Alike) that were read,
	// as their directories' names, newest first.
	Runs []string `json:"runs"`
	// Cases are the spreads between runs of each case found in at least
	// MinRunsBetween runs, this one included.
	Cases []CaseSpread `json:"cases,omitempty"`
}

// CaseSpread is one case's spread between runs: the standard deviation of
// the natural log of its median over the runs.
type CaseSpread struct {
	Case    string  `json:"case"` // Run.CaseKey
	Runs    int     `json:"runs"` // runs it was estimated from, this one included
	OpsPerS float64 `json:"ops_per_s_log_sd"`
	Ratio   float64 `json:"ratio_log_sd"`
}

// MinRunsBetween is the fewest runs, this one included, that a spread
// between runs is estimated from: two give a standard deviation of one
// degree of freedom, below a third of the truth one time in four.
const MinRunsBetween = 3

// MaxEarlierRuns is how many earlier runs, newest first, are read: the
// machine of last month is not the machine of today.
const MaxEarlierRuns = 10

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.959964

// EarlierRun is a saved run and the name of its directory.
type EarlierRun struct {
	Name string
	Run  *Run
}

// Alike reports whether two runs measured the same thing the same way, so
// that the spread of their figures is the machine's, not a setting's:
// same kernel, Python, backend and protocol (rounds, worker rounds, batch
// sizing). Cases are matched by CaseKey.
func (r *Run) Alike(o *Run) bool {
	return r.Meta.KernelRelease == o.Meta.KernelRelease && r.Meta.Python == o.Meta.Python &&
		r.Meta.Backend == o.Meta.Backend && r.Protocol.Name == o.Protocol.Name &&
		r.Protocol.Rounds == o.Protocol.Rounds && r.Protocol.WorkerRounds == o.Protocol.WorkerRounds &&
		r.Protocol.MinBatchNs == o.Protocol.MinBatchNs && r.Protocol.FixedOps == o.Protocol.FixedOps
}

// CaseKey names a case across runs: its key at the work dir the user
// named. A --fresh-fs run's work dir is a new mount each time, so it is
// named by the dir it was made to match.
func (r *Run) CaseKey(c CaseID) string { return c.KeyAt(FreshName(r.Meta, c.Dir)) }

// FreshName names a work dir across runs: a --fresh-fs run's mount by the
// dir it was made to match ("/tmp --fresh-fs"), any other dir by itself.
func FreshName(m Meta, dir string) string {
	for _, d := range m.Dirs {
		if d.Dir == dir && d.FreshOf != "" {
			return d.FreshOf + " --fresh-fs"
		}
	}
	return dir
}

// MeasureBetween estimates each case's spread between this run (sums are
// its summaries) and the earlier runs like it, newest first, up to
// MaxEarlierRuns; from names where they were read.
func MeasureBetween(run *Run, sums []*Summary, from string, earlier []EarlierRun, baselines map[string]string) *BetweenRuns {
	b := &BetweenRuns{From: from, Runs: []string{}}
	type figures struct{ ops, ratio []Estimate }
	byCase := map[string]*figures{}
	add := func(r *Run, ss []*Summary) {
		for _, s := range ss {
			k := r.CaseKey(s.CaseID)
			if byCase[k] == nil {
				byCase[k] = &figures{}
			}
			byCase[k].ops = append(byCase[k].ops, s.OpsPerS)
			byCase[k].ratio = append(byCase[k].ratio, s.Ratio)
		}
	}
	add(run, sums)
	earlier = slices.Clone(earlier)
	slices.SortStableFunc(earlier, func(x, y EarlierRun) int { return y.Run.Started.Compare(x.Run.Started) })
	for _, e := range earlier {
		if len(b.Runs) == MaxEarlierRuns || !run.Alike(e.Run) || e.Run.Source != "" {
			continue
		}
		add(e.Run, SummarizeAll(e.Run, baselines))
		b.Runs = append(b.Runs, e.Name)
	}
	for _, s := range sums {
		k := run.CaseKey(s.CaseID)
		f := byCase[k]
		ops, n := spreadBetween(f.ops)
		ratio, nr := spreadBetween(f.ratio)
		if n < MinRunsBetween && nr < MinRunsBetween {
			continue
		}
		b.Cases = append(b.Cases, CaseSpread{Case: k, Runs: max(n, nr), OpsPerS: roundSig(ops), Ratio: roundSig(ratio)})
	}
	return b
}

// spreadBetween is the standard deviation of the logs of the runs'
// figures and how many runs it came from; 0 below MinRunsBetween.
func spreadBetween(est []Estimate) (sd float64, n int) {
	var logs []float64
	for _, e := range est {
		if e.Known() && e.Center > 0 {
			logs = append(logs, math.Log(e.Center))
		}
	}
	if len(logs) < MinRunsBetween {
		return 0, len(logs)
	}
	var mean float64
	for _, v := range logs {
		mean += v
	}
	mean /= float64(len(logs))
	var ss float64
	for _, v := range logs {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / float64(len(logs)-1)), len(logs)
}

// Widen widens each summary's ops/s and ratio intervals by its case's
// spread between runs. SummarizeAll applies a run's recorded spread; a
// live run that has just measured it applies it to the summaries it
// measured it with.
func (b *BetweenRuns) Widen(run *Run, sums []*Summary) {
	by := map[string]CaseSpread{}
	for _, c := range b.Cases {
		by[c.Case] = c
	}
	for _, s := range sums {
		c, ok := by[run.CaseKey(s.CaseID)]
		if !ok || s.Figures != nil {
			continue
		}
		s.OpsPerS = s.OpsPerS.widenedBy(z95 * c.OpsPerS)
		s.Ratio = s.Ratio.widenedBy(z95 * c.Ratio)
	}
}

// widenedBy adds between, a half-width in logs, to e's interval in
// quadrature on each side: e's own asymmetry is kept.
func (e Estimate) widenedBy(between float64) Estimate {
	if between <= 0 || !e.Bounded() || e.Lo <= 0 || e.Center <= 0 {
		return e
	}
	e.Lo = e.Center * math.Exp(-math.Hypot(math.Log(e.Center/e.Lo), between))
	e.Hi = e.Center * math.Exp(math.Hypot(math.Log(e.Hi/e.Center), between))
	return e
}

// BetweenPct is how far a spread between runs of sd (in logs) reaches at
// 95%, as a fraction of the figure: e^{1.96 sd} − 1.
func BetweenPct(sd float64) float64 { return math.Expm1(z95 * sd) }

// Measured reports whether any case's interval includes the spread
// between runs.
func (b *BetweenRuns) Measured() bool { return b != nil && len(b.Cases) > 0 }
