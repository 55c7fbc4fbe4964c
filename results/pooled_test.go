package results

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Cases whose variances an F test cannot tell apart are pooled, on the
// sum of their degrees of freedom; a case ten times as spread as those
// below it starts a cluster of its own; a case with no spread stays out.
func TestPoolAlike(t *testing.T) {
	sd := []float64{0.04, 0.5, 0.045, 0, 0.6, 0.05, 0.55}
	df := []float64{4, 4, 4, 4, 4, 4, 4}
	psd, pdf := poolAlike(sd, df)
	low := math.Sqrt((0.04*0.04 + 0.045*0.045 + 0.05*0.05) / 3)
	high := math.Sqrt((0.5*0.5 + 0.55*0.55 + 0.6*0.6) / 3)
	for i, want := range []struct{ sd, df float64 }{{low, 12}, {high, 12}, {low, 12}, {0, 0}, {high, 12}, {low, 12}, {high, 12}} {
		if math.Abs(psd[i]-want.sd) > 1e-12 || pdf[i] != want.df {
			t.Errorf("case %d (sd %g): pooled %g on %g df, want %g on %g", i, sd[i], psd[i], pdf[i], want.sd, want.df)
		}
	}
	// Variances 4× apart on two degrees of freedom each are alike as far
	// as three runs can tell; on 40, they are not.
	if _, pdf := poolAlike([]float64{0.05, 0.1}, []float64{2, 2}); pdf[1] != 4 {
		t.Errorf("4× apart on 2 df: %v, want pooled", pdf)
	}
	if _, pdf := poolAlike([]float64{0.05, 0.1}, []float64{40, 40}); pdf[1] != 40 {
		t.Errorf("4× apart on 40 df: %v, want apart", pdf)
	}
}

// Over many groups shaped as the modes lab is (five arms spread alike,
// three that sync spread ten times more), five runs each, the next run's
// 95% interval from the pooled spread around the runs' mean holds it at
// least as often as #29's 90% one from the case's own spread around its
// own run, for the spread arms too, and is narrower.
func TestPooledPredictionHoldsAndIsNarrower(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 2))
	sigma := []float64{0.04, 0.04, 0.04, 0.04, 0.04, 0.4, 0.4, 0.4}
	const groups, runs = 500, 5
	var n, heldOwn, heldPooled, nSpread, heldSpread int
	var widthOwn, widthPooled float64
	for range groups {
		cases := make([]CaseSpread, len(sigma))
		centers := make([][2]float64, len(sigma))
		this, next := make([]float64, len(sigma)), make([]float64, len(sigma))
		for a, s := range sigma {
			var logs []float64
			for range runs {
				logs = append(logs, s*r.NormFloat64())
			}
			m := meanOf(logs)
			var ss float64
			for _, v := range logs {
				ss += (v - m) * (v - m)
			}
			cases[a] = CaseSpread{Runs: runs, Ratio: math.Sqrt(ss / (runs - 1))}
			centers[a] = [2]float64{1, math.Exp(m)}
			this[a], next[a] = logs[runs-1], s*r.NormFloat64()
		}
		poolCases(cases, centers)
		for a, c := range cases {
			own := Estimate{Center: math.Exp(this[a]), Lo: 0.5, Hi: 2, N: 10}.predicting(Spread{LogSD: c.Ratio, Runs: runs})
			pooled := Estimate{Center: math.Exp(this[a]), Lo: 0.5, Hi: 2, N: 10}.predicting(c.RatioSpread())
			n++
			v := math.Exp(next[a])
			if own.Contains(v) {
				heldOwn++
			}
			if pooled.Contains(v) {
				heldPooled++
				if sigma[a] > 0.1 {
					heldSpread++
				}
			}
			if sigma[a] > 0.1 {
				nSpread++
			}
			widthOwn += math.Log(own.Hi / own.Lo)
			widthPooled += math.Log(pooled.Hi / pooled.Lo)
		}
	}
	own, pooled, spread := float64(heldOwn)/float64(n), float64(heldPooled)/float64(n), float64(heldSpread)/float64(nSpread)
	t.Logf("held the next run: own %.3f, pooled %.3f (the spread arms %.3f); pooled %.2f× as wide", own, pooled, spread, widthPooled/widthOwn)
	if pooled < own || spread < own {
		t.Errorf("held the next run: own %.3f, pooled %.3f, its spread arms %.3f; want the pooled ≥ the own", own, pooled, spread)
	}
	if ratio := widthPooled / widthOwn; ratio > 0.95 {
		t.Errorf("pooled intervals %.2f× as wide as the cases' own, want narrower", ratio)
	}
}
