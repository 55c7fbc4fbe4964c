package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// A diff of two traces, one sample a side, shows the change and how few
// samples stand behind it, not "6→6 too few" (#21).
func TestTraceDiffShowsItsChange(t *testing.T) {
	trace := func(wall int64) *results.Run {
		run := resultstest.FixtureRun(false)
		a := results.ArmResult{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "./app", Runtime: "-"}, Ops: 1}
		a.Batches = resultstest.Batches(1, []int64{wall}, func(int) []results.ClassRecord {
			return []results.ClassRecord{resultstest.Rec("write", 10, 1_000, 0, "")}
		})
		run.Arms = []results.ArmResult{a}
		return run
	}
	rep := report.NewDiff(compare.Diff("old", trace(4_000_000), "new", trace(8_000_000), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, compare.GateOn(compare.GateTime, 10)))
	var text, md bytes.Buffer
	render.WriteDiffText(&text, rep)
	render.WriteDiffMarkdown(&md, rep)
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		if !strings.Contains(out, "−50%") || !strings.Contains(out, "n=1") {
			t.Errorf("%s: the trace's change −50%% with n=1 is missing:\n%s", name, out)
		}
		if strings.Contains(out, "too few |") || strings.Contains(out, "→250 too few") {
			t.Errorf("%s: still says only \"too few\":\n%s", name, out)
		}
	}
}
