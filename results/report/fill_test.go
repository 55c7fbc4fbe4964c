package report_test

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// A compare group says its times in one unit, its fastest command's:
// with nosync under a millisecond a run and sync at 20 ms, the table is
// in µs, and so are sync's WHY, its breakdown's sentence and time split
// (they said "21.0 ms/run" above a table in µs/run).
func TestCompareGroupSaysOneUnit(t *testing.T) {
	run := resultstest.CommandsRun()
	for i := range run.Arms[0].Batches {
		run.Arms[0].Batches[i].WallNs /= 12 // 10 ms → 0.83 ms
	}
	d := report.New(report.Input{Run: run, Sums: results.SummarizeAll(run, resultstest.Labs.Baselines), Labs: resultstest.Labs},
		report.Options{})
	if len(d.Groups) != 1 || d.Groups[0].Scale.Unit != "µs" {
		t.Fatalf("groups %+v, want one in µs", d.Groups)
	}
	var said []string
	for _, s := range d.Groups[0].Why {
		said = append(said, s.Text)
	}
	for _, a := range d.Arms {
		if a.Scale != d.Groups[0].Scale {
			t.Errorf("%s: its breakdown in %s, its table in µs", a.Arm, a.Scale.Unit)
		}
		said = append(said, a.Sentence.Text, a.Split)
	}
	for _, s := range said {
		if strings.Contains(s, " ms") || !strings.Contains(s, "µs") && strings.Contains(s, "/run") {
			t.Errorf("a sentence not in the table's µs: %s", s)
		}
	}
}

// A run whose batches ran again says so in its footer, in words the
// report gives the note (run.json stores the kind and the count).
func TestFooterSaysBatchesRanAgain(t *testing.T) {
	run := resultstest.CommandsRun()
	run.Meta.Notes = append(run.Meta.Notes, results.Note{Kind: results.NoteRerun, What: "2"})
	d := report.New(report.Input{Run: run, Sums: results.SummarizeAll(run, resultstest.Labs.Baselines), Labs: resultstest.Labs},
		report.Options{})
	for _, l := range d.Footer {
		if strings.HasPrefix(l.Text, "2 traced batches ran again") && strings.Contains(l.Text, "could not be one thread's") {
			return
		}
	}
	t.Errorf("the footer %+v does not say that 2 batches ran again", d.Footer)
}

// #37: with --until the footer said "60 rounds", the cap, where each case
// stopped on its own after 24 or so, and never named --until. It says
// how many ran, of how many at most, and why.
func TestFooterSaysRoundsRanUnderUntil(t *testing.T) {
	run := resultstest.FixtureRun(false)
	run.Protocol.Until = 0.10
	run.Protocol.Rounds = 60
	want := "6 of up to 60 rounds (--until 10%) in random order"
	d := report.New(report.Input{Run: run, Sums: results.SummarizeAll(run, resultstest.Labs.Baselines), Labs: resultstest.Labs},
		report.Options{})
	for _, l := range d.Footer {
		if strings.Contains(l.Text, want) {
			return
		}
	}
	t.Errorf("the footer %+v does not say %q", d.Footer, want)
}
