package explain

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// ChangeSentence says a change in one sentence: "mkstemp-fsync (go): −63%
// ratio to TemporaryFile (p=0.002); +190 µs/op, of which fsync +185 µs
// (off-CPU waiting for the device +180 µs), unlink +4.1 µs, other +0.9 µs".
//
// With countsSaid (the arm's headline already says how its work per op
// changed), the two largest terms are named, each with its largest time
// only, not counts again: the work that changed is the story, the waits
// it cost are its detail.
func ChangeSentence(headline string, deltaNs float64, unit string, terms []Term, extras []Detail, countsSaid bool) string {
	var b strings.Builder
	b.WriteString(headline)
	if len(terms) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "; %s µs/%s", results.SignedMicros(deltaNs), unit)
	sumAbs := sumAbsDelta(terms)
	var parts []string
	var rest float64
	for i, t := range terms {
		d := float64(t.Delta)
		if !shown(t, i, sumAbs) || (countsSaid && i >= 2) {
			rest += d
			continue
		}
		p := t.Name + " " + results.SignedMicros(d) + " µs"
		details, most := t.Details, 3
		if countsSaid {
			details, most = slices.DeleteFunc(slices.Clone(details), func(d Detail) bool { return d.Unit != "ns" }), 1
		}
		if det := detailText(details, d, most); det != "" {
			p += " (" + det + ")"
		}
		if len(t.Culprits) > 0 {
			p += " — " + CulpritsText(t.Culprits)
		}
		parts = append(parts, p)
	}
	if len(parts) > 0 {
		if large(rest, sumAbs) {
			parts = append(parts, "other "+results.SignedMicros(rest)+" µs")
		}
		b.WriteString(", of which " + strings.Join(parts, ", "))
	}
	if ex := detailText(extras, 0, 3); ex != "" {
		b.WriteString("; also " + ex)
	}
	return b.String()
}

// sumAbsDelta is Σ|Δ| over the terms: what a term's share is of.
func sumAbsDelta(terms []Term) float64 {
	var sum float64
	for _, t := range terms {
		sum += math.Abs(float64(t.Delta))
	}
	return sum
}

// large says a change of d ns is worth naming beside terms of Σ|Δ| sumAbs:
// 5% of it or more, and at least 1 ns.
func large(d, sumAbs float64) bool {
	return math.Abs(d) >= 0.05*sumAbs && math.Abs(d) >= 1
}

// shown says term t, the i-th largest, is one a change sentence names:
// among the first three, not noise, and large. The rest go into "other",
// and culprits are tied only to terms shown (TieCulprits).
func shown(t Term, i int, sumAbs float64) bool {
	return i < 3 && !t.Noise && large(float64(t.Delta), sumAbs)
}

// detailText lists the details that moved, at most most of them: times
// that are a tenth or more of the term's change, and counts that changed
// by 5% or more.
func detailText(ds []Detail, termNs float64, most int) string {
	var parts []string
	for _, d := range ds {
		if len(parts) == most {
			break
		}
		switch {
		case !moved(d, termNs):
		case d.Unit == "ns":
			parts = append(parts, d.Name+" "+results.SignedMicros(d.Delta())+" µs")
		default:
			parts = append(parts, fmt.Sprintf("%s/op %s → %s", d.Name, results.Count(d.Old), results.Count(d.New)))
		}
	}
	return strings.Join(parts, "; ")
}
