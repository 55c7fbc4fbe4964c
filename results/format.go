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

// BytesPerOp renders a mean count of bytes: to three significant
// digits, in K or M past 1024 ("16K" for 16378).
func BytesPerOp(v float64) string {
	switch {
	case v >= 1<<20:
		return strconv.FormatFloat(v/(1<<20), 'g', 3, 64) + "M"
	case v >= 1<<10:
		return strconv.FormatFloat(v/(1<<10), 'g', 3, 64) + "K"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
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

// Count renders a count per op (calls, commits, page faults, requests):
// a whole number as one, else to three decimals, so that the 0.001 a
// table prints is the 0.001 a sentence says.
func Count(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		if v == 0 {
			return "0" // not "-0"
		}
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return fmt.Sprintf("%.3f", v)
}

// SignedMicros renders ns as µs with Micros' precision and an explicit
// sign (− is U+2212, as in prose): "+185", "−4.1".
func SignedMicros(ns float64) string {
	if ns < 0 {
		return "−" + Micros(-ns)
	}
	return "+" + Micros(ns)
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

// Share renders a part of a whole, given as a fraction, in whole percent:
// "57%"; a part that pulls against the whole is "−12%".
func Share(f float64) string {
	if f < 0 {
		return fmt.Sprintf("−%.0f%%", -100*f)
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}

// Rate renders a throughput (ops/s, MB/s) to the whole unit.
func Rate(v float64) string {
	return fmt.Sprintf("%.0f", v)
}

// Ratio renders a ratio to two decimals: "0.61".
func Ratio(v float64) string {
	// Two decimals, or two significant digits below 0.01: a file against
	// BytesIO is 0.0024, which two decimals print as 0.00 (and its
	// interval as [0.00–0.00]). Not below 0.1: a syncing arm's 0.037
	// [0.018–0.055] would push the table past 80 columns, and its interval
	// is wider than the digit it would add.
	if a := math.Abs(v); a > 0 && a < 0.01 && !math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', 1-int(math.Floor(math.Log10(a))), 64)
	}
	return fmt.Sprintf("%.2f", v)
}

// Times is a ratio as a factor, for prose: "1.64×".
func Times(v float64) string {
	return Ratio(v) + "×"
}

// RatioText prints a ratio with its 95% interval: "0.61 [0.59–0.63]", or
// the ratio alone when it has no interval by construction (the baseline
// arm, or the seed protocol's ratio of medians).
func RatioText(e Estimate) string {
	return ratioWith(e, "")
}

// TimesText is RatioText with the × after the ratio, for prose:
// "0.55× [0.53–0.57]".
func TimesText(e Estimate) string {
	return ratioWith(e, "×")
}

func ratioWith(e Estimate, mark string) string {
	if !e.Known() {
		return "-" + mark
	}
	c := Ratio(e.Center) + mark
	switch {
	case e.Bounded() && e.Lo == e.Hi, math.IsNaN(e.Lo):
		return c
	case e.Bounded():
		return c + " [" + Ratio(e.Lo) + "–" + Ratio(e.Hi) + "]"
	}
	return c + " ±∞"
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
	if s.Unit() != "run" {
		return TimeScale{"µs", 1e3}
	}
	return RunScale(s.WallNsPerOp)
}

// RunScale is the scale of the times of a whole run of a command that
// took ns: seconds, milliseconds or µs, as its size calls for.
func RunScale(ns float64) TimeScale {
	switch {
	case ns >= 1e9:
		return TimeScale{"s", 1e9}
	case ns >= 1e6:
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

// Param spells the case's parameter as benchmark names and failures name
// it: "payload=400", "size=1M"; a command has none, its op is a run.
func (a CaseID) Param() string {
	if a.Lab == LabCompare {
		return "op=run"
	}
	if a.SizeBytes > 0 {
		return "size=" + Bytes(int64(a.SizeBytes))
	}
	return "payload=" + Bytes(int64(a.PayloadBytes))
}

// ParamTitle names the case's parameter in a heading: "payload 400B",
// "size 1MB".
func (a CaseID) ParamTitle() string {
	if a.Lab == LabCompare {
		return "per run" // a command has no parameter: its op is a run
	}
	if a.SizeBytes > 0 {
		return "size " + Bytes(int64(a.SizeBytes)) + "B"
	}
	return "payload " + Bytes(int64(a.PayloadBytes)) + "B"
}

// Name spells the case as run.json's spreads between runs name it
// ("modes/NamedTemporaryFile/go//tmp/payload=400"), the spelling of every
// run saved so far: for readers of the file, never a key in memory.
func (a CaseID) Name() string {
	return a.Lab + "/" + a.Arm + "/" + a.Runtime + "/" + a.Dir + "/" + a.Param()
}
