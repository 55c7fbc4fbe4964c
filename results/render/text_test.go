package render

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// Why a backend was skipped is the same on every run of a machine: the
// terminal says it with -v only (report.md and run.json keep it).
func TestBackendSkippedNotesOnRequest(t *testing.T) {
	run := resultstest.FixtureRun(false)
	run.Meta.Notes = []results.Note{{Kind: results.NoteBackendSkipped, Backend: "fentry", Verdict: "permission refused", Reason: "load program: operation not permitted"},
		{Kind: results.NoteText, What: "vfs_fsync_range: inlined, no stage row"}}
	note := "fentry backend skipped: permission refused: load program: operation not permitted"
	sums := resultstest.Sums(run)
	for _, verbose := range []bool{false, true} {
		var b strings.Builder
		WriteTextReport(&b, run, sums, resultstest.Labs, TextOptions{Verbose: verbose})
		unwrapped := strings.ReplaceAll(b.String(), "\n  ", " ")
		if got := strings.Contains(unwrapped, "note: "+note); got != verbose {
			t.Errorf("verbose %v: the backend note printed: %v", verbose, got)
		}
		if !strings.Contains(unwrapped, "note: vfs_fsync_range") {
			t.Errorf("verbose %v: another note is gone", verbose)
		}
	}
}

// A table in ms or s shows a thousandth of its unit at least, never
// 0.0000364 (#21).
func TestTimeScaleSmallValues(t *testing.T) {
	for _, s := range []struct {
		scale results.TimeScale
		ns    float64
		want  string
	}{
		{secondScale(), 36_400, "<0.001"},
		{secondScale(), 1_500_000, "0.0015"},
		{secondScale(), 2.5e9, "2.50"},
	} {
		if got := s.scale.Of(s.ns); got != s.want {
			t.Errorf("%v ns in %s: %q, want %q", s.ns, s.scale.Unit, got, s.want)
		}
	}
}

func secondScale() results.TimeScale {
	s := results.Summary{ArmResult: &results.ArmResult{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "sleep 2"}}, WallNsPerOp: 2e9}
	return s.TimeScale()
}

// --sort orders the breakdown, stages staying under their syscall; the
// summary itself keeps its order (#21).
func TestBreakdownSort(t *testing.T) {
	run := resultstest.FixtureRun(false)
	sums := resultstest.Sums(run)
	firstRow := func(by string) string {
		var b strings.Builder
		WriteTextReport(&b, run, sums, resultstest.Labs, TextOptions{Sort: by})
		_, after, _ := strings.Cut(b.String(), "    SYSCALL ")
		_, row, _ := strings.Cut(after, "\n")
		return strings.Fields(row)[0]
	}
	if got := firstRow(""); got != "openat[tmpfile]" {
		t.Errorf("by time: first %q", got)
	}
	if got := firstRow("name"); got != "close" {
		t.Errorf("by name: first %q", got)
	}
	if got := firstRow(""); got != "openat[tmpfile]" {
		t.Errorf("sorting changed the summary: by time, first %q", got)
	}
}

// #37: report.md passed raw HTML from a command's name to whatever
// renders it. A name is text there: its "<" is an entity in a table or a
// sentence, and its backticks cannot end the code span that quotes the
// command line.
func TestMarkdownShowsNamesAsText(t *testing.T) {
	run := resultstest.CommandsRun()
	hostile := "sh -c '<img src=x onerror=alert(1)>' `x`"
	run.Arms[1].Arm = hostile
	run.Args = []string{"compare", "nosync", hostile}
	var out strings.Builder
	WriteMarkdown(&out, run, resultstest.Sums(run), resultstest.Labs)
	md := out.String()
	if !strings.Contains(md, "&lt;img") {
		t.Fatalf("the name is not in report.md as text:\n%s", md)
	}
	// Outside the one code span, no tag: the span's fence is longer than
	// the name's backticks.
	span := "`` tmpprobe compare nosync " + hostile + " ``" // padded: the name ends in a backtick
	if rest := strings.Replace(md, span, "", 1); strings.Contains(rest, "<img") || rest == md {
		t.Errorf("report.md holds a raw tag outside the command line's code span %s:\n%s", span, md)
	}
}
