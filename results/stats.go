package results

import (
	"encoding/json"
	"math"
	"sort"

	"golang.org/x/perf/benchmath"
)

// confidence is the level of every interval tmpprobe prints.
const confidence = 0.95

// MinRoundsForCI is the fewest samples that give a 95% interval of the
// median from order statistics: with five, the interval is unbounded.
const MinRoundsForCI = 6

// Estimate is the median of per-round samples with its 95% confidence
// interval, as benchstat computes them (golang.org/x/perf/benchmath: the
// interval comes from order statistics, so it assumes no distribution).
// Lo and Hi are ±Inf when there are too few samples for an interval, and
// NaN when the figure has none by construction (a ratio of medians).
type Estimate struct {
	Center float64
	Lo, Hi float64
	N      int
}

// Median estimates the median of values (which it does not modify).
func Median(values []float64) Estimate {
	if len(values) == 0 {
		return Estimate{}
	}
	v := append([]float64(nil), values...)
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample(v, &benchmath.DefaultThresholds), confidence)
	return Estimate{Center: s.Center, Lo: s.Lo, Hi: s.Hi, N: len(values)}
}

// Point is an estimate without an interval.
func Point(v float64) Estimate {
	return Estimate{Center: v, Lo: math.NaN(), Hi: math.NaN(), N: 1}
}

// Known reports whether there is a figure at all.
func (e Estimate) Known() bool { return e.N > 0 && e.Center != 0 && finite(e.Center) }

// Bounded reports whether the interval is finite.
func (e Estimate) Bounded() bool { return e.N > 0 && finite(e.Lo) && finite(e.Hi) }

// Contains reports whether v lies inside a bounded interval.
func (e Estimate) Contains(v float64) bool { return e.Bounded() && e.Lo <= v && v <= e.Hi }

// scale multiplies every figure by k (ops/s into MiB/s).
func (e Estimate) scale(k float64) Estimate {
	return Estimate{Center: e.Center * k, Lo: e.Lo * k, Hi: e.Hi * k, N: e.N}
}

// HalfWidthPct is the larger distance from the center to a bound, in
// percent of the center: benchstat's "± 3%".
func (e Estimate) HalfWidthPct() float64 {
	if !e.Bounded() || e.Center == 0 {
		return math.Inf(1)
	}
	return 100 * math.Max(e.Hi/e.Center-1, 1-e.Lo/e.Center)
}

// MarshalJSON writes {"median", "lo", "hi", "n"}; the bounds are left out
// when there is no finite interval (JSON has no ∞).
func (e Estimate) MarshalJSON() ([]byte, error) {
	type bounded struct {
		Median float64  `json:"median"`
		Lo     *float64 `json:"lo,omitempty"`
		Hi     *float64 `json:"hi,omitempty"`
		N      int      `json:"n"`
	}
	out := bounded{Median: roundSig(e.Center), N: e.N}
	if e.Bounded() {
		lo, hi := roundSig(e.Lo), roundSig(e.Hi)
		out.Lo, out.Hi = &lo, &hi
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes; missing bounds are +-Inf.
func (e *Estimate) UnmarshalJSON(b []byte) error {
	var in struct {
		Median float64  `json:"median"`
		Lo     *float64 `json:"lo"`
		Hi     *float64 `json:"hi"`
		N      int      `json:"n"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	*e = Estimate{Center: in.Median, Lo: math.Inf(-1), Hi: math.Inf(1), N: in.N}
	if in.Lo != nil && in.Hi != nil {
		e.Lo, e.Hi = *in.Lo, *in.Hi
	}
	return nil
}

// roundSig keeps six significant digits: more than any rate or ratio
// measured here can claim, and stable in golden files.
func roundSig(v float64) float64 {
	if v == 0 || !finite(v) {
		return 0
	}
	scale := math.Pow(10, 5-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*scale) / scale
}

// compareSamples runs benchstat's test of two samples: Mann–Whitney U at
// α = 0.05. Its Warnings say when the samples are too small for any
// difference to be significant.
func compareSamples(a, b []float64) benchmath.Comparison {
	t := &benchmath.DefaultThresholds
	return benchmath.AssumeNothing.Compare(benchmath.NewSample(append([]float64(nil), a...), t),
		benchmath.NewSample(append([]float64(nil), b...), t))
}

// Indistinct reports whether the U test cannot tell two samples apart
// (p > α) with enough of them (MinRoundsToCompare a side) that it could
// have: too few samples are never called the same.
func Indistinct(a, b []float64) bool {
	c := compareSamples(a, b)
	return min(len(a), len(b)) >= MinRoundsToCompare && c.P > c.Alpha
}

// Verdicts of a comparison between two runs.
const (
	VerdictChanged = "changed" // p < α and the change at least the minimum effect
	VerdictSame    = "~"       // benchstat's mark: no change told apart from noise
	VerdictTooFew  = "too few samples"
)

// MinRoundsToCompare is the fewest rounds a side needs before the U test
// can reach α = 0.05 at all (with four a side its smallest p is 0.029).
const MinRoundsToCompare = 4

// Alpha is the significance level of every comparison between runs.
const Alpha = 0.05

// Comparison is one figure of an arm in two runs: the median and interval
// in each, the change of the medians, and benchstat's decision on it.
type Comparison struct {
	Old      Estimate `json:"old"`
	New      Estimate `json:"new"`
	DeltaPct float64  `json:"delta_pct"`
	// P is the p-value of the change: the Mann–Whitney U test's for the
	// units of the two runs being one distribution, or, with a spread
	// between runs, the larger of that and PBetween.
	P float64 `json:"p"`
	// NOld and NNew are the samples the U test compared: worker
	// generations (rounds where a run has none).
	NOld int `json:"n_old"`
	NNew int `json:"n_new"`
	// PBetween is the p-value of the change against the spread between
	// runs (Spread), when earlier runs gave one: how often two runs of
	// one setting differ as much.
	PBetween float64 `json:"p_between_runs,omitempty"`
	Between  *Spread `json:"between_runs,omitempty"`
	Verdict  string  `json:"verdict"`
}

// Spread is a figure's spread between runs: the standard deviation of the
// runs' log medians, how many runs it came from (see BetweenRuns), and
// the degrees of freedom it stands on when pooled over the cases of its
// group that spread alike (see Pooled; 0: its own, Runs − 1).
type Spread struct {
	LogSD float64 `json:"log_sd"`
	Runs  int     `json:"runs"`
	DF    float64 `json:"df,omitempty"`
	// Center is the runs' geometric mean, where a pooled spread's
	// prediction interval is centred (see Pooled); 0: around one run.
	Center float64 `json:"-"`
}

// Known reports whether there is a spread to count.
func (s Spread) Known() bool { return s.LogSD > 0 && s.Runs >= MinRunsBetween }

// Tellable is the smallest change a diff of one run a side tells from
// none four times in five against the spread between runs s (a
// two-sided test at α, the change of the log medians over √2·s Student's
// t): (t_{1−α/2} + t_{0.8})·√2·s on s's degrees of freedom, now, and on
// as many as runs saved beside can give, limit; as fractions of the
// figure. Below limit no number of earlier runs tells a change: two
// runs' medians differ by that much as often as not, and a smaller
// change must be measured within one run, where its rounds pair (#43).
func (s Spread) Tellable() (now, limit float64) {
	if s.LogSD <= 0 || s.df() < 1 {
		return 0, 0
	}
	at := func(df float64) float64 {
		return math.Expm1((StudentQuantile(1-Alpha/2, df) + StudentQuantile(0.8, df)) * math.Sqrt2 * s.LogSD)
	}
	return at(s.df()), at(1e6)
}

// DegreesOfFreedom is what the spread stands on: Runs − 1 for a case's
// own, more where it is pooled.
func (s Spread) DegreesOfFreedom() float64 { return s.df() }

// df is the degrees of freedom of the spread.
func (s Spread) df() float64 {
	if s.DF > 0 {
		return s.DF
	}
	return float64(s.Runs - 1)
}

// Compare decides whether a figure changed between two runs from its
// per-unit samples, as benchstat does: a Mann–Whitney U test at α = 0.05,
// and a change of at least minEffectPct percent besides, so that a
// significant 1% does not count. With fewer samples than the test needs
// to ever reach α (four a side), the verdict says so instead.
func Compare(old, cur []float64, minEffectPct float64) Comparison {
	return CompareRuns(Median(old), Median(cur), old, cur, Spread{}, minEffectPct)
}

// CompareRuns is Compare of two runs' figures as the runs print them (old
// and cur: the centre and interval of each, which the change is taken
// between), with the U test over their units' samples, and, when earlier
// runs gave a spread between runs, a test against it besides: one run's
// median and another's differ by a normal of variance 2s² when nothing
// changed (the model the intervals use, see BetweenRuns), so the change
// of the log medians over √2·s is Student's t on the degrees of freedom
// s stands on (n−1 for n runs, more where it is pooled over the cases of
// its group: see Pooled). A change counts only when both tests call it (an
// intersection–union test, still of level α): a shift no generation of
// either run could see, but which the runs before them show is as common
// as the weather, is not a change (#29).
func CompareRuns(old, cur Estimate, oldUnits, curUnits []float64, between Spread, minEffectPct float64) Comparison {
	c := Comparison{Old: old, New: cur, P: 1, NOld: len(oldUnits), NNew: len(curUnits)}
	if c.Old.Center != 0 {
		c.DeltaPct = RoundTo((c.New.Center/c.Old.Center-1)*100, 100)
	}
	u := compareSamples(oldUnits, curUnits)
	p := u.P
	if between.Known() && old.Center > 0 && cur.Center > 0 {
		b := between
		c.Between = &b
		c.PBetween = roundSig(StudentTwoSidedP(math.Log(cur.Center/old.Center)/(math.Sqrt2*between.LogSD), between.df()))
		p = math.Max(p, c.PBetween)
	}
	c.P = roundSig(p)
	switch {
	case u.P >= Alpha && min(len(oldUnits), len(curUnits)) < MinRoundsToCompare:
		c.Verdict = VerdictTooFew
	case p < Alpha && math.Abs(c.DeltaPct) >= minEffectPct:
		c.Verdict = VerdictChanged
	default:
		c.Verdict = VerdictSame
	}
	return c
}

// CountFloor is the smallest change of a count per op that is a change
// of work: a twentieth of an event per op (a syscall every twenty ops),
// or, of bytes, 64 (a cache line) per op.
const (
	CountFloor      = 0.05
	CountFloorBytes = 64
)

// CountChanged says whether a count of work per op changed between two
// runs, from the pooled figures (old and cur per op) and, when the runs
// have units, their per-unit samples. "The same count" is decided by the
// count's own spread (#29): exact counts (a syscall's calls) are the same
// in every generation, but some are shared between ops (a journal commit
// covers whatever ops ran in its 5 s), and how many ops shared them moves
// with the machine's speed. So a count changed only when it moved by more
// than its generations spread in either run (the range of their
// samples), by minEffectPct percent or more of the larger, and by
// CountFloor or more.
func CountChanged(oldUnits, curUnits []float64, old, cur, minEffectPct float64, bytes bool) bool {
	d := math.Abs(cur - old)
	floor := CountFloor
	if bytes {
		floor = CountFloorBytes
	}
	if d < floor || d < minEffectPct/100*math.Max(math.Abs(old), math.Abs(cur)) {
		return false
	}
	return d > math.Max(spanOf(oldUnits), spanOf(curUnits))
}

// spanOf is max − min of values; 0 for none.
func spanOf(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	lo, hi := values[0], values[0]
	for _, v := range values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return hi - lo
}

// RoundTo rounds v to 1/scale (scale 10: one decimal); ±Inf and NaN
// become 0, as JSON has neither.
func RoundTo(v, scale float64) float64 {
	if !finite(v) {
		return 0
	}
	return math.Round(v*scale) / scale
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// Unit is one sample of a figure with the independent unit it was drawn
// in: the worker generation of its round (see Batch.Generation).
type Unit struct {
	Unit  int
	Value float64
}

// UnitSummaries reduces samples to one per unit, the median of the unit's
// samples, in order of the units' first appearance.
//
// Rounds of one worker generation are not independent draws: they share
// the worker processes and the group directory, so its block group and
// the state of the file system around it (on an ext4 without a journal,
// what inode allocation has to skip moves in stretches of rounds). An
// interval that took each round as a sample would count one state many
// times and come out too narrow: on /tmp, 40 rounds' 95% intervals held
// another run's median about half the time (#18). So the unit of every
// interval and test is the generation, summarized by its median — the
// analysis of cluster summaries, which is what resampling clusters, not
// observations, comes to for a median (Davison & Hinkley 1997, Bootstrap
// Methods and their Application, §3.8; Field & Welsh 2007, "Bootstrapping
// clustered data", JRSS-B 69:369–390) — and few units give a wide or
// unbounded interval, never a narrow one.
func UnitSummaries(samples []Unit) []float64 {
	var order []int
	by := map[int][]float64{}
	for _, s := range samples {
		if _, ok := by[s.Unit]; !ok {
			order = append(order, s.Unit)
		}
		by[s.Unit] = append(by[s.Unit], s.Value)
	}
	out := make([]float64, 0, len(order))
	for _, u := range order {
		out = append(out, Median(by[u]).Center)
	}
	return out
}

// ClusteredMedian is the median of every sample with the 95% interval of
// the median of the units' summaries (see UnitSummaries), widened to hold
// the center should it fall outside; N counts units, not samples. The
// center pools every round, the most precise estimate there is; its
// interval counts only what is independent. (Measured over five runs of
// the modes lab on /dev/shm, this held another run's median in 85% of
// pairs; the median of the units' medians as the center, in 72%: a
// generation's median of two rounds is their mean, and takes a preempted
// batch in full.)
//
// Consecutive generations can still share a state that outlasts them (a
// device slow for a minute, deletions skipped for a minute, a build
// running beside the run): then the units' summaries, in the order they
// ran, are correlated with their neighbours, and they are worth fewer
// independent units than there are. With a positive lag-1 correlation ρ
// of their ranks they count as n(1−ρ)/(1+ρ), the effective size of a
// first-order autoregressive sample (von Storch & Zwiers 1999,
// Statistical Analysis in Climate Research, §17.1), and the interval is
// the one that many would give: wider. Every positive ρ counts, not only
// a significant one: ten generations seldom show a drift significant, and
// treating an unproven one as none made intervals too narrow. Worth fewer
// than six, the interval is the range of all units.
func ClusteredMedian(samples []Unit) Estimate {
	units := UnitSummaries(samples)
	all := make([]float64, len(samples))
	for i, s := range samples {
		all[i] = s.Value
	}
	center := Median(all).Center
	e := Median(units)
	if n := effectiveUnits(units); n < float64(len(units)) {
		e = medianAsIf(units, n)
	}
	e.Center = center
	if e.Bounded() {
		e.Lo, e.Hi = math.Min(e.Lo, center), math.Max(e.Hi, center)
	}
	return e
}

// effectiveUnits is how many independent samples x, in the order it was
// drawn, is worth: n(1−ρ)/(1+ρ) for a positive lag-1 correlation ρ of its
// ranks, n otherwise.
func effectiveUnits(x []float64) float64 {
	n := float64(len(x))
	if len(x) < 3 {
		return n
	}
	// Ranked at six significant digits, as the figures are stored: values
	// that differ only by float rounding are ties, not an order.
	rounded := make([]float64, len(x))
	for i, v := range x {
		rounded[i] = roundSig(v)
	}
	r := ranks(rounded)
	var mean float64
	for _, v := range r {
		mean += v
	}
	mean /= n
	var num, den float64
	for i := range r {
		d := r[i] - mean
		den += d * d
		if i+1 < len(r) {
			num += d * (r[i+1] - mean)
		}
	}
	if den == 0 || num <= 0 {
		return n
	}
	rho := num / den
	return n * (1 - rho) / (1 + rho)
}

// medianAsIf is the median of x with the 95% interval its order
// statistics give when x is worth only n independent samples: the normal
// approximation of the median's rank interval, 1/2 ± 1.96/(2√n) of the
// way through x, rounded outwards (for n = len(x) this is the interval
// benchmath gives: the 2nd and 9th of 10, the 6th and 15th of 20). N
// stays len(x): what a figure was computed from, which tests between runs
// count.
func medianAsIf(x []float64, n float64) Estimate {
	e := Median(x)
	h := 1.96 / (2 * math.Sqrt(n))
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	lo := int(math.Floor(float64(len(s)) * (0.5 - h)))
	hi := int(math.Ceil(float64(len(s))*(0.5+h))) - 1
	if len(s) < MinRoundsForCI {
		return e // unbounded already, however they correlate
	}
	if n < MinRoundsForCI || lo < 0 || hi >= len(s) {
		// Worth fewer samples than any 95% interval needs: the widest
		// interval the run has, all of it, rather than none. (±∞ here
		// came in 10–30% of a run's ratios, as ten generations' lag-1
		// correlation is above 0.25 by chance alone one time in five.)
		e.Lo, e.Hi = s[0], s[len(s)-1]
		return e
	}
	e.Lo, e.Hi = s[lo], s[hi]
	return e
}

// ranks are the 1-based ranks of x, ties given their mean rank.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		for k := i; k <= j; k++ {
			r[idx[k]] = float64(i+j)/2 + 1
		}
		i = j + 1
	}
	return r
}
