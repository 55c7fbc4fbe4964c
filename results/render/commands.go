package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// WriteCommandsReport is the terminal report of 'tmpprobe compare', fresh
// or saved: per command its untraced wall time per run, its time ÷ the
// first command's (paired per round) and what tracing cost it, a verdict
// line each, then each command's breakdown over its process tree and the
// WHY of each against the first.
func WriteCommandsReport(w io.Writer, run *results.Run, sums []*results.Summary, labs explain.LabKnowledge, hist bool) {
	fmt.Fprintf(w, "\ncompare · %d commands · %d rounds, each command once untraced and once traced\n", len(sums), run.Protocol.Rounds)
	fmt.Fprintf(w, commandsRow, "COMMAND", "WALL/run ±95%", "× FIRST [95% CI]", "TRACED÷UNTR")
	for _, s := range sums {
		fmt.Fprintf(w, commandsRow, trunc(s.Arm, 27), durationCell(s.WallNsPerRun()), results.RatioText(s.TimeRatio()),
			shortRatioCell(s.ObserverCost()))
	}
	if len(sums) > 1 {
		fmt.Fprintln(w)
		for _, s := range sums[1:] {
			bullet(w, "", explain.CommandVerdict(s, sums[0], compare.DefaultMinEffectPct), DefaultWidth)
		}
	}
	for _, s := range sums {
		writeBreakdown(w, s)
	}
	if hist {
		WriteHistograms(w, sums)
	}
	WriteExplanations(w, sums, labs)
	WriteFailures(w, run.Arms)
	WriteFooter(w, run)
}

// commandsRow is 79 columns with the widest cells.
const commandsRow = "%-27s %15s %20s %13s\n"

// durationCell is a median time with the half-width of its interval, in
// the unit its size calls for: "12.3 ms ±4%".
func durationCell(e results.Estimate) string {
	if !e.Known() {
		return "-"
	}
	t := (&results.Summary{ArmResult: &results.ArmResult{CaseID: results.CaseID{Lab: results.LabCompare}}, WallNsPerOp: e.Center}).TimeScale()
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", t.Of(e.Center), t.Unit, pctCell(e)))
}

// writeMarkdownCommands is WriteCommandsReport in markdown: the table,
// the verdicts, the WHY and each command's breakdown.
func writeMarkdownCommands(w io.Writer, sums []*results.Summary, gaps []explain.Gap) {
	fmt.Fprintln(w, "\n## Commands compared")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| command | wall/run (median) | 95% CI | × first [95% CI] | traced ÷ untraced |")
	fmt.Fprintln(w, "|---|--:|--:|--:|--:|")
	for _, s := range sums {
		wall := s.WallNsPerRun()
		ci := ""
		if wall.Bounded() {
			ci = fmt.Sprintf("%s–%s ms", results.Micros(wall.Lo/1e3), results.Micros(wall.Hi/1e3))
		}
		fmt.Fprintf(w, "| %s | %s ms | %s | %s | %s |\n", mdCell(s.Arm), results.Micros(wall.Center/1e3), ci,
			results.RatioText(s.TimeRatio()), results.RatioText(s.ObserverCost()))
	}
	if len(sums) > 1 {
		fmt.Fprintln(w)
		for _, s := range sums[1:] {
			fmt.Fprintf(w, "- %s\n", mdCell(explain.CommandVerdict(s, sums[0], compare.DefaultMinEffectPct)))
		}
	}
	writeMarkdownWhy(w, sums, gaps)
	for _, s := range sums {
		writeMarkdownBreakdown(w, s, "run")
	}
}
