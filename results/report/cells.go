package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// RateCell spells a throughput with the half-width of its 95% interval,
// as benchstat does: "11675 ±4%"; "±∞" when there are too few rounds for
// an interval, "±>99%" past what a ± can say.
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

// MaxPct is the widest half-width a ± cell prints: past it, "±>99%". A
// throughput of 209 ±140% reads as one that may be negative, and three
// digits move the columns after it; the bounds are in report.md.
const MaxPct = 99

// PctCell is the half-width of an interval as a percentage of its
// median, "±>99%" past MaxPct, "±∞" without one, "" where none can be (a
// rebuilt run).
func PctCell(e results.Estimate) string {
	switch {
	case e.Bounded() && math.Round(e.HalfWidthPct()) > MaxPct:
		return fmt.Sprintf("±>%d%%", MaxPct)
	case e.Bounded():
		return fmt.Sprintf("±%.0f%%", e.HalfWidthPct())
	case math.IsNaN(e.Lo):
		return ""
	}
	return "±∞"
}

// intervalCell spells the bounds alone, each as f spells a figure:
// "11200–12100", "∞" when too few rounds give none.
func intervalCell(e results.Estimate, f func(float64) string) string {
	switch {
	case !e.Known() || math.IsNaN(e.Lo):
		return ""
	case !e.Bounded():
		return "∞"
	}
	return f(e.Lo) + "–" + f(e.Hi)
}

// perOpCell is an untraced time per op (ns) in µs, as the tables print
// it; "-" without one.
func perOpCell(e results.Estimate) string {
	if !e.Known() {
		return "-"
	}
	return results.Micros(e.Center)
}

// noCell is a figure not measured (times of an arm run untraced only).
var noCell = Cell{Short: "-", Long: "-"}

// durationCell is a median time with the half-width of its interval, in
// the unit of sc: "12.3 ms ±4%".
func durationCell(e results.Estimate, sc results.TimeScale) string {
	if !e.Known() {
		return "-"
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s %s", sc.Of(e.Center), sc.Unit, PctCell(e)))
}

// durationBounds is the interval of a time in sc, as report.md's table
// has it: "11.9–12.8 ms".
func durationBounds(e results.Estimate, sc results.TimeScale) string {
	if !e.Bounded() {
		return ""
	}
	return fmt.Sprintf("%s–%s %s", sc.Of(e.Lo), sc.Of(e.Hi), sc.Unit)
}

// timeCell is a per-op time in µs, as both tables print it.
func timeCell(ns float64) Cell {
	return Cell{Value: results.Point(ns), Short: results.Micros(ns), Long: results.Micros(ns)}
}
