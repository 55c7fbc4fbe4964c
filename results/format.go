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

// Size renders a byte count for a reader, in one family (IEC: KiB,
// MiB, GiB) everywhere a report names bytes: "400 B", "256 KiB",
// "1 MiB", "3.9 MiB"; to three significant digits past 1024.
func Size(v float64) string {
	for _, u := range []struct {
		unit  string
		bytes float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if math.Abs(v) >= u.bytes {
			return sig3(v/u.bytes) + " " + u.unit
		}
	}
	return sig3(v) + " B"
}

// sig3 is v to three significant digits, whole from 100 up (never
// "1e+03").
func sig3(v float64) string {
	if math.Abs(v) >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
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

// Count renders a count per op (calls, commits, page faults, requests)
// as a person reads one: a whole number whole ("1", "3"); from 1 up, one
// decimal ("3.2", "803.9": three read as thousands); below 1, two
// significant digits ("0.052", "0.1"), down to 0.0001. One rule, so the
// count a table prints is the count a sentence says.
func Count(v float64) string {
	a := math.Abs(v)
	switch {
	case v == math.Trunc(v) && a < 1e15:
		if v == 0 {
			return "0" // not "-0"
		}
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a < 0.0001:
		if v < 0 {
			return ">-0.0001"
		}
		return "<0.0001"
	}
	s := strconv.FormatFloat(v, 'g', 2, 64)
	if s == "1" || s == "-1" {
		return s + ".0" // 0.996 is not a whole 1
	}
	return s
}

// SignedMicros renders ns as µs with Micros' precision and an explicit
// sign (− is U+2212, as in prose): "+185", "−4.1".
func SignedMicros(ns float64) string { return MicroScale.Signed(ns) }

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
// "57%"; a part that pulls against the whole is "−12%"; never "−0%".
// Sentences leave out a share that rounds to 0% (ShareSaid).
func Share(f float64) string {
	if math.Round(100*f) == 0 {
		return "0%"
	}
	if f < 0 {
		return fmt.Sprintf("−%.0f%%", -100*f)
	}
	return fmt.Sprintf("%.0f%%", 100*f)
}

// ShareSaid is whether a share is worth a word: it does not round to 0%.
func ShareSaid(f float64) bool { return math.Round(100*f) != 0 }

// Rate renders a throughput (ops/s, MiB/s) to the whole unit.
func Rate(v float64) string {
	return fmt.Sprintf("%.0f", v)
}

// Ratio renders a ratio to two decimals: "0.61".
func Ratio(v float64) string {
	return strconv.FormatFloat(v, 'f', ratioDecimals(v), 64)
}

// ratioDecimals is how many decimals a ratio prints with: two, or two
// significant digits below 0.01 (a file against BytesIO is 0.0024,
// which two decimals print as 0.00), at most four; one from 10 up and
// none from 100 (a compared command many times as fast). Not three
// below 0.1: a syncing arm's 0.037 [0.018–0.055] would widen its cell,
// and its interval is wider than the digit it would add.
func ratioDecimals(v float64) int {
	a := math.Abs(v)
	switch {
	case a == 0 || math.IsInf(v, 0) || math.IsNaN(v):
		return 2
	case a >= 100:
		return 0
	case a >= 10:
		return 1
	case a >= 0.01:
		return 2
	}
	return min(4, 1-int(math.Floor(math.Log10(a))))
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
		// The bounds in the center's decimals: a cell of one width
		// whatever the interval ("0.02 [0.01–0.04]", not "[0.0060–0.04]").
		d := ratioDecimals(e.Center)
		return c + " [" + strconv.FormatFloat(e.Lo, 'f', d, 64) + "–" + strconv.FormatFloat(e.Hi, 'f', d, 64) + "]"
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

// MicroScale is the scale of a lab op's times.
var MicroScale = TimeScale{"µs", 1e3}

// TimeScale is the scale of the summary's per-op times.
func (s *Summary) TimeScale() TimeScale {
	if s.Unit() != "run" {
		return MicroScale
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

// Signed renders ns in the scale's unit with an explicit sign (− is
// U+2212, as in prose): "+185", "−4.10".
func (t TimeScale) Signed(ns float64) string {
	if ns < 0 {
		return "−" + t.Of(-ns)
	}
	return "+" + t.Of(ns)
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

// ParamTitle names the case's parameter in a heading: "payload 400 B",
// "size 1 MiB".
func (a CaseID) ParamTitle() string {
	if a.Lab == LabCompare {
		return "per run" // a command has no parameter: its op is a run
	}
	if a.SizeBytes > 0 {
		return "size " + Size(float64(a.SizeBytes))
	}
	return "payload " + Size(float64(a.PayloadBytes))
}

// Name spells the case as run.json's spreads between runs name it
// ("modes/NamedTemporaryFile/go//tmp/payload=400"), the spelling of every
// run saved so far: for readers of the file, never a key in memory.
func (a CaseID) Name() string {
	return a.Lab + "/" + a.Arm + "/" + a.Runtime + "/" + a.Dir + "/" + a.Param()
}
