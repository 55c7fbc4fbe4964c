package results

import "github.com/tmpprobe/tmpprobe/internal/escape"

// Escape escapes every string of the run where it is (escape.Strings), so
// that every writer prints it as text: a name read from a saved file, and
// in a live run a traced command's name, its arguments and a worker's
// stderr, reach the terminal, report.md, the CSVs and chart.svg. An arm's
// Error and Stderr keep their newlines and tabs: they are a worker's
// output, shown as lines.
func (r *Run) Escape() { escape.Strings(r, "Error", "Stderr") }
