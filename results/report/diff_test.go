package report_test

import (
	"testing"

	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// A diff of traces heads each group with what was traced, not a lab
// header with an empty runtime, dir and payload (#21).
func TestTraceGroupTitle(t *testing.T) {
	for _, d := range resultstest.Diffs() {
		if d.Name != "trace-fell" {
			continue
		}
		doc := report.NewDiff(d.Judge())
		if len(doc.Groups) != 1 || doc.Groups[0].Title != "trace · ./app" {
			t.Errorf("groups %+v, want one titled trace · ./app", doc.Groups)
		}
		return
	}
	t.Fatal("no trace-fell diff among the fixtures")
}
