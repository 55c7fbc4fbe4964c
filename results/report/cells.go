package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// RateCell spells a throughput with the half-width of its 95% interval,
// as benchstat does: "11675 ±4%"; "±∞" when there are too few rounds for
// an interval.
func RateCell(e results.Estimate) string {
	if !e.Known() {
		return "-"
	}
	return strings.TrimSpace(results.Rate(e.Center) + " " + PctCell(e))
}

// ShortRatioCell is a ratio with the half-width of its interval:
// "0.93 ±3%".
func ShortRatioCell(e results.Estimate) string {
	if !e.Known() {
		return "-"
	}
	return strings.TrimSpace(results.Ratio(e.Center) + " " + PctCell(e))
}

// PctCell is the half-width of an interval as a percentage of its
// median, "±∞" without one, "" where none can be (a rebuilt run).
func PctCell(e results.Estimate) string {
	switch {
	case e.Bounded():
		return fmt.Sprintf("±%.0f%%", e.HalfWidthPct())
	case math.IsNaN(e.Lo):
		return ""
	}
	return "±∞"
}

// intervalCell spells the bounds alone: "11200–12100", "∞" when too few
// rounds give none.
func intervalCell(e results.Estimate) string {
	switch {
	case !e.Known() || math.IsNaN(e.Lo):
		return ""
	case !e.Bounded():
		return "∞"
	}
	return results.Rate(e.Lo) + "–" + results.Rate(e.Hi)
}

// durationCell is a median time with the half-width of its interval, in
// the unit its size calls for: "12.3 ms ±4%".
func durationCell(e results.Estimate) string {
	if !e.Known() {
		return "-"
	}
	t := results.RunScale(e.Center)
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", t.Of(e.Center), t.Unit, PctCell(e)))
}

// msCell and msBounds spell a command's wall time in ms, as report.md's
// table has it: "12.3 ms", and its interval "11.9–12.8 ms".
func msCell(e results.Estimate) string { return results.Micros(e.Center/1e3) + " ms" }

func msBounds(e results.Estimate) string {
	if !e.Bounded() {
		return ""
	}
	return fmt.Sprintf("%s–%s ms", results.Micros(e.Lo/1e3), results.Micros(e.Hi/1e3))
}

// timeCell is a per-op time in µs, as both tables print it.
func timeCell(ns float64) Cell {
	return Cell{Value: results.Point(ns), Short: results.Micros(ns), Long: results.Micros(ns)}
}
