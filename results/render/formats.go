package render

import (
	"io"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// Format is an output kind and its writers: a run's report, and where the
// kind has one, a diff of two runs and of more.
type Format struct {
	// Name is the kind as --format takes it; Aliases are its other names.
	Name    string
	Aliases []string
	// What names the output in an error: "writing " + What.
	What string
	// Report writes a run's report. Text, markdown and JSON write its
	// report.Document, the text laid out by the options.
	Report func(w io.Writer, in report.Input, o TextOptions) error
	// Diff and Matrix write a diff of two runs and of more; nil where
	// the kind has none.
	Diff   func(w io.Writer, d *report.DiffDocument, verbose bool) error
	Matrix func(w io.Writer, rep *compare.MatrixReport) error
	// Live kinds are what run, all, trace and compare write their report
	// in (--format); the others a saved run's (report --format).
	Live bool
	// Binary output is refused on a terminal.
	Binary bool
}

// Formats are every output kind, in the order help names them.
var Formats = []Format{
	{Name: "text", What: "the report", Live: true,
		Report: func(w io.Writer, in report.Input, o TextOptions) error {
			WriteTextReport(w, in.Run, in.Sums, in.Labs, o)
			return nil
		},
		Diff: func(w io.Writer, d *report.DiffDocument, verbose bool) error {
			WriteDiffTextVerbose(w, d, verbose)
			return nil
		},
		Matrix: func(w io.Writer, rep *compare.MatrixReport) error { WriteMatrixText(w, rep); return nil }},
	{Name: "markdown", Aliases: []string{"md"}, What: "markdown",
		Report: func(w io.Writer, in report.Input, _ TextOptions) error {
			WriteMarkdownDocument(w, report.New(in, report.Options{}))
			return nil
		},
		Diff:   func(w io.Writer, d *report.DiffDocument, _ bool) error { WriteDiffMarkdown(w, d); return nil },
		Matrix: func(w io.Writer, rep *compare.MatrixReport) error { WriteMatrixMarkdown(w, rep); return nil }},
	{Name: "json", What: "JSON", Live: true,
		Report: func(w io.Writer, in report.Input, _ TextOptions) error {
			return WriteJSONDocument(w, report.New(in, report.Options{}))
		},
		Diff:   func(w io.Writer, d *report.DiffDocument, _ bool) error { return WriteDiffJSON(w, d) },
		Matrix: WriteMatrixJSON},
	{Name: "pprof", What: "the profile", Binary: true,
		Report: func(w io.Writer, in report.Input, _ TextOptions) error { return WritePprof(w, in.Run, in.Sums) }},
	{Name: "benchfmt", What: "benchmark lines",
		Report: func(w io.Writer, in report.Input, _ TextOptions) error { return WriteBenchfmt(w, in.Run, in.Sums) }},
}

// FormatNamed is the format --format names, if any of those keep says
// is one.
func FormatNamed(name string, keep func(Format) bool) (Format, bool) {
	for _, f := range Formats {
		if keep(f) && (f.Name == name || slices.Contains(f.Aliases, name)) {
			return f, true
		}
	}
	return Format{}, false
}

// FormatNames lists the names of the formats keep says are ones, as help
// and errors name them: "text, markdown or json".
func FormatNames(keep func(Format) bool) string {
	var names []string
	for _, f := range Formats {
		if keep(f) {
			names = append(names, f.Name)
		}
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// AnyFormat, LiveFormat and DiffFormat pick formats: every one, those a
// run writes its report in, those a diff is written in.
func AnyFormat(Format) bool    { return true }
func LiveFormat(f Format) bool { return f.Live }
func DiffFormat(f Format) bool { return f.Diff != nil }
