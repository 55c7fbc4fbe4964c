package results

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/mathx"
)

// The spread between runs of one case comes from few runs (three to ten:
// two to nine degrees of freedom), and a prediction interval built on it
// pays for that twice: Student's t for few degrees of freedom is wide
// (2.92 at 90% for two), and the estimate itself is as likely to be half
// the truth as double it. The arms of one group share the machine, the
// workers' minutes and the file-system state, and many of them spread
// alike between runs; those are pooled (#43), as Kalibera & Jones 2013
// ("Rigorous benchmarking in reasonable time", ISMM) pool a level's
// variance over what shares it: the cases of a group are ordered by
// their spread, and a case joins the cluster of those below it unless an
// F test says its variance is larger than theirs (p < 0.01); a cluster's
// variance is its cases' pooled, on the sum of their degrees of freedom.
// The syncing arms (fsync's spread between runs ten times the others')
// then pool among themselves and the rest among themselves.
//
// A case keeps its own spread where that is larger than its cluster's:
// pooling lends it degrees of freedom, never a narrower spread.
//
// Measured on runs saved side by side, each held against the runs after
// it (twelve a setting for modes go, modes python and buffers python on
// /tmp with other work on the VM; six beside two CPU hogs for modes on
// /dev/shm and modes python and buffers python on /tmp): this and the
// centre below, at 95%, made the median interval 22–31% narrower than
// #29's (26–69% of the ratio against 34–101%), holding the later runs'
// 79–99% of the time (#29's: 79–99%). A single prior for a group's
// variances (the empirical-Bayes moderation of Smyth 2004) was tried
// first and held less (80% where the own spread held 86%, on modes go):
// one prior for variances ten times apart pulls the syncing arms' down
// and the others' up.
//
// The interval is centred on the mean of the runs' log medians (this run
// and the earlier ones), not on this run's: the next run differs from
// the mean of n runs by a normal of variance σ²(1 + 1/n), from one run by
// 2σ², so the prediction interval is narrower by √((1+1/n)/2) (0.76 for
// six runs) for the same promise. It is widened to hold this run's
// median, which a report prints at its centre.

// Pooled is a case's spread between runs pooled over the cases of its
// group that spread alike: the standard deviation of the runs' log
// medians, the degrees of freedom it stands on, and the geometric mean
// of the runs' medians (this run's and the earlier ones'), where the next
// run's interval is centred.
type Pooled struct {
	LogSD  float64 `json:"log_sd"`
	DF     float64 `json:"df"`
	Center float64 `json:"center"`
}

// alikeP is the p-value under which a case's variance is larger than its
// cluster's: it starts a cluster of its own. Sorted cases tested one by
// one split off by chance the largest of alike ones, leaving the rest's
// pooled variance low: at 0.05 the next run's interval held 87.5% of
// simulated runs for a nominal 90% (TestPooledPredictionHoldsAndIsNarrower),
// at 0.01 88.9%, at 0.001 89.6%, but on the saved runs of modes go 0.001
// pooled the syncing arms with the others while runs were few (held 82%
// against 84% at 0.01 and 0.05).
const alikeP = 0.01

// poolAlike pools the variances sd[i] (each on df[i] degrees of freedom)
// of the cases that spread alike, returning each case's pooled standard
// deviation and its degrees of freedom. Cases with no spread stay out.
func poolAlike(sd, df []float64) (pooledSD, pooledDF []float64) {
	pooledSD, pooledDF = make([]float64, len(sd)), make([]float64, len(sd))
	var order []int
	for i := range sd {
		if sd[i] > 0 && df[i] > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareFloat(sd[a], sd[b]) })
	var cluster []int
	var ss, dfs float64
	flush := func() {
		for _, i := range cluster {
			pooledSD[i], pooledDF[i] = math.Sqrt(ss/dfs), dfs
		}
		cluster, ss, dfs = nil, 0, 0
	}
	for _, i := range order {
		if len(cluster) > 0 && varianceLarger(sd[i]*sd[i], df[i], ss/dfs, dfs) {
			flush()
		}
		cluster = append(cluster, i)
		ss += df[i] * sd[i] * sd[i]
		dfs += df[i]
	}
	flush()
	return pooledSD, pooledDF
}

// varianceLarger: an F test says the variance v (on d degrees of freedom)
// is larger than the variance w (on dw), at p < alikeP.
func varianceLarger(v, d, w, dw float64) bool {
	if w <= 0 {
		return true
	}
	f := v / w
	return 1-mathx.BetaInc(d*f/(d*f+dw), d/2, dw/2) < alikeP
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
