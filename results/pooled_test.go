package results

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestPolygammaKnownValues(t *testing.T) {
	const euler = 0.5772156649015329
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"ψ(1)", digamma(1), -euler},
		{"ψ(1/2)", digamma(0.5), -euler - 2*math.Ln2},
		{"ψ(10)", digamma(10), 2.251752589066721},
		{"ψ′(1)", trigamma(1), math.Pi * math.Pi / 6},
		{"ψ′(1/2)", trigamma(0.5), math.Pi * math.Pi / 2},
		{"ψ′(10)", trigamma(10), 0.1051663356816857},
		{"ψ′⁻¹(ψ′(2.5))", trigammaInverse(trigamma(2.5)), 2.5},
		{"ψ′⁻¹(ψ′(40))", trigammaInverse(trigamma(40)), 40},
	} {
		if math.Abs(tc.got-tc.want) > 1e-9*math.Max(1, math.Abs(tc.want)) {
			t.Errorf("%s = %.12g, want %.12g", tc.name, tc.got, tc.want)
		}
	}
}

// drawVariances draws n cases' sample variances on df degrees of freedom
// whose true variances come from a scaled inverse-χ² of d0 degrees of
// freedom around s0 (d0 = +Inf: every case's is s0).
func drawVariances(r *rand.Rand, n int, df, d0, s0 float64) []float64 {
	chi2 := func(k float64) float64 {
		var s float64
		for range int(k) {
			z := r.NormFloat64()
			s += z * z
		}
		return s
	}
	out := make([]float64, n)
	for i := range out {
		sigma2 := s0
		if !math.IsInf(d0, 1) {
			sigma2 = d0 * s0 / chi2(d0)
		}
		out[i] = sigma2 * chi2(df) / df
	}
	return out
}

// The prior is fitted to what the cases' variances are: given many cases
// drawn from a known prior, it finds its degrees of freedom and scale
// again; given cases whose variances are one, a prior of (nearly)
// infinite degrees of freedom around it; given cases of wildly different
// variances, a weak one that leaves each its own.
func TestFitVarPriorFindsThePrior(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 1))
	df := func(n int, d float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = d
		}
		return out
	}
	drawn := drawVariances(r, 4000, 4, 10, 0.01)
	p := fitVarPrior(drawn, df(len(drawn), 4))
	if p.DF < 7 || p.DF > 14 || p.S2 < 0.009 || p.S2 > 0.011 {
		t.Errorf("prior of d0 = 10, s0² = 0.01: fitted %+v", p)
	}
	alike := drawVariances(r, 4000, 4, math.Inf(1), 0.01)
	if p := fitVarPrior(alike, df(len(alike), 4)); p.DF < 200 || math.Abs(p.S2/0.01-1) > 0.05 {
		t.Errorf("cases of one variance 0.01: fitted %+v, want d0 ≥ 200 around 0.01", p)
	}
	apart := []float64{1e-6, 1e-2, 1e-4, 1, 1e-5, 1e-3}
	if p := fitVarPrior(apart, df(len(apart), 4)); p.DF > 1 {
		t.Errorf("cases six orders of magnitude apart: fitted %+v, want d0 ≤ 1", p)
	}
	if p := fitVarPrior([]float64{0.01, 0.02}, []float64{4, 4}); p.DF != 0 {
		t.Errorf("two cases: fitted %+v, want no prior", p)
	}
}

// A moderated variance lies between the case's own and the prior's, on
// more degrees of freedom than its own, never more than its group had.
func TestModerateWeighsOwnAndPrior(t *testing.T) {
	p := varPrior{S2: 0.01, DF: 12}
	v, d := p.moderate(0.04, 4, 40)
	if want := (12*0.01 + 4*0.04) / 16; math.Abs(v-want) > 1e-15 || d != 16 {
		t.Errorf("moderate = %g on %g, want %g on 16", v, d, want)
	}
	if v, d := (varPrior{S2: 0.01, DF: math.Inf(1)}).moderate(0.04, 4, 20); v != 0.01 || d != 20 {
		t.Errorf("infinite prior: %g on %g, want the prior's 0.01 on the group's 20", v, d)
	}
	if v, d := (varPrior{}).moderate(0.04, 4, 20); v != 0.04 || d != 4 {
		t.Errorf("no prior: %g on %g, want the case's own", v, d)
	}
}

// Over many groups of cases alike in their spread, as the arms of a lab
// are, a 90% prediction interval on the pooled spread holds the next
// draw 90% of the time, as the case's own does, but narrower: the point
// of pooling.
func TestPooledPredictionHoldsAndIsNarrower(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 2))
	const groups, arms, runs, sigma = 400, 8, 5, 0.05
	var heldOwn, heldPooled, n int
	var widthOwn, widthPooled float64
	for range groups {
		cases := make([]CaseSpread, arms)
		next := make([]float64, arms)
		for a := range cases {
			var logs []float64
			for range runs {
				logs = append(logs, sigma*r.NormFloat64())
			}
			sd := sdOf(logs)
			cases[a] = CaseSpread{Runs: runs, Ratio: sd}
			next[a] = logs[0] - sigma*r.NormFloat64() // this run's against the next one's
		}
		poolCases(cases)
		for a, c := range cases {
			if c.RatioPooled == nil {
				t.Fatalf("case %d not pooled: %+v", a, c)
			}
			own, pooled := NextRunHalf(Spread{LogSD: c.Ratio, Runs: runs}), NextRunHalf(c.RatioSpread())
			n++
			if math.Abs(next[a]) <= own {
				heldOwn++
			}
			if math.Abs(next[a]) <= pooled {
				heldPooled++
			}
			widthOwn += own
			widthPooled += pooled
		}
	}
	own, pooled := float64(heldOwn)/float64(n), float64(heldPooled)/float64(n)
	t.Logf("held the next run: own %.3f, pooled %.3f; pooled %.2f× as wide", own, pooled, widthPooled/widthOwn)
	if own < 0.87 || own > 0.93 || pooled < 0.87 || pooled > 0.93 {
		t.Errorf("held the next run: own %.3f, pooled %.3f of %d, want both 0.90 ± 0.03", own, pooled, n)
	}
	if ratio := widthPooled / widthOwn; ratio > 0.9 {
		t.Errorf("pooled intervals %.2f× as wide as the cases' own, want ≤ 0.9×", ratio)
	}
}

func sdOf(v []float64) float64 {
	m := meanOf(v)
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(v)-1))
}
