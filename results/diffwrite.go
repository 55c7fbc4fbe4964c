package results

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// WriteDiffJSON writes the diff for machines: integer ns per op.
func WriteDiffJSON(w io.Writer, rep *DiffReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// WriteDiffText writes the diff for a terminal: preflight differences, a
// table per lab × runtime × parameter, then one sentence per real change.
func WriteDiffText(w io.Writer, rep *DiffReport) {
	fmt.Fprintf(w, "OLD %s\nNEW %s\n", rep.Old, rep.New)
	if len(rep.Preflight) > 0 {
		fmt.Fprintln(w, "\nPreflight differences (any of these can explain every change at once):")
		for _, f := range rep.Preflight {
			fmt.Fprintln(w, wrap(fmt.Sprintf("  %s: %s → %s", f.Name, f.Old, f.New), 78, "    "))
		}
	}
	for _, g := range diffGroups(rep) {
		rate := g[0].Rate
		fmt.Fprintf(w, "\n%s\n%-24s %19s %19s %6s\n", groupTitle(g[0]), "ARM", "OLD "+rate+" (min–max)", "NEW "+rate+" (min–max)", "CHANGE")
		for _, d := range g {
			ov, or, nv, nr := d.Rates()
			fmt.Fprintf(w, "%-24s %19s %19s %6s %s\n", trunc(d.Arm, 24), rateRange(ov, or), rateRange(nv, nr), changeCell(d), shortStatus[d.Status])
		}
	}
	changed := rep.Changed()
	if len(changed) > 0 {
		fmt.Fprintf(w, "\nChanged beyond the run-to-run spread (%d of %d):\n", len(changed), len(rep.Arms))
		for _, d := range changed {
			fmt.Fprintln(w, wrap("  "+d.Sentence, 78, "    "))
		}
	} else {
		fmt.Fprintln(w, "\nNo arm changed beyond the run-to-run spread.")
	}
	if s := sameDirection(rep); s != "" {
		fmt.Fprintln(w, wrap(s, 78, ""))
	}
	writeGate(w, rep, "")
}

// shortStatus fits the table; the sentences below it say the rest.
var shortStatus = map[string]string{
	StatusRegressed: "slower", StatusImproved: "faster", StatusNoise: "noise",
	StatusOnlyOld: "only OLD", StatusOnlyNew: "only NEW", StatusFailed: "failed",
}

// WriteDiffMarkdown writes the same as WriteDiffText as markdown.
func WriteDiffMarkdown(w io.Writer, rep *DiffReport) {
	fmt.Fprintf(w, "# tmpprobe diff\n\n- OLD: `%s`\n- NEW: `%s`\n", rep.Old, rep.New)
	if len(rep.Preflight) > 0 {
		fmt.Fprintln(w, "\n## Preflight differences\n\nAny of these can explain every change at once.\n\n| fact | OLD | NEW |\n|---|---|---|")
		for _, f := range rep.Preflight {
			fmt.Fprintf(w, "| %s | %s | %s |\n", mdCell(f.Name), mdCell(f.Old), mdCell(f.New))
		}
	}
	fmt.Fprintln(w, "\n## What changed")
	fmt.Fprintln(w)
	changed := rep.Changed()
	for _, d := range changed {
		fmt.Fprintf(w, "- %s\n", mdCell(d.Sentence))
	}
	if len(changed) == 0 {
		fmt.Fprintln(w, "No arm changed beyond the run-to-run spread.")
	}
	if s := sameDirection(rep); s != "" {
		fmt.Fprintf(w, "\n%s\n", s)
	}
	writeGate(w, rep, "\n")
	fmt.Fprintln(w, "\n## Arms")
	for _, g := range diffGroups(rep) {
		rate := g[0].Rate
		fmt.Fprintf(w, "\n%s\n\n| arm | OLD %s (min–max) | NEW %s (min–max) | change | status |\n|---|--:|--:|--:|---|\n",
			mdCell(groupTitle(g[0])), rate, rate)
		for _, d := range g {
			ov, or, nv, nr := d.Rates()
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdCell(d.Arm), rateRange(ov, or), rateRange(nv, nr), changeCell(d), d.Status)
		}
	}
}

// diffGroups splits the arms, in run order, by lab, runtime, parameter and
// work dirs, as the terminal report groups them.
func diffGroups(rep *DiffReport) [][]*ArmDiff {
	arms := make([]*ArmDiff, len(rep.Arms))
	for i := range rep.Arms {
		arms[i] = &rep.Arms[i]
	}
	return groupInOrder(arms, groupTitle)
}

// groupInOrder splits items by key, groups in order of first appearance
// and items in their order, as reports list arms in the order they ran.
func groupInOrder[T any](items []T, key func(T) string) [][]T {
	var out [][]T
	idx := map[string]int{}
	for _, it := range items {
		k := key(it)
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], it)
	}
	return out
}

func groupTitle(d *ArmDiff) string {
	dirs := d.OldDir
	switch {
	case d.OldDir == "":
		dirs = d.NewDir
	case d.NewDir != "" && d.NewDir != d.OldDir:
		dirs = d.OldDir + " → " + d.NewDir
	}
	param := strings.Replace(d.Param, "=", " ", 1) + "B"
	return fmt.Sprintf("%s lab · %s · %s · %s", d.Lab, d.Runtime, dirs, param)
}

func writeGate(w io.Writer, rep *DiffReport, pre string) {
	if rep.ThresholdPct <= 0 {
		return
	}
	if len(rep.Gated) == 0 {
		fmt.Fprintf(w, "%sNo arm regressed by %g%% or more.\n", pre, rep.ThresholdPct)
		return
	}
	fmt.Fprintln(w, wrap(fmt.Sprintf("%sRegressed by %g%% or more: %s", pre, rep.ThresholdPct, strings.Join(rep.Gated, ", ")), 78, "  "))
}

// sameDirection points at the preflight when it differs and every real
// change went the same way: one cause for all is likelier than many.
func sameDirection(rep *DiffReport) string {
	changed := rep.Changed()
	if len(rep.Preflight) == 0 || len(changed) < 2 {
		return ""
	}
	for _, d := range changed[1:] {
		if d.Status != changed[0].Status {
			return ""
		}
	}
	return fmt.Sprintf("All %d changed arms %s: look at the preflight differences first.", len(changed), changed[0].Status)
}

func rateRange(v float64, r [2]float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f (%.0f–%.0f)", v, r[0], r[1])
}

func changeCell(d *ArmDiff) string {
	if d.OldOpsPerS == 0 || d.NewOpsPerS == 0 {
		return "-"
	}
	return signedPct(d.ChangePct)
}

// wrap breaks s at spaces into lines of at most width runes, indenting
// continuation lines. A unit ("µs") stays on the line of its number.
func wrap(s string, width int, indent string) string {
	words := strings.Split(s, " ")
	var b strings.Builder
	line := 0
	for i, word := range words {
		n := len([]rune(word))
		need := n
		if i+1 < len(words) && strings.HasPrefix(words[i+1], "µs") {
			need += 1 + len([]rune(words[i+1]))
		}
		unit := strings.HasPrefix(word, "µs")
		switch {
		case i == 0:
		case !unit && line+1+need > width && line > len(indent):
			b.WriteString("\n" + indent)
			line = len(indent)
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}

// mdCell keeps a value from breaking a markdown table.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
