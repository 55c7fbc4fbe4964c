package results

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"
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
// pairs, not the 80% a reader may expect of it (#18). So each run's
// figure is taken as the case's figure plus a shift of the run plus the
// run's own error (the random-effects model, DerSimonian & Laird 1986,
// "Meta-analysis in clinical trials", Controlled Clinical Trials
// 7:177–188), and s, the standard deviation of the runs' medians (in
// logs), measures both at once. What a printed interval promises is the
// next run's figure (#29: at least 80% of the time, and no wider than
// that needs): the next run's median and the mean of these n runs' differ
// by a normal of variance σ²(1+1/n), so the interval reaches t·√(1+1/n)·s
// each side of the runs' geometric mean, t Student's 97.5% quantile (a 95%
// prediction interval) for the degrees of freedom s stands on, s pooled
// over the cases of the group that spread alike (see Pooled), and holds
// this run's median besides. Issue 18 added 1.96·s to the own interval in
// quadrature, counting the run's own error twice (once in s, once in its
// own interval); #29 centred t·√2·s on this run's median, on the case's
// own n−1 degrees of freedom, which held as often and was 1.3–1.6× as
// wide (#43).
type BetweenRuns struct {
	// From is the directory the earlier runs were read from.
	From string `json:"from"`
	// Runs are the earlier runs like this one (see Alike) that were read,
	// as their directories' names, newest first.
	Runs []string `json:"runs"`
	// Cases are the spreads between runs of each case found in at least
	// MinRunsBetween runs, this one included.
	Cases []CaseSpread `json:"cases,omitempty"`
	// LeftOut are the runs beside it that were not replicates of it (see
	// compare.NotReplicate): their differences are not noise.
	LeftOut []LeftOut `json:"left_out,omitempty"`
}

// LeftOut is a saved run beside another that is not a replicate of it,
// and why: what differs that can move its numbers ("mounted nobarrier",
// "kernel_release 6.1.0-27", "more work: flushes/op 2 → 3").
type LeftOut struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// LeftOutText says which runs were left out and why, a reason once with
// its count: "2 runs beside it left out: mounted nobarrier; 1: kernel
// 6.1.0"; "" for none.
func LeftOutText(l []LeftOut) string {
	if len(l) == 0 {
		return ""
	}
	var reasons []string
	count := map[string]int{}
	for _, o := range l {
		if count[o.Reason] == 0 {
			reasons = append(reasons, o.Reason)
		}
		count[o.Reason]++
	}
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d: %s", count[r], r)
		if i == 0 {
			runs := "runs"
			if count[r] == 1 {
				runs = "run"
			}
			parts[i] = fmt.Sprintf("%d %s beside it left out: %s", count[r], runs, r)
		}
	}
	return strings.Join(parts, "; ")
}

// CaseSpread is one case's spread between runs: the standard deviation of
// the natural log of its median over the runs.
type CaseSpread struct {
	Case    string  `json:"case"` // Run.CaseKey's Name
	Runs    int     `json:"runs"` // runs it was estimated from, this one included
	OpsPerS float64 `json:"ops_per_s_log_sd"`
	Ratio   float64 `json:"ratio_log_sd"`
	// OpsPerSPooled and RatioPooled are the spreads pooled over the
	// cases of the group that spread alike, with the runs' mean (see
	// Pooled), which the intervals and tests use; nil in runs saved before
	// #43 (zero), whose intervals took the case's own spread on Runs − 1 degrees
	// of freedom around the run's own median.
	OpsPerSPooled Pooled `json:"ops_per_s_pooled,omitzero"`
	RatioPooled   Pooled `json:"ratio_pooled,omitzero"`
}

// OpsSpread is the spread of the case's ops/s the intervals and tests
// use: the pooled one where there is one, else its own.
func (c CaseSpread) OpsSpread() Spread { return c.spread(c.OpsPerS, c.OpsPerSPooled) }

// RatioSpread is the same for its ratio to the baseline.
func (c CaseSpread) RatioSpread() Spread { return c.spread(c.Ratio, c.RatioPooled) }

func (c CaseSpread) spread(own float64, pooled Pooled) Spread {
	if pooled.DF > 0 {
		return Spread{LogSD: pooled.LogSD, Runs: c.Runs, DF: pooled.DF, Center: pooled.Center}
	}
	return Spread{LogSD: own, Runs: c.Runs}
}

// MinRunsBetween is the fewest runs, this one included, that a spread
// between runs is estimated from: two give a standard deviation of one
// degree of freedom, below a third of the truth one time in four.
const MinRunsBetween = 3

// MaxEarlierRuns is how many earlier runs, newest first, are read: the
// machine of last month is not the machine of today.
const MaxEarlierRuns = 10

// NextRunCover is how often a printed interval with the spread between
// runs holds the next run's median: the project's promise for it.
const NextRunCover = 0.80

// nextRunLevel is the nominal level of the prediction interval that keeps
// that promise: runs are not draws from one distribution (the host drifts
// between them), and a nominal 80% held less. Around one run's median on
// its own spread (#29) 0.90 held 80–100% in six settings; around the runs'
// mean on the pooled spread (#43), whose t has more degrees of freedom,
// 0.90 held 73% of later runs beside two CPU hogs (modes python, /tmp)
// and 0.95 79–99% in six settings, 0.75× as wide as #29's (see Pooled).
const (
	nextRunLevel       = 0.95
	nextRunLevelOwnRun = 0.90 // runs saved before #43: around their own median
)

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

// CaseKey is a case across runs: the case at the work dir the user named.
// A --fresh-fs run's work dir is a new mount each time, so it is named by
// the dir it was made to match.
func (r *Run) CaseKey(c CaseID) CaseID { return c.At(FreshName(r.Meta, c.Dir)) }

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
	byCase := map[CaseID]*figures{}
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
	for _, group := range GroupInOrder(sums, func(s *Summary) CaseID { return poolGroup(s.CaseID) }) {
		var cases []CaseSpread
		var centers [][2]float64
		for _, s := range group {
			k := run.CaseKey(s.CaseID)
			f := byCase[k]
			ops, n, opsCenter := spreadBetween(f.ops)
			ratio, nr, ratioCenter := spreadBetween(f.ratio)
			if n < MinRunsBetween && nr < MinRunsBetween {
				continue
			}
			cases = append(cases, CaseSpread{Case: k.Name(), Runs: max(n, nr), OpsPerS: roundSig(ops), Ratio: roundSig(ratio)})
			centers = append(centers, [2]float64{opsCenter, ratioCenter})
		}
		poolCases(cases, centers)
		b.Cases = append(b.Cases, cases...)
	}
	return b
}

// poolGroup is the group whose cases' spreads are pooled where they are
// alike: one lab in one runtime and work dir, every parameter of it. The
// cases of a lab share its worker processes' generations, the directory
// and the minutes of the run.
func poolGroup(c CaseID) CaseID { return CaseID{Lab: c.Lab, Runtime: c.Runtime, Dir: c.Dir} }

// poolCases pools the spreads of one group's cases that spread alike (see
// Pooled): the ops/s spreads together, and the ratios' together; centers
// are each case's geometric means of the runs' ops/s and ratio.
func poolCases(cases []CaseSpread, centers [][2]float64) {
	pool := func(side int, own func(*CaseSpread) float64, set func(*CaseSpread, Pooled)) {
		sd, df := make([]float64, len(cases)), make([]float64, len(cases))
		for i := range cases {
			sd[i], df[i] = own(&cases[i]), float64(cases[i].Runs-1)
		}
		psd, pdf := poolAlike(sd, df)
		for i := range cases {
			if psd[i] > 0 {
				// Pooling gives a case the degrees of freedom of those
				// alike, never a spread below its own: an arm that drifts
				// more than its cluster (fsync's under CPU hogs) kept at
				// the cluster's held half the later runs it should.
				set(&cases[i], Pooled{LogSD: roundSig(max(psd[i], sd[i])), DF: pdf[i], Center: roundSig(centers[i][side])})
			}
		}
	}
	pool(0, func(c *CaseSpread) float64 { return c.OpsPerS }, func(c *CaseSpread, p Pooled) { c.OpsPerSPooled = p })
	pool(1, func(c *CaseSpread) float64 { return c.Ratio }, func(c *CaseSpread, p Pooled) { c.RatioPooled = p })
}

// spreadBetween is the standard deviation of the logs of the runs'
// figures, how many runs it came from, and their geometric mean; 0 below
// MinRunsBetween.
func spreadBetween(est []Estimate) (sd float64, n int, center float64) {
	var logs []float64
	for _, e := range est {
		if e.Known() && e.Center > 0 {
			logs = append(logs, math.Log(e.Center))
		}
	}
	if len(logs) < MinRunsBetween {
		return 0, len(logs), 0
	}
	mean := meanOf(logs)
	var ss float64
	for _, v := range logs {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / float64(len(logs)-1)), len(logs), math.Exp(mean)
}

func meanOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Widen makes each summary's ops/s and ratio intervals the prediction
// intervals of the next run's median, from its case's spread between runs
// (see BetweenRuns). The run's own interval is left out: the spread of the
// runs' medians already holds each run's own error, and the own interval
// of ten generations (20% wide on a quiet /dev/shm) is wider than the
// runs' spread needs. SummarizeAll applies a run's recorded spread; a live
// run that has just measured it applies it to the summaries it measured
// it with.
func (b *BetweenRuns) Widen(run *Run, sums []*Summary) {
	for _, s := range sums {
		c, ok := b.Spread(run.CaseKey(s.CaseID))
		if !ok || s.Recorded != nil {
			continue
		}
		s.OpsPerS = s.OpsPerS.predicting(c.OpsSpread())
		s.Ratio = s.Ratio.predicting(c.RatioSpread())
	}
}

// Spread is the recorded spread between runs of a case (Run.CaseKey), and
// whether there is one. The file names its cases as every run.json saved
// so far does (CaseID.Name): the key is matched by that spelling.
func (b *BetweenRuns) Spread(key CaseID) (CaseSpread, bool) {
	if b == nil {
		return CaseSpread{}, false
	}
	name := key.Name()
	for _, c := range b.Cases {
		if c.Case == name {
			return c, true
		}
	}
	return CaseSpread{}, false
}

// NextRunHalf is the half-width, in logs, of an interval that holds the
// next run's median (NextRunCover of the time, as measured), when the
// runs' medians have the spread s: t·k·sd, t Student's quantile of the
// level for the degrees of freedom the spread stands on; k √2 around one
// run's median (runs saved before #43) and √(1+1/n) around the mean of n
// runs' (see Pooled). 0 without a spread.
func NextRunHalf(s Spread) float64 {
	if s.LogSD <= 0 || s.df() < 1 {
		return 0
	}
	k, level := math.Sqrt2, nextRunLevelOwnRun
	if s.Center > 0 && s.Runs > 0 {
		k, level = math.Sqrt(1+1/float64(s.Runs)), nextRunLevel
	}
	return StudentQuantile((1+level)/2, s.df()) * k * s.LogSD
}

// predicting makes e's interval the next run's, from the spread s: around
// its center, or around s.Center (the runs' mean) where it has one,
// widened to hold e's center. An unbounded interval (too few generations)
// stays unbounded.
func (e Estimate) predicting(s Spread) Estimate {
	half := NextRunHalf(s)
	if half <= 0 || !e.Bounded() || e.Lo <= 0 || e.Center <= 0 {
		return e
	}
	mid := e.Center
	if s.Center > 0 {
		mid = s.Center
	}
	e.Lo, e.Hi = math.Min(mid*math.Exp(-half), e.Center), math.Max(mid*math.Exp(half), e.Center)
	return e
}

// NextRunPct is how far an interval with the spread between runs s
// reaches, as a fraction of the figure: e^half − 1.
func NextRunPct(s Spread) float64 { return math.Expm1(NextRunHalf(s)) }

// Measured reports whether any case's interval includes the spread
// between runs.
func (b *BetweenRuns) Measured() bool { return b != nil && len(b.Cases) > 0 }

// StudentQuantile is the p quantile of Student's t with df degrees of
// freedom (p in (0, 1)).
func StudentQuantile(p, df float64) float64 {
	t := stats.TDist{V: df}
	lo, hi := -1e3, 1e3
	for range 200 {
		mid := (lo + hi) / 2
		if t.CDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// StudentTwoSidedP is the two-sided p-value of a t statistic with df
// degrees of freedom.
func StudentTwoSidedP(x, df float64) float64 {
	return 2 * (1 - stats.TDist{V: df}.CDF(math.Abs(x)))
}
