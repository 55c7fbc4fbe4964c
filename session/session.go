//go:build linux

// Package session is what each of tmpprobe's commands does between its
// flags and its exit status: the labs, a trace, a comparison of commands,
// a saved run read back, a diff of saved runs. A session builds the run
// record, opens the probe and records its notes, escapes what it prints,
// summarizes, reads the earlier runs beside it and widens the intervals
// by their spread, derives the warnings, writes the report and saves the
// files. cmd/tmpprobe keeps the flags, the usage, the progress line and
// the exit codes, which it chooses from the typed errors a session ends
// with (errors.go).
package session

import (
	"fmt"
	"io"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/escape"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// Outcome is what every session produces: the run as measured (or as
// read back), its summaries, and what the labs' catalogue knows, which
// the report's sentences compare.
type Outcome struct {
	Run  *results.Run
	Sums []*results.Summary
	Labs explain.LabKnowledge
}

// newRun is the run record a session starts from its configuration: its
// kind and the command line (args) that asked for it; the session fills
// in what it measures.
func newRun(kind results.RunKind, args []string) *results.Run {
	return &results.Run{Schema: results.Schema, Tool: "tmpprobe", Kind: kind, Args: args}
}

// conclude is how every measuring session ends: the run summarized
// (derive), what the session adds to it (then, when set), and the run
// saved and reported (Outputs.finish).
func (o *Outputs) conclude(run *results.Run, labs explain.LabKnowledge, stdout, stderr io.Writer, then func(*Outcome)) (*Outcome, error) {
	out := derive(run, labs)
	if then != nil {
		then(out)
	}
	return out, o.finish(stdout, stderr, out)
}

// derive summarizes the run, escaped first as a saved run is when read
// back, so that a live report and a report of the saved run print alike
// (a command named by a Python snippet holds a newline).
func derive(run *results.Run, labs explain.LabKnowledge) *Outcome {
	run.Escape()
	return &Outcome{Run: run, Sums: results.SummarizeAll(run, labs.Baselines), Labs: labs}
}

// say says notes on stderr now, before the run, and returns them for
// the report's footer.
func say(stderr io.Writer, kind results.RunKind, notes ...results.Note) []results.Note {
	for _, n := range notes {
		fmt.Fprintln(stderr, "tmpprobe:", escape.Line(report.NoteText(n, kind)))
	}
	return notes
}

// leftovers are the notes of what an earlier, killed tmpprobe left and
// this one removed.
func leftovers(removed []string) []results.Note {
	var out []results.Note
	for _, r := range removed {
		out = append(out, results.Note{Kind: results.NoteLeftoverRemoved, What: r})
	}
	return out
}

// knowledge is the labs' catalogue as the report's sentences need it.
func knowledge() explain.LabKnowledge { return arms.Knowledge() }
