package explain

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/tmpprobe/tmpprobe/results"
)

// StateLink is an arm's ratio that moved with a state variable across the
// worker generations of a run (see results.StateNames).
type StateLink struct {
	Arm, Baseline string
	State         string
	// StateLo and StateHi are the state's median, ns per create or op,
	// over the half of the generations lowest in it and the half highest;
	// RatioAtLo and RatioAtHi the ratio's median over the same halves.
	// Halves, not extremes: one generation's ratio is two rounds' and
	// noisy, its extremes would overstate the range.
	StateLo, StateHi     float64
	RatioAtLo, RatioAtHi float64
	// P is the Mann–Whitney U test's p-value for the ratio being one
	// distribution in both halves.
	P     float64
	Units int
}

// Thresholds of a link worth a sentence: enough generations for two
// halves to be told apart, the ratio's halves told apart by the U test at
// 1% (three variables are tried on every arm: at 5%, one group in two
// would get a sentence by chance), a state that moved by half, and a
// ratio that moved by a tenth. A test of the halves, not a rank
// correlation: a state that steps (a churned block group, then not)
// leaves the order inside each half to noise, and Spearman's ρ of a clean
// step came out anywhere from 0.55 to 0.85 over 20 generations.
const (
	MinStateUnits  = 8
	MaxStateP      = 0.01
	MinStateSpread = 1.5
	MinRatioSpread = 1.1
)

// StateLinks finds, in one peer group, the arms whose per-generation
// ratio moved with a state variable across the run: one link per arm,
// with the variable it follows most closely. The state of a generation is
// pooled over every arm of the group, as they shared its directory.
func StateLinks(group []*results.Summary, baseline string) []StateLink {
	if len(group) == 0 || group[0].Protocol == results.ProtocolSeed {
		return nil
	}
	state := map[int]map[string]results.StateSum{}
	for _, s := range group {
		for i := range s.Rounds {
			r := &s.Rounds[i]
			u := s.UnitOf(r)
			if state[u] == nil {
				state[u] = map[string]results.StateSum{}
			}
			for k, v := range r.State {
				state[u][k] = state[u][k].Add(v)
			}
		}
	}
	var out []StateLink
	for _, s := range group {
		if s.Arm == baseline {
			continue
		}
		byUnit := map[int][]float64{}
		for i := range s.Rounds {
			if r := &s.Rounds[i]; r.Ratio > 0 {
				byUnit[s.UnitOf(r)] = append(byUnit[s.UnitOf(r)], r.Ratio)
			}
		}
		units := slices.Sorted(maps.Keys(byUnit))
		if len(units) < MinStateUnits {
			continue
		}
		var best *StateLink
		for _, name := range results.StateNames {
			var ratio, value []float64
			for _, u := range units {
				v := state[u][name].PerCount()
				if v <= 0 {
					continue
				}
				ratio = append(ratio, results.Median(byUnit[u]).Center)
				value = append(value, v)
			}
			if len(value) < MinStateUnits {
				continue
			}
			l := StateLink{Arm: s.Arm, Baseline: baseline, State: name, Units: len(value)}
			var lo, hi []float64
			l.StateLo, l.StateHi, lo, hi = halves(value, ratio)
			l.RatioAtLo, l.RatioAtHi = results.Median(lo).Center, results.Median(hi).Center
			l.P = results.Compare(lo, hi, 0).P
			spread := math.Max(l.RatioAtLo, l.RatioAtHi) / math.Min(l.RatioAtLo, l.RatioAtHi)
			if l.P >= MaxStateP || l.StateHi < MinStateSpread*l.StateLo || !(spread >= MinRatioSpread) {
				continue
			}
			// Of the states the ratio followed, the one whose time moved
			// most: a slow create makes the thread wait its turn on the
			// CPU too, so run-queue wait follows inode allocation as
			// closely (the same halves, p as small) while moving a
			// hundredth of the time.
			if best == nil || l.StateHi-l.StateLo > best.StateHi-best.StateLo {
				best = &l
			}
		}
		if best != nil {
			out = append(out, *best)
		}
	}
	return out
}

// halves splits paired samples by state: the medians of state over the
// half of them lowest in state and over the half highest, and the ratios
// of each half.
func halves(state, ratio []float64) (stateLo, stateHi float64, ratioLo, ratioHi []float64) {
	idx := make([]int, len(state))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return state[idx[a]] < state[idx[b]] })
	med := func(part []int, of []float64) float64 {
		var v []float64
		for _, i := range part {
			v = append(v, of[i])
		}
		return results.Median(v).Center
	}
	lo, hi := idx[:len(idx)/2], idx[len(idx)-len(idx)/2:]
	pick := func(part []int) []float64 {
		var v []float64
		for _, i := range part {
			v = append(v, ratio[i])
		}
		return v
	}
	return med(lo, state), med(hi, state), pick(lo), pick(hi)
}

// Sentence says it in one sentence with both ranges, the ratio's in the
// order of the state's: "NamedTemporaryFile ÷ TemporaryFile ranged
// 0.90–0.66 over the run as ext4 inode allocation ranged 58–209 µs per
// create (…)".
func (l StateLink) Sentence() string {
	return fmt.Sprintf("%s ÷ %s ranged %s–%s over the run as %s ranged %s–%s µs per %s "+
		"(medians of the %d worker generations lowest and the %d highest in it; U test p = %.2g)",
		l.Arm, l.Baseline, results.Ratio(l.RatioAtLo), results.Ratio(l.RatioAtHi), l.State, results.Micros(l.StateLo), results.Micros(l.StateHi),
		results.StatePer(l.State), l.Units/2, l.Units/2, l.P)
}

// StateWarnings are the footer's warnings for groups whose figures a
// state dominates: at least half of the group's compared arms moved with
// one state variable across the run.
func StateWarnings(sums []*results.Summary, baselines map[string]string) []results.Warning {
	var out []results.Warning
	for _, g := range results.PeerGroups(sums) {
		links := StateLinks(g, baselines[g[0].Lab])
		compared := 0
		for _, s := range g {
			if s.Arm != baselines[s.Lab] && s.Ratio.Known() {
				compared++
			}
		}
		count := map[string]int{}
		for _, l := range links {
			count[l.State]++
		}
		names := slices.Collect(maps.Keys(count))
		sort.Slice(names, func(i, j int) bool {
			return count[names[i]] > count[names[j]] || count[names[i]] == count[names[j]] && names[i] < names[j]
		})
		if len(names) == 0 || 2*count[names[0]] < compared {
			continue
		}
		group := g[0].CaseID
		out = append(out, results.Warning{Kind: results.WarningStateDominates, Group: &group, State: names[0], Arms: count[names[0]], Of: compared})
	}
	return out
}
