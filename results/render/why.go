package render

import (
	"fmt"
	"io"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// WriteExplanations prints the "Why" section at 80 columns: one sentence
// per arm, one per compared pair, one per arm whose ratio moved with the
// state of the file system or machine across the run, and where a
// spilling arm rolled over.
func WriteExplanations(w io.Writer, sums []*results.Summary, labs explain.LabKnowledge) {
	if !anyTraced(sums) {
		return // throughput only: nothing was attributed
	}
	gaps := explain.Comparisons(sums, labs.Pairs)
	fmt.Fprintln(w, "\nWHY")
	for _, g := range results.PeerGroups(sums) {
		if g[0].Traced == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", groupTitle(g[0]))
		for _, s := range g {
			if s.Traced != nil {
				bullet(w, "  ", explain.ArmSentence(s), DefaultWidth)
			}
		}
		for _, l := range groupWhy(g, gaps, labs) {
			bullet(w, "  ", l, DefaultWidth)
		}
	}
	writeSpills(w, sums, labs, DefaultWidth)
}

func anyTraced(sums []*results.Summary) bool {
	for _, s := range sums {
		if s.Traced != nil {
			return true
		}
	}
	return false
}

// groupWhy is the WHY of group g: the sentences of the gaps compared in
// it, then those of its arms whose ratio moved with a state across the
// run.
func groupWhy(g []*results.Summary, gaps []explain.Gap, labs explain.LabKnowledge) []string {
	var out []string
	for _, gap := range gaps {
		if gap.A.PeerKey() == g[0].PeerKey() {
			out = append(out, gap.Sentence())
		}
	}
	for _, l := range explain.StateLinks(g, labs.Baselines[g[0].Lab]) {
		out = append(out, l.Sentence())
	}
	return out
}

// writeSpills says where each spilling arm rolled over to a file.
func writeSpills(w io.Writer, sums []*results.Summary, labs explain.LabKnowledge, width int) {
	for _, line := range explain.SpillSentences(sums, labs.Spills) {
		fmt.Fprintln(w)
		bullet(w, "  ", line, width)
	}
}

// bullet prints text as a bulleted paragraph under width columns.
func bullet(w io.Writer, indent, text string, width int) {
	fmt.Fprintln(w, wrap(indent+"• "+text, width-2, indent+"  "))
}
