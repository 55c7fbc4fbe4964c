package results

import (
	"fmt"
	"math"
	"strconv"
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

// Calls renders a count per op: a whole number as one, else to three
// decimals.
func Calls(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3f", v)
}

// RatioText prints a ratio with its 95% interval: "0.61 [0.59–0.63]", or
// the ratio alone when it has no interval by construction (the baseline
// arm, or the seed protocol's ratio of medians).
func RatioText(e Estimate) string {
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

// SignedPct renders a change in percent with its sign (− is U+2212, as in
// prose): "+3.1%", "−57%".
func SignedPct(p float64) string {
	sign := "+"
	if math.Round(p*10) == 0 {
		p = 0 // not "+-0.0%"
	}
	if p < 0 {
		sign, p = "−", -p
	}
	if p >= 10 {
		return fmt.Sprintf("%s%.0f%%", sign, p)
	}
	return fmt.Sprintf("%s%.1f%%", sign, p)
}

// PValue prints a p-value as benchstat does, to three places.
func PValue(p float64) string {
	return fmt.Sprintf("%.3f", p)
}

// OrNone is s, or "(none)" for a fact that is empty.
func OrNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// TimeScale is the unit per-op times print in: µs for lab ops, and for a
// whole traced run, ms or s as its length calls for, so a 3.6 s run does
// not read "3630061 µs".
type TimeScale struct {
	Unit string // µs, ms or s
	ns   float64
}

// TimeScale is the scale of the summary's per-op times.
func (s *Summary) TimeScale() TimeScale {
	switch {
	case s.Unit() != "run":
	case s.WallNsPerOp >= 1e9:
		return TimeScale{"s", 1e9}
	case s.WallNsPerOp >= 1e6:
		return TimeScale{"ms", 1e6}
	}
	return TimeScale{"µs", 1e3}
}

// Of renders ns in the scale's unit: Micros' precision for µs, and three
// significant digits for ms and s down to a thousandth of the unit; below
// that "<0.001" (a 36 µs row of a table in s read 0.0000364).
func (t TimeScale) Of(ns float64) string {
	v := ns / t.ns
	switch {
	case t.Unit == "µs":
		return Micros(ns)
	case v == 0:
		return "0"
	case math.Abs(v) < 0.001:
		if v < 0 {
			return ">-0.001"
		}
		return "<0.001"
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
