package render

import (
	"fmt"
	"io"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// WriteExplanations prints the "Why" section: one sentence per arm, one per
// compared pair, one per arm whose ratio moved with the state of the file
// system or machine across the run, and where a spilling arm rolled over.
func WriteExplanations(w io.Writer, sums []*results.Summary, labs explain.LabKnowledge) {
	traced := false
	for _, s := range sums {
		traced = traced || s.Traced != nil
	}
	if !traced {
		return // throughput only: nothing was attributed
	}
	gaps := explain.Comparisons(sums, labs.Pairs)
	fmt.Fprintln(w, "\nWHY")
	for _, g := range results.PeerGroups(sums) {
		if g[0].Traced == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s lab · %s · %s · %s\n", g[0].Lab, g[0].Runtime, g[0].Dir, g[0].ParamTitle())
		for _, s := range g {
			if s.Traced != nil {
				bullet(w, "  ", explain.ArmSentence(s))
			}
		}
		for _, gap := range gaps {
			if gap.A.PeerKey() == g[0].PeerKey() {
				bullet(w, "  ", gap.Sentence())
			}
		}
		for _, l := range explain.StateLinks(g, labs.Baselines[g[0].Lab]) {
			bullet(w, "  ", l.Sentence())
		}
	}
	for _, line := range explain.SpillSentences(sums, labs.Spills) {
		fmt.Fprintln(w)
		bullet(w, "  ", line)
	}
}

// bullet prints text as a bulleted paragraph under 80 columns.
func bullet(w io.Writer, indent, text string) {
	fmt.Fprintln(w, wrap(indent+"• "+text, 78, indent+"  "))
}
