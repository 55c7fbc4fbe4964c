package explain

import "github.com/tmpprobe/tmpprobe/results"

// commandPairs are the gaps a compare run explains, which it says of
// itself as the arms catalogue says them of the labs: each command against
// the first (results.CommandBaseline).
func commandPairs(sums []*results.Summary) []Pair {
	var out []Pair
	first := ""
	for _, s := range sums {
		if s.Lab != results.LabCompare {
			continue
		}
		if first == "" {
			first = s.Arm
			continue
		}
		out = append(out, Pair{results.LabCompare, s.Arm, first})
	}
	return out
}
