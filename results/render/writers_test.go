package render

import (
	"bytes"
	"image/png"
	"io"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

func TestGoldenWriters(t *testing.T) {
	for _, variant := range resultstest.Variants {
		run := resultstest.FixtureRun(variant.Slow)
		sums := resultstest.Sums(run)
		resultstest.Golden(t, variant.Name+"/arms.csv", resultstest.Render(t, func(w io.Writer) error { return WriteArmsCSV(w, sums) }))
		resultstest.Golden(t, variant.Name+"/syscalls.csv", resultstest.Render(t, func(w io.Writer) error { return WriteSyscallCSV(w, run, sums) }))
		resultstest.Golden(t, variant.Name+"/report.md", resultstest.Render(t, func(w io.Writer) error { WriteMarkdown(w, run, sums, resultstest.Labs); return nil }))
		resultstest.Golden(t, variant.Name+"/report.json", resultstest.Render(t, func(w io.Writer) error { return WriteSummaryJSON(w, run, sums, resultstest.Labs) }))
	}
	// A run whose ratio moved with the state of the file system: report.md
	// says so in its Why, as the terminal's WHY does.
	run := resultstest.StateRun()
	sums := resultstest.Sums(run)
	resultstest.Golden(t, "state/report.md", resultstest.Render(t, func(w io.Writer) error { WriteMarkdown(w, run, sums, resultstest.Labs); return nil }))
}

func TestGoldenDiff(t *testing.T) {
	rep := report.NewDiff(compare.Diff("old", resultstest.FixtureRun(false), "new", resultstest.FixtureRun(true), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, compare.GateOn(compare.GateTime, 10)))
	resultstest.Golden(t, "diff.txt", resultstest.Render(t, func(w io.Writer) error { WriteDiffText(w, rep); return nil }))
	resultstest.Golden(t, "diff.md", resultstest.Render(t, func(w io.Writer) error { WriteDiffMarkdown(w, rep); return nil }))
	resultstest.Golden(t, "diff.json", resultstest.Render(t, func(w io.Writer) error { return WriteDiffJSON(w, rep) }))
	drift := report.NewDiff(compare.Diff("old", resultstest.FixtureRun(false), "slow", resultstest.Scaled(resultstest.FixtureRun(false), 1.25), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, compare.GateOn(compare.GateTime, 10)))
	resultstest.Golden(t, "diff-drift.txt", resultstest.Render(t, func(w io.Writer) error { WriteDiffText(w, drift); return nil }))
	three := compare.DiffMany([]string{"old", "new", "slow"}, []*results.Run{resultstest.FixtureRun(false), resultstest.FixtureRun(true), resultstest.Scaled(resultstest.FixtureRun(false), 1.25)},
		resultstest.Labs.Baselines, compare.DefaultMinEffectPct)
	resultstest.Golden(t, "diff3.txt", resultstest.Render(t, func(w io.Writer) error { WriteMatrixText(w, three); return nil }))
	resultstest.Golden(t, "diff3.md", resultstest.Render(t, func(w io.Writer) error { WriteMatrixMarkdown(w, three); return nil }))
	resultstest.Golden(t, "diff3.json", resultstest.Render(t, func(w io.Writer) error { return WriteMatrixJSON(w, three) }))
}

func TestChart(t *testing.T) {
	sums := resultstest.Sums(resultstest.FixtureRun(true))
	svg := resultstest.Render(t, func(w io.Writer) error { return WriteChart(w, sums, "svg") })
	for _, want := range []string{"<svg", "fsync", "user space", "µs per op", "µs per round", "mkstemp-fsync"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("chart.svg lacks %q", want)
		}
	}
	img, err := png.Decode(bytes.NewReader(resultstest.Render(t, func(w io.Writer) error { return WriteChart(w, sums, "png") })))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() < 800 || b.Dy() < 200 {
		t.Errorf("chart.png is %v", b)
	}
	if err := WriteChart(io.Discard, nil, "svg"); err == nil {
		t.Error("an empty run drew a chart")
	}
}
