package render_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// The terminal, report.md and JSON say the same sentences, because they
// write one report.Document: for every fixture (the golden runs, the
// real 'all' kept as a syscalls.csv, a run whose ratio followed the state
// of the file system, a compare, a trace, and the runs with user space
// measured and stacks taken), each writer as --format reaches it says
// every sentence of the document (each arm's and where in the code its
// time went, each verdict, each gap and state link, each rollover, each
// failed arm, each footer line) and no other.
func TestWritersSayTheSameSentences(t *testing.T) {
	all, err := runfile.LoadRun(filepath.Join(resultstest.Testdata, "all", "syscalls.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, fx := range []struct {
		name string
		run  *results.Run
	}{
		{"old", resultstest.FixtureRun(false)}, {"new", resultstest.FixtureRun(true)}, {"all", all},
		{"state", resultstest.StateRun()}, {"compare", resultstest.CommandsRun()}, {"trace", resultstest.TraceRun()},
		{"code", resultstest.CodeRun()}, {"app", resultstest.AppTrace(true)}, {"spin", resultstest.SpinTrace()},
	} {
		labs := resultstest.Labs
		if fx.run.Stacks != nil {
			labs = resultstest.CodeLabs
		}
		in := report.Input{Run: fx.run, Sums: results.SummarizeAll(fx.run, labs.Baselines), Labs: labs}
		want := sentences(report.New(in, report.Options{}))
		if len(want) < 4 {
			t.Fatalf("%s: %d sentences: the fixture says too little to test", fx.name, len(want))
		}
		out := map[string]string{}
		for _, name := range []string{"text", "markdown", "json"} {
			f, _ := render.FormatNamed(name, render.AnyFormat)
			var b strings.Builder
			if err := f.Report(&b, in, render.TextOptions{Verbose: true}); err != nil {
				t.Fatal(err)
			}
			out[name] = b.String()
		}
		// Text wraps at 80 columns and markdown escapes a table's bar:
		// each sentence is found whole, words joined by single spaces.
		flat := strings.Join(strings.Fields(out["text"]), " ")
		md := strings.Join(strings.Fields(out["markdown"]), " ")
		for _, s := range want {
			if !strings.Contains(flat, strings.Join(strings.Fields(s), " ")) {
				t.Errorf("%s: the terminal lacks %q", fx.name, s)
			}
			if !strings.Contains(md, strings.Join(strings.Fields(mdEscaped(s)), " ")) {
				t.Errorf("%s: report.md lacks %q", fx.name, s)
			}
		}
		if got := textSentences(out["text"]); got != len(want) {
			t.Errorf("%s: the terminal says %d sentences, the document %d:\n%s", fx.name, got, len(want), out["text"])
		}
		if got := markdownSentences(out["markdown"]); got != len(want) {
			t.Errorf("%s: report.md says %d sentences, the document %d:\n%s", fx.name, got, len(want), out["markdown"])
		}
		if got := jsonSentences(t, out["json"]); !slices.Equal(got, sorted(want)) {
			t.Errorf("%s: JSON says\n%q\nthe document\n%q", fx.name, got, sorted(want))
		}
	}
}

// sentences are what a document says, in words: each traced arm's
// sentence, each group's verdicts and WHY, the rollovers, the failed arms
// and the footer.
func sentences(d *report.Document) []string {
	var arms []string
	for _, a := range d.Arms {
		if a.Traced {
			arms = append(arms, a.Sentence.Text)
			for _, c := range a.Code {
				arms = append(arms, c.Text)
			}
		}
	}
	var groups [][]report.Sentence
	for _, g := range d.Groups {
		groups = append(groups, append(slices.Clone(g.Verdicts), g.Why...))
	}
	return said(arms, groups, d.Spills, d.Failures, d.Footer)
}

// said lists the words of a report's parts, in order.
func said(arms []string, groups [][]report.Sentence, spills []report.Sentence, failures []report.Failure, footer []report.FooterLine) []string {
	out := slices.Clone(arms)
	for _, s := range append(slices.Concat(groups...), spills...) {
		out = append(out, s.Text)
	}
	for _, f := range failures {
		out = append(out, f.Head)
	}
	for _, l := range footer {
		out = append(out, l.Text)
	}
	return out
}

// textSentences counts the terminal's sentences: its bullets, its failed
// arms and the lines of its footer (its last paragraph, a line and its
// indented continuations).
func textSentences(out string) int {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	n := 0
	last := 0
	for i, l := range lines {
		switch {
		case strings.HasPrefix(strings.TrimLeft(l, " "), "• "), strings.HasPrefix(l, "FAILED "):
			n++
		case l == "":
			last = i
		}
	}
	for _, l := range lines[last+1:] {
		if !strings.HasPrefix(l, " ") {
			n++
		}
	}
	return n
}

// markdownSentences counts report.md's: its list items and failed arms.
func markdownSentences(out string) int { return linesStarting(out, "- ", "**FAILED** ") }

// linesStarting counts the lines of out that start with one of prefixes.
func linesStarting(out string, prefixes ...string) int {
	n := 0
	for _, l := range strings.Split(out, "\n") {
		if slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(l, p) }) {
			n++
		}
	}
	return n
}

// jsonSentences are the JSON report's, sorted.
func jsonSentences(t *testing.T, out string) []string {
	var rep render.SummaryReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	var arms []string
	for _, a := range rep.Arms {
		if a.Sentence != "" {
			arms = append(arms, a.Sentence)
		}
		for _, c := range a.Code {
			arms = append(arms, c.Text)
		}
	}
	var groups [][]report.Sentence
	for _, g := range rep.Groups {
		groups = append(groups, append(slices.Clone(g.Verdicts), g.Why...))
	}
	return sorted(said(arms, groups, rep.Spills, rep.Failures, rep.Footer))
}

// mdEscaped is a sentence as a markdown cell spells it: a bar escaped,
// "<" and "&" as entities (a Python frame's "<module>" is not a tag).
func mdEscaped(s string) string {
	return strings.NewReplacer("|", `\|`, "&", "&amp;", "<", "&lt;").Replace(s)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// A diff's writers say the same sentences, because they write one
// report.DiffDocument: for every diff fixture (resultstest.Diffs and the
// golden diffs among them, and a run rebuilt from a CSV against a
// run.json), the terminal with -v, report.md and JSON each say every
// sentence of the document (its failed arms, its warnings, where its
// noise came from, its neighbours, its groups' drift notes, the head of
// its changes and each changed arm's sentence, the arms too few rounds
// judge, what arms said alike within noise, the pointer at the
// preflight, the gate's verdict), report.md as one bullet each, and
// JSON those and no other.
func TestDiffWritersSayTheSameSentences(t *testing.T) {
	old, err := runfile.LoadRun(filepath.Join(resultstest.Testdata, "old", "syscalls.csv"))
	if err != nil {
		t.Fatal(err)
	}
	fixtures := append(resultstest.Diffs(), resultstest.Diff{Name: "csv", Old: old, New: resultstest.FixtureRun(true)})
	for _, fx := range fixtures {
		doc := report.NewDiff(fx.Judge())
		want := diffSentences(doc)
		out := map[string]string{}
		for _, name := range []string{"text", "markdown", "json"} {
			f, _ := render.FormatNamed(name, render.DiffFormat)
			var b strings.Builder
			if err := f.Diff(&b, doc, true); err != nil {
				t.Fatal(err)
			}
			out[name] = b.String()
		}
		flat := strings.Join(strings.Fields(out["text"]), " ")
		md := strings.Join(strings.Fields(out["markdown"]), " ")
		said := func(s string) string { return strings.Join(strings.Fields(s), " ") }
		for _, s := range want {
			if !strings.Contains(md, said(strings.ReplaceAll(s, "|", `\|`))) {
				t.Errorf("%s: report.md lacks %q", fx.Name, s)
			}
		}
		// The terminal says a drift note under its group's title.
		for _, s := range append(diffSentencesBut(doc), driftSaid(doc)...) {
			if !strings.Contains(flat, said(s)) {
				t.Errorf("%s: the terminal lacks %q", fx.Name, s)
			}
		}
		n := len(want) - 1 // the head of the changes is no bullet, nor the verdict
		if doc.Gate != "" {
			n--
		}
		if got := markdownBullets(out["markdown"]); got != n {
			t.Errorf("%s: report.md has %d bullets, the document %d sentences besides its head of changes and its verdict:\n%s", fx.Name, got, n, out["markdown"])
		}
		if got := jsonDiffSentences(t, out["json"]); !slices.Equal(got, sorted(want)) {
			t.Errorf("%s: JSON says\n%q\nthe document\n%q", fx.Name, got, sorted(want))
		}
	}
}

// diffSentences are what a diff document says, in words, drift notes
// whole; diffSentencesBut all of them but the drift notes.
func diffSentences(d *report.DiffDocument) []string {
	out := diffSentencesBut(d)
	for _, n := range d.Drift {
		out = append(out, n.Sentence)
	}
	return out
}

func diffSentencesBut(d *report.DiffDocument) []string {
	out := slices.Concat(d.Failures, d.Problems)
	for _, s := range []string{d.Between, d.LeftOut} {
		if s != "" {
			out = append(out, s)
		}
	}
	for _, n := range d.Neighbours {
		out = append(out, n.Text)
	}
	out = append(out, d.ChangedHead)
	out = append(out, d.Changed...)
	for _, s := range []string{d.TooFew, d.Tellable} {
		if s != "" {
			out = append(out, s)
		}
	}
	out = append(out, d.Storage...)
	out = append(out, d.WorkToo...)
	out = append(out, d.RunQueue...)
	for _, s := range []string{d.SameDirection, d.Gate} {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// driftSaid are the drift notes as a group's table says them, under its
// title.
func driftSaid(d *report.DiffDocument) []string {
	var out []string
	for _, n := range d.Drift {
		out = append(out, n.Said)
	}
	return out
}

// markdownBullets counts report.md's list items but OLD's and NEW's.
func markdownBullets(out string) int { return linesStarting(out, "- ") - 2 }

// jsonDiffSentences are the JSON diff's sentences, sorted: each changed
// arm's (regressed or improved on its own), and every other sentence
// the document says.
func jsonDiffSentences(t *testing.T, out string) []string {
	var d render.DiffJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	got := slices.Concat(d.Failures, d.Problems, d.Neighbours, d.Storage, d.WorkToo, d.RunQueue)
	for _, s := range []string{d.BetweenRuns, d.LeftOut, d.Changed, d.TooFew, d.Tellable, d.SameDirection, d.Verdict} {
		if s != "" {
			got = append(got, s)
		}
	}
	for _, n := range d.Drift {
		got = append(got, n.Sentence)
	}
	for _, a := range d.Arms {
		if (a.Status == compare.StatusRegressed || a.Status == compare.StatusImproved) && !a.WithGroup {
			got = append(got, a.Sentence)
		}
	}
	return sorted(got)
}
