package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
)

// WriteDiffJSON writes the diff for machines: integer ns per op.
func WriteDiffJSON(w io.Writer, rep *compare.DiffReport) error { return WriteJSON(w, rep) }

// WriteDiffText writes the diff for a terminal: what limits the
// comparison, preflight differences, a table per lab × runtime ×
// parameter with each group's drift, then one sentence per real change.
func WriteDiffText(w io.Writer, rep *compare.DiffReport) { WriteDiffTextVerbose(w, rep, false) }

// WriteDiffTextVerbose is WriteDiffText; verbose lists every fact a
// move of a work dir to another file system or device stands for.
func WriteDiffTextVerbose(w io.Writer, rep *compare.DiffReport, verbose bool) {
	fmt.Fprintf(w, "OLD %s\nNEW %s\n", rep.Old, rep.New)
	for _, d := range rep.Failed() {
		fmt.Fprintln(w, wrap("FAILED: "+d.Lab+"/"+d.Label()+" "+d.Failure.Text(), 78, "  "))
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(w, wrap("warning: "+p, 78, "  "))
	}
	if rep.BetweenRuns != "" {
		fmt.Fprintln(w, wrap("Tests count the spread between runs: "+rep.BetweenRuns, 78, "  "))
	}
	if rep.LeftOut != "" {
		fmt.Fprintln(w, wrap("Not replicates of NEW, so not its noise: "+rep.LeftOut, 78, "  "))
	}
	tied, other := splitPreflight(rep)
	// A work dir's move says where it moved: the work dirs' own line
	// would say it again.
	if dirs := workDirs(rep); dirs != nil {
		for _, l := range [][]compare.FactChange{tied, other} {
			for i := range l {
				if l[i].Move != "" {
					l[i].Phrase = "work dirs " + factChange(*dirs) + ": " + l[i].Phrase
				}
			}
		}
		other = slices.DeleteFunc(other, func(f compare.FactChange) bool { return f.Name == dirs.Name })
	}
	if len(tied) > 0 {
		fmt.Fprintln(w, "\nPreflight differences that can explain the changes (by their mechanism):")
		for _, f := range tied {
			l := factLine(f, verbose)
			if f.Move == "" { // a move can explain every change
				l += "; explains " + explainsText(f.Explains)
			}
			fmt.Fprintln(w, wrap("  "+l, 78, "    "))
			writeStandsFor(w, f, verbose)
		}
	}
	shown, more := neighboursToShow(rep, verbose)
	if len(shown) == 0 && more > 0 {
		fmt.Fprintf(w, "\nNeighbours: %d that NEW lost or had less of (-v lists them)\n", more)
	}
	if len(shown) > 0 {
		fmt.Fprintln(w, "\nNeighbours (other tasks on the CPU and the disk during traced batches):")
		for _, n := range shown {
			fmt.Fprintln(w, wrap("  "+n, 78, "    "))
		}
		if more > 0 {
			fmt.Fprintf(w, "  %d more (-v)\n", more)
		}
	}
	if len(other) > 0 {
		head := "Preflight differences (any of these can explain every change at once):"
		if len(tied) > 0 {
			head = "Other preflight differences (no change is tied to them):"
		}
		fmt.Fprintln(w, "\n"+head)
		hidden := 0
		for _, f := range other {
			if !verbose && f.Move == "" && strings.HasPrefix(f.Name, "dirs[") {
				hidden++ // a device's name, a mount point: -v
				continue
			}
			fmt.Fprintln(w, wrap("  "+factLine(f, verbose), 78, "    "))
			writeStandsFor(w, f, verbose)
		}
		if hidden > 0 {
			fmt.Fprintf(w, "  %d more of the work dirs' facts, which explain no change (-v)\n", hidden)
		}
	}
	for _, g := range rep.Groups() {
		fmt.Fprintf(w, "\n%s\n", g[0].GroupTitle())
		for _, n := range rep.Drift {
			if n.Group == g[0].GroupTitle() {
				fmt.Fprintln(w, wrap("  "+strings.TrimPrefix(n.Sentence, n.Group+": "), 78, "  "))
			}
		}
		rate := g[0].Rate
		// ×BASE: the ratio is of throughput, to the lab's baseline arm.
		row(w, diffRow, "ARM", "OLD→NEW "+rate, "Δ "+rate, "OLD→NEW ×BASE", "Δ ×BASE")
		for _, d := range g {
			row(w, diffRow, trunc(d.Arm, 23), arrowCell(d.OpsPerS, results.Rate), deltaCell(d.OpsPerS, d),
				arrowCell(d.Ratio, results.Ratio), deltaCell(d.Ratio, d))
		}
	}
	writeChanged(w, rep, "  ", "")
	writeGate(w, rep, "")
}

// maxNeighbours is how many neighbours the terminal lists without -v.
const maxNeighbours = 2

// neighboursToShow are the neighbours the terminal lists, and how many
// more -v would: without -v, at most maxNeighbours, and those OLD had and
// NEW lost only when an arm got faster — what is gone explains no
// regression.
func neighboursToShow(rep *compare.DiffReport, verbose bool) (shown []string, more int) {
	if verbose {
		return rep.Neighbours, 0
	}
	improved := false
	for i := range rep.Arms {
		improved = improved || rep.Arms[i].Status == compare.StatusImproved
	}
	for _, n := range rep.Neighbours {
		if len(shown) == maxNeighbours || (!improved && strings.HasPrefix(n, "OLD: ")) {
			more++
			continue
		}
		shown = append(shown, n)
	}
	return shown, more
}

// diffRow fits 79 columns: "NamedTemporaryFile-keep", "154907→154907",
// "−9.2% p=0.002", "0.55→0.56".
const diffRow = "%-23s %13s %-13s %9s %-13s"

// row prints one table line without trailing blanks.
func row(w io.Writer, format string, cells ...any) {
	fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf(format, cells...), " "))
}

// arrowCell is "OLD→NEW" of a comparison's medians.
func arrowCell(c *results.Comparison, f func(float64) string) string {
	if c == nil {
		return ""
	}
	return f(c.Old.Center) + "→" + f(c.New.Center)
}

// deltaCell is benchstat's verdict: the change with its p-value, or "~"
// with the p-value when the rounds cannot tell it from noise.
func deltaCell(c *results.Comparison, d *compare.ArmDiff) string {
	switch {
	case c == nil && (d.Status == compare.StatusFailed || d.Status == compare.StatusOnlyNew || d.Status == compare.StatusOnlyOld):
		return shortStatus[d.Status]
	case c == nil:
		return ""
	case c.Verdict == results.VerdictTooFew:
		// A trace is one sample a side: its change, with how few samples
		// stand behind it, says more than "too few" beside "6→6".
		return fmt.Sprintf("%s n=%d", results.SignedPct(c.DeltaPct), min(c.NOld, c.NNew))
	case c.Verdict == results.VerdictSame:
		return "~ p=" + results.PValue(c.P)
	}
	return results.SignedPct(c.DeltaPct) + " p=" + results.PValue(c.P)
}

// shortStatus fits the table; the sentences below it say the rest.
var shortStatus = map[string]string{compare.StatusOnlyOld: "only OLD", compare.StatusOnlyNew: "only NEW", compare.StatusFailed: "failed"}

// writeChanged lists the real changes with their decomposition, and the
// arms with too few rounds to judge.
func writeChanged(w io.Writer, rep *compare.DiffReport, indent, bullet string) {
	// An arm that moved with its group is said in the group's note.
	changed := slices.DeleteFunc(rep.Changed(), func(d *compare.ArmDiff) bool { return d.WithGroup })
	withGroup := len(rep.Changed()) - len(changed)
	rule := fmt.Sprintf("p < %g and %g%% or more", rep.Alpha, rep.MinEffectPct)
	if len(changed) > 0 {
		more := ""
		if withGroup > 0 {
			more = fmt.Sprintf("; %d more with their group, above", withGroup)
		}
		fmt.Fprintf(w, "\nChanged (%s), %d of %d%s:\n", rule, len(changed), len(rep.Arms), more)
		for _, d := range changed {
			line := indent + bullet + d.Sentence
			if bullet != "" {
				line = bullet + mdCell(d.Sentence)
			}
			fmt.Fprintln(w, wrapFor(line, bullet, indent))
		}
	} else if withGroup > 0 {
		fmt.Fprintf(w, "\nNo arm changed beyond its group (p < %g and %g%% or more).\n", rep.Alpha, rep.MinEffectPct)
	} else {
		fmt.Fprintf(w, "\nNo arm changed (%s).\n", rule)
	}
	var few []string
	for i := range rep.Arms {
		if d := &rep.Arms[i]; d.Status == compare.StatusTooFew {
			few = append(few, d.Label())
		}
	}
	if len(few) > 0 {
		fmt.Fprintln(w, wrapFor(fmt.Sprintf("%sToo few rounds to judge (need %d a side): %s.", bullet, results.MinRoundsToCompare,
			strings.Join(few, ", ")), bullet, indent))
	}
	// Arms that said the same are said together: one line for every arm
	// that allocates inodes on ext4, one for the CPU neighbour.
	var work, rq []string
	workArms, rqArms, rqMost := map[string][]string{}, map[string][]string{}, map[string]float64{}
	for i := range rep.Arms {
		d := &rep.Arms[i]
		if d.Status == compare.StatusRegressed || d.Status == compare.StatusImproved {
			continue
		}
		if d.Work != nil && d.Work.MoreOrLess() {
			if workArms[d.Work.Headline] == nil {
				work = append(work, d.Work.Headline)
			}
			workArms[d.Work.Headline] = append(workArms[d.Work.Headline], d.Arm)
		}
		if g := d.RunQueue; g != nil {
			who := strings.Join(g.Neighbours, "; ")
			if rqArms[who] == nil {
				rq = append(rq, who)
			}
			rqArms[who] = append(rqArms[who], d.Arm)
			rqMost[who] = max(rqMost[who], float64(g.Delta))
		}
	}
	if len(work) > 0 && bullet == "" {
		fmt.Fprintln(w)
	}
	for _, h := range work {
		names := workArms[h]
		if len(names) > 3 {
			names = append(names[:2:2], fmt.Sprintf("%d more", len(names)-2))
		}
		fmt.Fprintln(w, wrapFor(fmt.Sprintf("%sWork per op changed too: %s: %s", bullet, strings.Join(names, ", "), h), bullet, indent))
	}
	for _, who := range rq {
		arms := fmt.Sprintf("%d arms", len(rqArms[who]))
		if len(rqArms[who]) == 1 {
			arms = rqArms[who][0]
		}
		fmt.Fprintln(w, wrapFor(fmt.Sprintf("%sRun-queue wait grew in %s within noise, up to %s µs/op: %s.", bullet, arms,
			results.SignedMicros(rqMost[who]), who), bullet, indent))
	}
	if s := sameDirection(rep); s != "" {
		fmt.Fprintln(w, wrapFor(bullet+s, bullet, indent))
	}
}

// wrapFor wraps terminal text; markdown (a bullet) is left to the viewer.
func wrapFor(s, bullet, indent string) string {
	if bullet != "" {
		return s
	}
	return wrap(s, 78, indent+"  ")
}

// WriteDiffMarkdown writes the same as WriteDiffText as markdown.
func WriteDiffMarkdown(w io.Writer, rep *compare.DiffReport) {
	fmt.Fprintf(w, "# tmpprobe diff\n\n- OLD: %s\n- NEW: %s\n", mdCode(rep.Old), mdCode(rep.New))
	for _, d := range rep.Failed() {
		fmt.Fprintf(w, "- **FAILED:** %s\n", mdCell(d.Lab+"/"+d.Label()+" "+d.Failure.Text()))
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "- **warning:** %s\n", mdCell(p))
	}
	if rep.LeftOut != "" {
		fmt.Fprintf(w, "- Not replicates of NEW, so not its noise: %s\n", mdCell(rep.LeftOut))
	}
	if len(rep.Preflight) > 0 {
		fmt.Fprintln(w, "\n## Preflight differences\n\nThose that explain a change first; any of the others can explain every change at once.\n\n| fact | OLD | NEW | explains |\n|---|---|---|---|")
		for _, f := range rep.Preflight {
			old, cur := f.Old, f.New
			if f.Added != nil || f.Removed != nil {
				old, cur = strings.Join(f.Removed, ","), strings.Join(f.Added, ",")
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdCell(f.Name), mdCell(old), mdCell(cur), mdCell(strings.Join(f.Explains, ", ")))
		}
	}
	if len(rep.Neighbours) > 0 {
		fmt.Fprint(w, "\n## Neighbours\n\n")
		for _, n := range rep.Neighbours {
			fmt.Fprintf(w, "- %s\n", mdCell(n))
		}
	}
	fmt.Fprintln(w, "\n## What changed")
	writeChanged(w, rep, "", "- ")
	for _, n := range rep.Drift {
		fmt.Fprintf(w, "- %s\n", mdCell(n.Sentence))
	}
	writeGate(w, rep, "\n")
	fmt.Fprintln(w, "\n## Arms")
	for _, g := range rep.Groups() {
		rate := g[0].Rate
		fmt.Fprintf(w, "\n%s\n\n| arm | OLD %s | NEW %s | Δ | p | OLD ×BASE | NEW ×BASE | Δ | p | status |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|---|\n",
			mdCell(g[0].GroupTitle()), rate, rate)
		for _, d := range g {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", mdCell(d.Arm), mdComparison(d.OpsPerS, results.Rate), mdComparison(d.Ratio, results.Ratio), d.Status)
		}
	}
}

// mdComparison is four cells: OLD and NEW median [95% CI], Δ, p.
func mdComparison(c *results.Comparison, f func(float64) string) string {
	if c == nil {
		return " | | | "
	}
	cell := func(e results.Estimate) string {
		s := f(e.Center)
		if e.Bounded() && e.Lo != e.Hi {
			s += " [" + f(e.Lo) + "–" + f(e.Hi) + "]"
		}
		return s
	}
	delta := results.SignedPct(c.DeltaPct)
	switch c.Verdict {
	case results.VerdictSame:
		delta = "~"
	case results.VerdictTooFew:
		delta += fmt.Sprintf(" (n=%d)", min(c.NOld, c.NNew))
	}
	return fmt.Sprintf("%s | %s | %s | %s", cell(c.Old), cell(c.New), delta, results.PValue(c.P))
}

func writeGate(w io.Writer, rep *compare.DiffReport, pre string) {
	if rep.ThresholdPct == nil {
		return
	}
	gate := ""
	if rep.Gate == compare.GateWork {
		gate = " --gate work"
	}
	switch {
	case len(rep.Gated) == 0 && gate != "":
		fmt.Fprintf(w, "%sNo arm's work per op changed by %g%% or more.\n", pre, *rep.ThresholdPct)
	case len(rep.Gated) == 0:
		fmt.Fprintf(w, "%sNo arm regressed by %g%% or more.\n", pre, *rep.ThresholdPct)
	default:
		fmt.Fprintln(w, wrap(fmt.Sprintf("%sFails%s --threshold %g: %s", pre, gate, *rep.ThresholdPct, strings.Join(rep.Gated, "; ")), 78, "  "))
	}
}

// sameDirection points at the preflight when it differs and every real
// change went the same way: one cause for all is likelier than many.
func sameDirection(rep *compare.DiffReport) string {
	changed := rep.Changed()
	if len(rep.Preflight) == 0 || len(changed) < 2 || workDirs(rep) != nil {
		return "" // none, or a dir's move, which the sentences name
	}
	for _, d := range changed[1:] {
		if d.Status != changed[0].Status {
			return ""
		}
	}
	return fmt.Sprintf("All %d changed arms %s: look at the preflight differences first.", len(changed), changed[0].Status)
}

// splitPreflight splits the differences into those tied to a change and
// the rest.
func splitPreflight(rep *compare.DiffReport) (tied, other []compare.FactChange) {
	for _, f := range rep.Preflight {
		if len(f.Explains) > 0 {
			tied = append(tied, f)
		} else {
			other = append(other, f)
		}
	}
	return tied, other
}

// workDirs is the work dirs' difference when a dir moved to another file
// system or device, nil otherwise.
func workDirs(rep *compare.DiffReport) *compare.FactChange {
	var dirs *compare.FactChange
	moved := false
	for i := range rep.Preflight {
		switch f := &rep.Preflight[i]; {
		case f.Name == "work dirs":
			dirs = f
		case f.Move != "":
			moved = true
		}
	}
	if !moved {
		return nil
	}
	return dirs
}

// factLine says one difference: "dirs[0].fs_options: +nobarrier
// −barrier", or a work dir's move as its phrase, with how many facts it
// stands for.
func factLine(f compare.FactChange, verbose bool) string {
	if f.Move == "" {
		return f.Name + ": " + factChange(f)
	}
	l := f.Phrase
	if n := len(f.StandsFor); n > 0 && !verbose {
		l += fmt.Sprintf(" (and %d facts with it: -v)", n)
	}
	return l
}

// writeStandsFor lists, with verbose, the facts a move stands for.
func writeStandsFor(w io.Writer, f compare.FactChange, verbose bool) {
	if !verbose {
		return
	}
	for _, s := range f.StandsFor {
		fmt.Fprintln(w, wrap(fmt.Sprintf("      %s: %s", s.Name, factChange(s)), 78, "        "))
	}
}

// explainsText names what a difference explains: two, then how many more.
func explainsText(explains []string) string {
	if len(explains) <= 3 {
		return strings.Join(explains, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(explains[:2], ", "), len(explains)-2)
}

// factChange says what changed: the options added and removed of an
// option list ("+nobarrier −barrier"), else "OLD → NEW".
func factChange(f compare.FactChange) string {
	if f.Added == nil && f.Removed == nil {
		return f.Old + " → " + f.New
	}
	var parts []string
	for _, o := range f.Added {
		parts = append(parts, "+"+o)
	}
	for _, o := range f.Removed {
		parts = append(parts, "−"+o)
	}
	return strings.Join(parts, " ")
}
