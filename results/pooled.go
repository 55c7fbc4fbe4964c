package results

import "math"

// The spread between runs of one case comes from few runs (three to ten:
// two to nine degrees of freedom), and a prediction interval built on it
// pays for that twice: Student's t for few degrees of freedom is wide
// (4.30 at 95% for two), and the estimate itself is as likely to be half
// the truth as double it, so some arms get intervals far too narrow and
// others far too wide. The arms of one group share the machine, the
// workers' minutes and the file-system state, so their spreads are
// alike, as far as the data say they are: each case's variance is taken
// as drawn from a scaled inverse-χ² prior common to its group, the prior
// fitted to the cases' variances by moments of their logs (the empirical
// Bayes moderation of Smyth 2004, "Linear models and empirical Bayes
// methods for assessing differential expression", Stat. Appl. Genet. Mol.
// Biol. 3:3, built for many features with few replicates each — as
// Kalibera & Jones 2013, "Rigorous benchmarking in reasonable time",
// pool variance components over the levels of a benchmark). A case's
// moderated variance is the weighted mean of the prior's and its own,
// (d0·s0² + d·s²)/(d0 + d), on d0 + d degrees of freedom: where the group's
// cases spread alike, d0 is large and every case gains its group's degrees
// of freedom; where they differ beyond what few runs explain (an arm that
// syncs beside arms that do not), d0 is small and each case keeps its own.

// Pooled is a spread between runs moderated over the cases of its group:
// the standard deviation of the runs' log medians and the degrees of
// freedom it stands on.
type Pooled struct {
	LogSD float64 `json:"log_sd"`
	DF    float64 `json:"df"`
}

// varPrior is a group's prior for its cases' variances between runs: a
// scaled inverse-χ² with DF degrees of freedom around S2. DF 0 pools
// nothing; +Inf, a group whose cases spread alike as far as they can tell.
type varPrior struct {
	S2, DF float64
}

// minCasesToPool is the fewest cases whose spreads a prior is fitted to:
// the spread of two log variances says nothing of how alike they are.
const minCasesToPool = 3

// fitVarPrior fits the prior to the cases' variances s2[i], each on df[i]
// degrees of freedom, by the moments of their logs: log s² has mean
// log σ² + ψ(d/2) − log(d/2) and variance ψ′(d/2) about a case's own σ², so
// what the logs spread beyond the mean ψ′ is the spread of the cases'
// σ² themselves, ψ′(d0/2), and that gives d0 (Smyth 2004, §6.2).
func fitVarPrior(s2, df []float64) varPrior {
	var e, sampling []float64
	for i := range s2 {
		if s2[i] <= 0 || df[i] <= 0 || !finite(s2[i]) {
			continue
		}
		e = append(e, math.Log(s2[i])-digamma(df[i]/2)+math.Log(df[i]/2))
		sampling = append(sampling, trigamma(df[i]/2))
	}
	if len(e) < minCasesToPool {
		return varPrior{}
	}
	mean, meanSampling := meanOf(e), meanOf(sampling)
	var ss float64
	for _, v := range e {
		ss += (v - mean) * (v - mean)
	}
	beyond := ss/float64(len(e)-1) - meanSampling
	if beyond <= 0 {
		return varPrior{S2: math.Exp(mean), DF: math.Inf(1)}
	}
	d0 := 2 * trigammaInverse(beyond)
	return varPrior{S2: math.Exp(mean + digamma(d0/2) - math.Log(d0/2)), DF: d0}
}

// moderate is a case's variance s2 on df degrees of freedom moderated by
// the prior, and the degrees of freedom it then stands on: at most
// maxDF, all that its group's cases measured together (a prior of
// infinite degrees of freedom is a fit to those cases, not knowledge).
func (p varPrior) moderate(s2, df, maxDF float64) (float64, float64) {
	if p.DF <= 0 || df <= 0 {
		return s2, df
	}
	total := math.Min(p.DF+df, maxDF)
	if math.IsInf(p.DF, 1) {
		return p.S2, total
	}
	return (p.DF*p.S2 + df*s2) / (p.DF + df), total
}

func meanOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// digamma is ψ(x), x > 0: the recurrence ψ(x) = ψ(x+1) − 1/x up to 6,
// then its asymptotic series (Abramowitz & Stegun 6.3.18), good to 1e-10.
func digamma(x float64) float64 {
	var r float64
	for ; x < 6; x++ {
		r -= 1 / x
	}
	f := 1 / (x * x)
	return r + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f/132))))
}

// trigamma is ψ′(x), x > 0, likewise (A&S 6.4.12).
func trigamma(x float64) float64 {
	var r float64
	for ; x < 6; x++ {
		r += 1 / (x * x)
	}
	f := 1 / (x * x)
	return r + 1/x + f/2 + f/x*(1.0/6-f*(1.0/30-f*(1.0/42-f/30)))
}

// trigammaInverse is the x > 0 with ψ′(x) = y, y > 0: ψ′ falls from +∞ to 0,
// so bisection on log x finds it.
func trigammaInverse(y float64) float64 {
	lo, hi := math.Log(1e-8), math.Log(1e8)
	for range 200 {
		mid := (lo + hi) / 2
		if trigamma(math.Exp(mid)) > y {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}
