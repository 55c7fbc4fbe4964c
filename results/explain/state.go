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
	Rho                  float64 // Spearman's ρ over the generations
	Units                int
}

// Thresholds of a link worth a sentence: enough generations for a rank
// correlation to mean something (ρ = 0.6 over 8 is p ≈ 0.06 one-sided,
// over 20 p < 0.005), a state that moved by half, and a ratio that moved
// by a tenth.
const (
	MinStateUnits  = 8
	MinStateRho    = 0.6
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
			l := StateLink{Arm: s.Arm, Baseline: baseline, State: name, Rho: results.RankCorrelation(ratio, value), Units: len(value)}
			l.StateLo, l.StateHi, l.RatioAtLo, l.RatioAtHi = halves(value, ratio)
			spread := math.Max(l.RatioAtLo, l.RatioAtHi) / math.Min(l.RatioAtLo, l.RatioAtHi)
			if math.Abs(l.Rho) < MinStateRho || l.StateHi < MinStateSpread*l.StateLo || !(spread >= MinRatioSpread) {
				continue
			}
			if best == nil || math.Abs(l.Rho) > math.Abs(best.Rho) {
				best = &l
			}
		}
		if best != nil {
			out = append(out, *best)
		}
	}
	return out
}

// halves splits paired samples by state: the medians of state and ratio
// over the half of them lowest in state, and over the half highest.
func halves(state, ratio []float64) (stateLo, stateHi, ratioLo, ratioHi float64) {
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
	return med(lo, state), med(hi, state), med(lo, ratio), med(hi, ratio)
}

// Sentence says it in one sentence with both ranges, the ratio's in the
// order of the state's: "NamedTemporaryFile ÷ TemporaryFile ranged
// 0.90–0.66 over the run as ext4 inode allocation ranged 58–209 µs per
// create (…)".
func (l StateLink) Sentence() string {
	return fmt.Sprintf("%s ÷ %s ranged %.2f–%.2f over the run as %s ranged %s–%s µs per %s "+
		"(medians of the %d worker generations lowest and the %d highest in it; rank correlation %.2f)",
		l.Arm, l.Baseline, l.RatioAtLo, l.RatioAtHi, l.State, results.Micros(l.StateLo), results.Micros(l.StateHi),
		results.StatePer(l.State), l.Units/2, l.Units/2, l.Rho)
}

// StateWarnings are the footer's warnings for groups whose figures a
// state dominates: at least half of the group's compared arms moved with
// one state variable across the run.
func StateWarnings(sums []*results.Summary, baselines map[string]string) []string {
	var out []string
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
		out = append(out, fmt.Sprintf("%s lab · %s · %s · %s: the ratios of %d of %d arms moved with %s across the run; they describe that state as much as the arms (see WHY)",
			g[0].Lab, g[0].Runtime, g[0].Dir, g[0].ParamTitle(), count[names[0]], compared, names[0]))
	}
	return out
}
