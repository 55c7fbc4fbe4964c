package results

import (
	"math"
	"slices"
)

// BetweenRuns is how much each case's figures moved between this run and
// earlier runs like it, beyond what their own intervals allow: the part
// of the spread that no run can see from inside.
//
// A run's interval comes from its own worker generations (see
// ClusteredMedian), and those share the state of the minutes the run
// took: a host busy for the whole run, a block group whose deleted inodes
// are skipped until the next run. Measured over five runs a setting, such
// a run-wide shift moved every Go modes ratio of one run by 10–20% at
// once, and a run's interval held another run's median in 64–97% of
// pairs, not the 83% that honest intervals give (#18). So the interval is
// a random-effects one (DerSimonian & Laird 1986, "Meta-analysis in
// clinical trials", Controlled Clinical Trials 7:177–188): each run's
// figure is the case's true figure plus a shift of the run, of variance
// τ², plus the run's own error. τ² is estimated from the runs' medians in
// logs, as their variance less the mean of their own intervals' variance
// (the unweighted moment estimator, Hedges & Olkin 1985, Statistical
// Methods for Meta-Analysis, ch. 9: DerSimonian–Laird's weights would let
// one narrow run decide), and the run's interval is widened on each side,
// in quadrature, by τ times the 97.5% quantile of Student's t with k − 1
// degrees of freedom for k runs, not the normal 1.96: τ is estimated from
// a handful of runs, and a normal quantile would take that estimate for
// the truth (the small-sample correction of Hartung & Knapp 2001,
// Statistics in Medicine 20:3875–3889; Higgins, Thompson & Spiegelhalter
// 2009, JRSS-A 172:137–159). Where the runs agree within their intervals,
// τ is 0 and nothing changes.
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

// CaseSpread is one case's spread between runs: τ, the standard deviation
// of the natural log of its figure between runs, beyond their intervals.
type CaseSpread struct {
	Case    string  `json:"case"` // Run.CaseKey
	Runs    int     `json:"runs"` // runs it was estimated from, this one included
	OpsPerS float64 `json:"ops_per_s_log_sd"`
	Ratio   float64 `json:"ratio_log_sd"`
}

// MinRunsBetween is the fewest runs, this one included, that a spread
// between runs is estimated from: two would give a variance of one degree
// of freedom, and t's quantile for it is 12.7.
const MinRunsBetween = 3

// MaxEarlierRuns is how many earlier runs, newest first, are read: the
// machine of last month is not the machine of today.
const MaxEarlierRuns = 10

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.959964

// t975 are the 97.5% quantiles of Student's t by degrees of freedom, for
// the 2 to MaxEarlierRuns that a spread between runs is estimated with.
var t975 = [...]float64{2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}

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
func (r *Run) CaseKey(c CaseID) string {
	for _, d := range r.Meta.Dirs {
		if d.Dir == c.Dir && d.FreshOf != "" {
			return c.KeyAt(d.FreshOf + " --fresh-fs")
		}
	}
	return c.Key()
}

// MeasureBetween estimates each case's spread between this run (sums are
// its summaries, without a spread between runs) and the earlier runs like
// it, newest first, up to MaxEarlierRuns; from names where they were read.
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
		own := *e.Run
		own.Between = nil // its own intervals, as it measured them
		add(&own, SummarizeAll(&own, baselines))
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

// spreadBetween is τ of the runs' figures (see BetweenRuns) and how many
// runs it came from: those with a bounded interval; 0 below
// MinRunsBetween.
func spreadBetween(est []Estimate) (tau float64, n int) {
	var logs, within []float64
	for _, e := range est {
		if !e.Known() || !e.Bounded() || e.Lo <= 0 || e.Center <= 0 {
			continue
		}
		logs = append(logs, math.Log(e.Center))
		se := (math.Log(e.Hi) - math.Log(e.Lo)) / (2 * z95)
		within = append(within, se*se)
	}
	if len(logs) < MinRunsBetween {
		return 0, len(logs)
	}
	var mean, meanWithin float64
	for i := range logs {
		mean += logs[i]
		meanWithin += within[i]
	}
	mean /= float64(len(logs))
	meanWithin /= float64(len(logs))
	var ss float64
	for _, v := range logs {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(max(0, ss/float64(len(logs)-1)-meanWithin)), len(logs)
}

// widen widens each summary's ops/s and ratio intervals by its case's
// spread between runs.
func (b *BetweenRuns) widen(run *Run, sums []*Summary) {
	by := map[string]CaseSpread{}
	for _, c := range b.Cases {
		by[c.Case] = c
	}
	for _, s := range sums {
		c, ok := by[run.CaseKey(s.CaseID)]
		if !ok || s.Figures != nil {
			continue
		}
		t := t975[min(max(c.Runs-1, 2), len(t975)-1)]
		s.OpsPerS = s.OpsPerS.widenedBy(t * c.OpsPerS)
		s.Ratio = s.Ratio.widenedBy(t * c.Ratio)
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

// BetweenPct is how far a spread between runs of τ reaches at 95%, as a
// fraction of the figure: e^{1.96τ} − 1.
func BetweenPct(tau float64) float64 { return math.Expm1(z95 * tau) }

// Measured reports whether any case's interval includes the spread
// between runs.
func (b *BetweenRuns) Measured() bool { return b != nil && len(b.Cases) > 0 }
