package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Bytes renders a byte count the way the labs name sizes: 400, 64K, 1M.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "K"
	}
	return strconv.FormatInt(n, 10)
}

// Micros renders ns as µs with a precision that suits its size.
func Micros(ns float64) string {
	us := ns / 1000
	switch {
	case us == 0:
		return "0"
	case us < 0.01 && us > -0.01:
		return fmt.Sprintf("%.3f", us)
	case us < 10 && us > -10:
		return fmt.Sprintf("%.2f", us)
	case us < 1000 && us > -1000:
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.0f", us)
}

// rateCell prints a throughput with the half-width of its 95% interval,
// as benchstat does: "11675 ±4%"; "±∞" when there are too few rounds for
// an interval.
func rateCell(e Estimate) string {
	if !e.Known() {
		return "-"
	}
	return strings.TrimSpace(fmt.Sprintf("%.0f %s", e.Center, pctCell(e)))
}

// ratioCell prints a ratio with its 95% interval: "0.61 [0.59–0.63]", or
// the ratio alone when it has no interval by construction (the baseline
// arm, or the seed protocol's ratio of medians).
func ratioCell(e Estimate) string {
	switch {
	case !e.Known():
		return "-"
	case e.Bounded() && e.Lo == e.Hi:
		return fmt.Sprintf("%.2f", e.Center)
	case e.Bounded():
		return fmt.Sprintf("%.2f [%.2f–%.2f]", e.Center, e.Lo, e.Hi)
	case math.IsNaN(e.Lo):
		return fmt.Sprintf("%.2f", e.Center)
	}
	return fmt.Sprintf("%.2f ±∞", e.Center)
}

// timesCell is ratioCell with a × after the ratio, for prose.
func timesCell(e Estimate) string {
	c := ratioCell(e)
	if i := strings.IndexByte(c, ' '); i > 0 {
		return c[:i] + "×" + c[i:]
	}
	return c + "×"
}

// shortRatioCell is a ratio with the half-width of its interval: "0.93 ±3%".
func shortRatioCell(e Estimate) string {
	if !e.Known() {
		return "-"
	}
	return strings.TrimSpace(fmt.Sprintf("%.2f %s", e.Center, pctCell(e)))
}

func pctCell(e Estimate) string {
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
func intervalCell(e Estimate) string {
	switch {
	case !e.Known() || math.IsNaN(e.Lo):
		return ""
	case !e.Bounded():
		return "∞"
	}
	return fmt.Sprintf("%.0f–%.0f", e.Lo, e.Hi)
}

// timeScale is the unit per-op times print in: µs for lab ops, and for a
// whole traced run, ms or s as its length calls for, so a 3.6 s run does
// not read "3630061 µs".
type timeScale struct {
	unit string
	ns   float64
}

func scaleOf(s *Summary) timeScale {
	switch {
	case s.Unit() != "run":
	case s.WallNsPerOp >= 1e9:
		return timeScale{"s", 1e9}
	case s.WallNsPerOp >= 1e6:
		return timeScale{"ms", 1e6}
	}
	return timeScale{"µs", 1e3}
}

// of renders ns in the scale's unit: Micros' precision for µs, and three
// significant digits for ms and s (0.0001 s, not 0.000).
func (t timeScale) of(ns float64) string {
	v := ns / t.ns
	switch {
	case t.unit == "µs":
		return Micros(ns)
	case v == 0:
		return "0"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.2f", v)
	}
	k := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return strconv.FormatFloat(math.Round(v*k)/k, 'f', -1, 64)
}
