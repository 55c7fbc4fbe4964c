package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// rateCell prints a throughput with the half-width of its 95% interval,
// as benchstat does: "11675 ±4%"; "±∞" when there are too few rounds for
// an interval.
func rateCell(e results.Estimate) string {
	if !e.Known() {
		return "-"
	}
	return strings.TrimSpace(results.Rate(e.Center) + " " + pctCell(e))
}

// shortRatioCell is a ratio with the half-width of its interval: "0.93 ±3%".
func shortRatioCell(e results.Estimate) string {
	if !e.Known() {
		return "-"
	}
	return strings.TrimSpace(results.Ratio(e.Center) + " " + pctCell(e))
}

func pctCell(e results.Estimate) string {
	switch {
	case e.Bounded():
		return fmt.Sprintf("±%.0f%%", e.HalfWidthPct())
	case math.IsNaN(e.Lo):
		return ""
	}
	return "±∞"
}

// intervalCell prints the bounds alone: "11200–12100", "∞" when too few
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
