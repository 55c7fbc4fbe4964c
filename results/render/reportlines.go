package render

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
)

// The parts of the report that the terminal and report.md both print, as
// lines each writer only decorates, so that report.md cannot fall behind
// what the terminal says.

// FooterLine is one line of a report's footer. Kind is "" for a fact,
// FooterWarning or FooterNote.
type FooterLine struct {
	Kind string
	Text string
	// Repeated is a note every run on this machine repeats (why a backend
	// was skipped): the terminal shows it with -v only; check says it once.
	Repeated bool
}

const (
	FooterWarning = "warning"
	FooterNote    = "note"
)

// Footer says how the numbers were taken — backend, host, protocol, the
// filesystem of each work dir — and everything that can change what they
// mean or was lost: preflight warnings, notes, hooks not attached, dropped
// events, an incomplete run.
func Footer(run *results.Run) []FooterLine {
	m := run.Meta
	var out []FooterLine
	add := func(kind, format string, a ...any) {
		out = append(out, FooterLine{Kind: kind, Text: fmt.Sprintf(format, a...)})
	}
	backend := results.OrNone(m.Backend)
	if m.BackendDetail != "" {
		backend += " (" + m.BackendDetail + ")"
	}
	host := []string{"backend " + backend, "kernel " + results.OrNone(m.KernelRelease)}
	if m.Machine != "" {
		host = append(host, m.Machine)
	}
	if m.CPUs > 0 {
		host = append(host, fmt.Sprintf("%d CPUs", m.CPUs))
	}
	if m.Python != "" {
		host = append(host, "Python "+m.Python)
	}
	add("", "%s", strings.Join(host, " · "))
	if m.CPU != "" {
		add("", "CPU: %s", m.CPU)
	}
	if line := run.Protocol.Line(); line != "" {
		add("", "%s", line)
	}
	for _, d := range m.Dirs {
		line := fmt.Sprintf("dir %s: %s on %s (%s)", d.Dir, d.FSType, d.Source, d.Options)
		if d.Journal != "" {
			line += " · journal " + d.Journal
		}
		if d.WriteCache != "" {
			line += fmt.Sprintf(" · %s cache, FUA %s", d.WriteCache, d.FUA)
		}
		add("", "%s", line)
	}
	for _, w := range m.Warnings {
		add(FooterWarning, "%s", w)
	}
	for _, n := range m.Notes {
		add(FooterNote, "%s", n)
		out[len(out)-1].Repeated = strings.Contains(n, backendSkipped)
	}
	for _, h := range m.MissingHooks {
		add(FooterNote, "hook not attached: %s", h)
	}
	var lost []string
	for _, k := range slices.Sorted(maps.Keys(run.Drops)) {
		if v := run.Drops[k]; v > 0 {
			lost = append(lost, fmt.Sprintf("%s=%d", k, v))
		}
	}
	if len(lost) > 0 {
		add(FooterWarning, "events dropped: %s", strings.Join(lost, " "))
	}
	if !run.Complete {
		add(FooterWarning, "the run is incomplete")
	}
	return out
}

// BackendSkippedNote is the note a run records for a backend it did not
// take, and why.
func BackendSkippedNote(backend, class, reason string) string {
	return backend + backendSkipped + class + ": " + reason
}

const backendSkipped = " backend skipped: "

// WriteFooter is the terminal footer at 80 columns with every note.
func WriteFooter(w io.Writer, run *results.Run) {
	writeFooter(w, run, TextOptions{Verbose: true})
}

// writeFooter is the terminal footer: a blank line, then each line wrapped
// to the width, warnings and notes prefixed "warning: " and "note: "
// (vmtest greps them); the notes every run repeats only when verbose.
func writeFooter(w io.Writer, run *results.Run, o TextOptions) {
	fmt.Fprintln(w)
	for _, l := range Footer(run) {
		if l.Repeated && !o.Verbose {
			continue
		}
		text := l.Text
		if l.Kind != "" {
			text = l.Kind + ": " + text
		}
		fmt.Fprintln(w, wrap(text, widthOr(o.Width), "  "))
	}
}

// Failure is an arm that failed: what, where, after how much, and the tail
// of its worker's stderr.
type Failure struct {
	Head string
	Tail []string
}

// Failures lists the failed arms in run order.
func Failures(arms []results.ArmResult) []Failure {
	var out []Failure
	for _, a := range arms {
		if a.Error == "" {
			continue
		}
		f := Failure{Head: fmt.Sprintf("%s/%s (%s, %s, %s) after %d batches: %s", a.Lab, a.Arm, a.Runtime, a.Dir,
			a.Param(), len(a.Batches), errtext.FirstLine(a.Error))}
		lines := strings.Split(strings.TrimSpace(a.Stderr), "\n")
		if len(lines) > 8 {
			lines = lines[len(lines)-8:]
		}
		for _, l := range lines {
			if l != "" {
				f.Tail = append(f.Tail, l)
			}
		}
		out = append(out, f)
	}
	return out
}
