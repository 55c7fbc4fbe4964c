package serve

import (
	"math"
	"slices"

	"github.com/tmpprobe/tmpprobe/results"
)

// The classic buckets of a latency histogram. The probe counts each call
// in a log2 slot split in four (results.HistLow), of whole nanoseconds; a
// Prometheus bucket counts the calls ≤ its upper bound, so a bound is
// exact only where it falls between two slots. Each bound here is the
// last nanosecond of an octave, 2^k − 1 ns (1.023e-06 s is 1023 ns): every
// slot lies wholly below or wholly above it, so each bucket's count is
// the probe's, none spread by a guess. A bound of 2^k ns would put a call
// of exactly 2^k ns, which the probe slots above it, below it.
//
// No native histogram is offered for the same reason: a native bucket's
// bounds are powers of 2^(2^-schema) seconds, and none of them is a whole
// number of nanoseconds that ends a slot (2^m s is 5^9·2^(m+9) ns, and a
// slot's ends are 4, 5, 6 or 7 times a power of two), so every native
// bucket would split slots by a guess.
const (
	firstOctave = 8  // 2^8 − 1 ns: 255 ns, below which a syscall is rare
	lastOctave  = 35 // 2^35 − 1 ns: 34 s, beyond which +Inf
)

// bucketBounds are the classic buckets' upper bounds, in seconds.
var bucketBounds = func() []float64 {
	var out []float64
	for k := firstOctave; k <= lastOctave; k++ {
		out = append(out, float64(uint64(1)<<k-1)/1e9)
	}
	return out
}()

// classicBuckets turns a record's histogram into the cumulative counts of
// bucketBounds, and the number of calls it holds.
func classicBuckets(hist []results.HistBucket) (buckets map[float64]uint64, count uint64) {
	perOctave := make([]uint64, len(bucketBounds))
	for _, h := range hist {
		count += h.Count
		// The first bound at or above the slot's last nanosecond holds it.
		last := results.HistHigh(h.Slot) - 1
		if h.Slot >= results.HistSlots-1 {
			last = math.MaxUint64 // the last slot has no end: +Inf
		}
		if i, _ := slices.BinarySearchFunc(bucketBounds, last, func(b float64, ns uint64) int {
			bn := uint64(math.Round(b * 1e9))
			switch {
			case bn < ns:
				return -1
			case bn > ns:
				return 1
			}
			return 0
		}); i < len(perOctave) {
			perOctave[i] += h.Count
		}
	}
	buckets = make(map[float64]uint64, len(bucketBounds))
	var cum uint64
	for i, b := range bucketBounds {
		cum += perOctave[i]
		buckets[b] = cum
	}
	return buckets, count
}
