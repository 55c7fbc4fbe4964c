package render

import (
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// WriteMarkdown writes the terminal report as markdown (report.md): per
// group the arms table, each arm's gap to the lab baseline as a sentence,
// each arm's syscall breakdown, and how the run was observed.
func WriteMarkdown(w io.Writer, run *results.Run, sums []*results.Summary, labs explain.LabKnowledge) {
	fmt.Fprintln(w, "# tmpprobe report")
	fmt.Fprintln(w)
	if len(run.Args) > 0 {
		fmt.Fprintf(w, "`tmpprobe %s`", strings.Join(run.Args, " "))
		if !run.Started.IsZero() {
			fmt.Fprintf(w, ", started %s", run.Started.Format("2006-01-02 15:04:05 MST"))
		}
		fmt.Fprintln(w, ".")
	}
	gaps := explain.Comparisons(sums, labs.Pairs)
	if len(sums) > 0 && sums[0].Lab == results.LabCompare {
		writeMarkdownCommands(w, sums, gaps)
		writeMarkdownTail(w, run, sums, labs.Spills)
		return
	}
	for _, g := range results.PeerGroups(sums) {
		first := g[0]
		rate, unit := "ops/s", "op"
		if first.SizeBytes > 0 {
			rate, unit = "MB/s", "round"
		}
		fmt.Fprintf(w, "\n## %s\n\n", explain.GroupTitle(first.Lab, first.Runtime, mdCell(first.Dir), first.ParamTitle()))
		fmt.Fprintf(w, "| arm | %s (median) | 95%% CI | ratio [95%% CI] | µs/%s | kernel µs | user µs | traced ÷ untraced |\n", rate, unit)
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|")
		for _, s := range g {
			if s.Error != "" && !s.OpsPerS.Known() {
				fmt.Fprintf(w, "| %s | FAILED: %s | | | | | | |\n", mdCell(s.Arm), mdCell(errtext.FirstLine(s.Error)))
				continue
			}
			head := s.OpsPerS
			if s.SizeBytes > 0 {
				head = s.MBPerS()
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(s.Arm), results.Rate(head.Center), intervalCell(head),
				results.RatioText(s.Ratio), results.Micros(s.WallNsPerOp), results.Micros(s.KernelNsPerOp), results.Micros(s.UserNsPerOp), results.RatioText(s.Observer))
		}
		writeMarkdownWhy(w, g, gaps)
		for _, s := range g {
			writeMarkdownBreakdown(w, s, unit)
		}
	}
	writeMarkdownTail(w, run, sums, labs.Spills)
}

// writeMarkdownWhy is the WHY section of the terminal report: one sentence
// per arm and per compared pair of the group.
func writeMarkdownWhy(w io.Writer, g []*results.Summary, gaps []explain.Gap) {
	var lines []string
	for _, s := range g {
		if s.Traced != nil {
			lines = append(lines, "- "+mdCell(explain.ArmSentence(s)))
		}
	}
	for _, gap := range gaps {
		if gap.A.PeerKey() == g[0].PeerKey() {
			lines = append(lines, "- "+mdCell(gap.Sentence()))
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nWhy:\n\n%s\n", strings.Join(lines, "\n"))
	}
}

func writeMarkdownBreakdown(w io.Writer, s *results.Summary, unit string) {
	if s.Traced == nil {
		return
	}
	fmt.Fprintf(w, "\n### %s: %s µs/%s = kernel %s + user %s\n\n", mdCell(s.Arm), results.Micros(s.WallNsPerOp), unit,
		results.Micros(s.KernelNsPerOp), results.Micros(s.UserNsPerOp))
	fmt.Fprintf(w, "| syscall | calls/%s | µs/%s | off-CPU µs | p50 µs | p99 µs | off-CPU by label (µs) |\n", unit, unit)
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|---|")
	for _, c := range s.Classes {
		name := c.Class
		switch {
		case c.Overlapped:
			name = "(" + c.Class + ") waiting for a child: in no sum"
		case c.Beside:
			name = c.Class + " ⋯ " + c.Stage + " (device busy beside it, not its cause)"
		case c.Stage != "":
			name = c.Class + " > " + c.Stage
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", mdCell(name), results.Count(c.CallsPerOp), results.Micros(c.NsPerOp),
			results.Micros(c.OffNsPerOp), results.Micros(float64(c.P50)), results.Micros(float64(c.P99)), offLabels(c.OffByLabel))
	}
}

// offLabels lists off-CPU time by label, largest first.
func offLabels(m map[string]float64) string {
	keys := slices.Sorted(maps.Keys(m))
	sort.SliceStable(keys, func(i, j int) bool { return math.Abs(m[keys[i]]) > math.Abs(m[keys[j]]) })
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+" "+results.Micros(m[k]))
	}
	return mdCell(strings.Join(parts, ", "))
}

// writeMarkdownTail is what the terminal prints after the groups: where
// the spooled buffer rolled over, the failed arms with their stderr, and
// the footer, all from the functions the terminal report uses.
func writeMarkdownTail(w io.Writer, run *results.Run, sums []*results.Summary, spills []explain.Spill) {
	if lines := explain.SpillSentences(sums, spills); len(lines) > 0 {
		fmt.Fprintln(w, "\n## Where the spooled buffer rolled over")
		fmt.Fprintln(w)
		for _, line := range lines {
			fmt.Fprintf(w, "- %s\n", mdCell(line))
		}
	}
	if failures := Failures(run.Arms); len(failures) > 0 {
		fmt.Fprintln(w, "\n## Failed arms")
		for _, f := range failures {
			fmt.Fprintf(w, "\n**FAILED** %s\n", mdCell(f.Head))
			if len(f.Tail) > 0 {
				// Four backticks: a stderr line may hold a fence of three.
				fmt.Fprintf(w, "\n````\n%s\n````\n", strings.Join(f.Tail, "\n"))
			}
		}
	}
	fmt.Fprintln(w, "\n## How it was measured")
	fmt.Fprintln(w)
	for _, l := range Footer(run) {
		switch l.Kind {
		case FooterWarning:
			fmt.Fprintf(w, "- **warning:** %s\n", mdCell(l.Text))
		case "":
			fmt.Fprintf(w, "- %s\n", mdCell(l.Text))
		default:
			fmt.Fprintf(w, "- %s: %s\n", l.Kind, mdCell(l.Text))
		}
	}
}
