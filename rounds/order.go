package rounds

import "math/rand/v2"

// Slot is one batch of a round: which case (an index into the workload's
// cases) and whether it is traced.
type Slot struct {
	Case   int
	Traced bool
}

// Orderer draws the measured rounds of the rounds protocol one after
// another (Abedi & Brecht, "Conducting Repeatable Experiments in Highly
// Variable Cloud Computing Environments", ICPE 2017): every round runs one
// untraced and one traced batch of every case, so a slow minute of the
// machine lands on every case of the rounds it spans instead of on
// whichever case ran in it. groups are the cases a ratio compares (a lab
// × runtime × dir × parameter, or all of compare's commands): within a
// round each group's cases run back to back, in a fresh random order, and
// the groups too run in a fresh random order, so the two batches of a
// ratio run milliseconds apart, not a whole round. A round is two halves,
// untraced and traced, in a random order of the two: enabling the syscall
// tracepoints costs ~15 ms (the first raw_syscalls registration), which
// per batch would be a third of a run. The same seed gives the same
// rounds.
//
// Rounds are drawn one at a time, so the first k rounds of a longer order
// are the order of k rounds (--seed with --rounds replays a compare
// --min-time run), and a round can be drawn over other groups than the
// last: a later generation may run only the cases still undecided.
type Orderer struct {
	rng   *rand.Rand
	kinds []bool
}

// NewOrderer starts the order of a seed, with untraced halves, traced
// halves or both.
func NewOrderer(seed uint64, untraced, traced bool) *Orderer {
	o := &Orderer{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	if untraced {
		o.kinds = append(o.kinds, false)
	}
	if traced {
		o.kinds = append(o.kinds, true)
	}
	return o
}

// Round draws the next round over groups.
func (o *Orderer) Round(groups [][]int) []Slot {
	var out []Slot
	halves := o.kinds
	if len(o.kinds) == 2 && o.rng.IntN(2) == 1 {
		halves = []bool{true, false}
	}
	for _, tr := range halves {
		for _, g := range o.rng.Perm(len(groups)) {
			for _, i := range o.rng.Perm(len(groups[g])) {
				out = append(out, Slot{Case: groups[g][i], Traced: tr})
			}
		}
	}
	return out
}

// Order lays out rounds rounds of the seed's order at once.
func Order(seed uint64, groups [][]int, rounds int, untraced, traced bool) [][]Slot {
	o := NewOrderer(seed, untraced, traced)
	out := make([][]Slot, rounds)
	for r := range out {
		out[r] = o.Round(groups)
	}
	return out
}

// NewSeed draws a seed for a run that was given none, below 2^53 so that
// JSON readers that hold numbers as doubles (jq, JavaScript) keep it exact.
func NewSeed() uint64 { return rand.Uint64N(1 << 53) }
