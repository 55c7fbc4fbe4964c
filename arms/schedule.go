package arms

import "math/rand/v2"

// Slot is one batch of a round: which case (an index into Plan.Cases)
// and whether it is traced.
type Slot struct {
	Case   int
	Traced bool
}

// Order lays out the measured rounds of the rounds protocol (Abedi &
// Brecht, "Conducting Repeatable Experiments in Highly Variable Cloud
// Computing Environments", ICPE 2017): every round runs one untraced and
// one traced batch of every case, so a slow minute of the machine lands on
// every case of the rounds it spans instead of on whichever case ran in
// it. groups are the cases a ratio compares (a lab × runtime × dir ×
// parameter): within a round each group's cases run back to back, in a
// fresh random order, and the groups too run in a fresh random order, so
// the two batches of a ratio run milliseconds apart, not a whole round.
// A round is two halves, untraced and traced, in a random order of the
// two: enabling the syscall tracepoints costs ~15 ms (the first
// raw_syscalls registration), which per batch would be a third of a run.
// The same seed gives the same order.
func Order(seed uint64, groups [][]int, rounds int, untraced, traced bool) [][]Slot {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var kinds []bool
	if untraced {
		kinds = append(kinds, false)
	}
	if traced {
		kinds = append(kinds, true)
	}
	out := make([][]Slot, rounds)
	for r := range out {
		halves := kinds
		if len(kinds) == 2 && rng.IntN(2) == 1 {
			halves = []bool{true, false}
		}
		for _, tr := range halves {
			for _, g := range rng.Perm(len(groups)) {
				for _, i := range rng.Perm(len(groups[g])) {
					out[r] = append(out[r], Slot{Case: groups[g][i], Traced: tr})
				}
			}
		}
	}
	return out
}

// NewSeed draws a seed for a run that was given none, below 2^53 so that
// JSON readers that hold numbers as doubles (jq, JavaScript) keep it exact.
func NewSeed() uint64 { return rand.Uint64N(1 << 53) }
