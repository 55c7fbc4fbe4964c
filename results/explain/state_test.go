package explain_test

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// stateGroup is a modes group of twelve one-round generations: the
// baseline's rounds carry inode allocation costs (µs per create), the
// other arm's rounds their ratio.
func stateGroup(inodeUs, ratio []float64) []*results.Summary {
	arm := func(name string) *results.Summary {
		return &results.Summary{ArmResult: &results.ArmResult{CaseID: results.CaseID{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400}},
			Protocol: results.ProtocolRounds}
	}
	base, other := arm("TemporaryFile"), arm("NamedTemporaryFile")
	for i := range inodeUs {
		g := i + 1
		base.Rounds = append(base.Rounds, results.RoundSample{Round: g, Generation: g, Ratio: 1,
			State: map[string]results.StateSum{results.StateInodeAlloc: {Ns: inodeUs[i] * 1000 * 50, Count: 50}}})
		other.Rounds = append(other.Rounds, results.RoundSample{Round: g, Generation: g, Ratio: ratio[i]})
	}
	other.Ratio = results.Median(ratio)
	return []*results.Summary{base, other}
}

// A ratio that steps with inode allocation gets a sentence with both
// ranges, the halves' medians; the same ratios beside a state in another
// order, or a state that hardly moved, get none.
func TestStateLinks(t *testing.T) {
	inode := []float64{5, 6, 4, 5, 7, 6, 200, 210, 190, 205, 220, 198}
	ratio := []float64{0.40, 0.45, 0.38, 0.42, 0.41, 0.44, 0.88, 0.90, 0.86, 0.92, 0.89, 0.91}
	links := explain.StateLinks(stateGroup(inode, ratio), "TemporaryFile")
	if len(links) != 1 || links[0].State != results.StateInodeAlloc || links[0].Arm != "NamedTemporaryFile" {
		t.Fatalf("links %+v, want NamedTemporaryFile following %s", links, results.StateInodeAlloc)
	}
	want := "NamedTemporaryFile ÷ TemporaryFile ranged 0.41–0.90 over the run as ext4 inode allocation ranged 5.50–202.5 µs per create"
	if s := links[0].Sentence(); !strings.HasPrefix(s, want) {
		t.Errorf("sentence %q, want it to start %q", s, want)
	}
	if w := explain.StateWarnings(stateGroup(inode, ratio), map[string]string{"modes": "TemporaryFile"}); len(w) != 1 ||
		w[0].Kind != results.WarningStateDominates || w[0].State != results.StateInodeAlloc || w[0].Arms != 1 || w[0].Of != 1 {
		t.Errorf("warnings %+v, want 1 of 1 arms moved with %s", w, results.StateInodeAlloc)
	}
	shuffled := []float64{200, 5, 210, 6, 4, 190, 5, 205, 7, 220, 6, 198}
	if l := explain.StateLinks(stateGroup(shuffled, ratio), "TemporaryFile"); len(l) != 0 {
		t.Errorf("state unrelated to the ratio: links %+v, want none", l)
	}
	flat := []float64{5, 6, 4, 5, 7, 6, 6.5, 7, 6, 6.8, 7.2, 6.6}
	if l := explain.StateLinks(stateGroup(flat, ratio), "TemporaryFile"); len(l) != 0 {
		t.Errorf("a state that moved by less than half: links %+v, want none", l)
	}
}
