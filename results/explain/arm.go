package explain

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// TimeSplit says "arm: wall traced = kernel + user" per op, or, when
// threads sat in syscalls at once and their times add past the wall time
// (a traced multi-threaded program), that instead. "traced" where the
// arm also ran untraced: its table's time per op is the untraced one.
// Its times are in t, the unit of the table the arm is a row of.
func TimeSplit(s *results.Summary, t results.TimeScale) string {
	unit := s.Unit()
	traced := ""
	if slices.ContainsFunc(s.Rounds, func(r results.RoundSample) bool { return r.OpsPerS > 0 }) {
		traced = " traced"
	}
	if s.UserMeasured {
		return measuredSplit(s, t, traced)
	}
	if s.UserNsPerOp >= 0 {
		out := fmt.Sprintf("%s: %s %s/%s%s%s = syscalls %s + user %s", s.Arm, t.Of(s.WallNsPerOp), t.Unit, unit, traced,
			within(s.TracedWall, t), t.Of(s.KernelNsPerOp), t.Of(s.UserNsPerOp))
		if s.RunQueueNsPerOp > 0 {
			out += " + run-queue wait " + t.Of(s.RunQueueNsPerOp)
		}
		// The medians of the parts need not add up to the median of
		// the whole (results/times.go): what they leave is said.
		if rest := s.WallNsPerOp - s.KernelNsPerOp - s.UserNsPerOp - s.RunQueueNsPerOp; said(rest, t) {
			out += ", remainder " + t.Signed(rest)
		}
		return out
	}
	return fmt.Sprintf("%s: %s %s/%s of wall time%s, %s %s in syscalls summed over threads", s.Arm,
		t.Of(s.WallNsPerOp), t.Unit, unit, traced, t.Of(s.KernelNsPerOp), t.Unit)
}

// measuredSplit is TimeSplit where user space was measured: every term
// is a thread's time, and what they leave of the wall time is the
// remainder. Threads that ran at once add up past the wall time: then
// their times are said summed over them, beside the wall time, rather
// than as its parts with a remainder below zero.
func measuredSplit(s *results.Summary, t results.TimeScale, traced string) string {
	unit := s.Unit()
	parts := fmt.Sprintf("syscalls %s + user %s", t.Of(s.KernelNsPerOp), t.Of(s.UserNsPerOp))
	if s.RunQueueNsPerOp > 0 {
		parts += " + run-queue wait " + t.Of(s.RunQueueNsPerOp)
	}
	if t.Of(s.BetweenNsPerOp) != t.Of(0) {
		parts += " + " + results.BetweenTerm + " " + t.Of(s.BetweenNsPerOp)
	}
	sum := s.KernelNsPerOp + s.UserNsPerOp + s.RunQueueNsPerOp + s.BetweenNsPerOp
	if Parallel(s) {
		return fmt.Sprintf("%s: %s %s/%s of wall time%s; its threads ran at once: %s = %s %s summed over them, %s× the wall time",
			s.Arm, t.Of(s.WallNsPerOp), t.Unit, unit, traced, parts, t.Of(sum), t.Unit, results.Count(sum/s.WallNsPerOp))
	}
	out := fmt.Sprintf("%s: %s %s/%s%s%s = %s", s.Arm, t.Of(s.WallNsPerOp), t.Unit, unit, traced, within(s.TracedWall, t), parts)
	if rest := s.WallNsPerOp - sum; said(rest, t) {
		out += ", remainder " + t.Signed(rest)
	}
	return out
}

// said says a remainder is one to say: a nanosecond per op or more (less
// is the float rounding of parts that add up), and not 0 as t prints it.
func said(rest float64, t results.TimeScale) bool {
	return math.Abs(rest) >= 1 && t.Of(rest) != t.Of(0)
}

// Parallel says an arm's threads ran at once: where user space is
// measured, its threads' times add up to more than its wall time (by
// more than a hundredth, what clocks and rounding may leave).
func Parallel(s *results.Summary) bool {
	sum := s.KernelNsPerOp + s.UserNsPerOp + s.RunQueueNsPerOp + s.BetweenNsPerOp
	return s.UserMeasured && s.WallNsPerOp > 0 && sum > 1.01*s.WallNsPerOp
}

// within is an estimate's interval in t, " [lo–hi]", or "" when it has
// none.
func within(e results.Estimate, t results.TimeScale) string {
	if !e.Bounded() {
		return ""
	}
	return " [" + t.Of(e.Lo) + "–" + t.Of(e.Hi) + "]"
}

// ArmSentence explains one arm on its own: where its time goes, its
// times in t (results.Summary.TimeScale, or its table's unit).
func ArmSentence(s *results.Summary, t results.TimeScale) string {
	var b strings.Builder
	b.WriteString(TimeSplit(s, t))
	overlapped := s.UserNsPerOp < 0 || Parallel(s)
	var parts []string
	for _, c := range s.Classes {
		if !c.IsSyscall() || c.Overlapped || s.WallNsPerOp <= 0 || c.NsPerOp < 0.15*s.WallNsPerOp {
			continue
		}
		p := fmt.Sprintf("%s %s %s (%s)", c.Class, t.Of(c.NsPerOp), t.Unit, results.Share(c.NsPerOp/s.WallNsPerOp))
		if overlapped {
			p = fmt.Sprintf("%s %s %s", c.Class, t.Of(c.NsPerOp), t.Unit)
		}
		if m := classMechanism(s, nil, c.Class, t, false); m != "" {
			p += ": " + m
		}
		if tail := c.Tail; tail != nil {
			p += fmt.Sprintf("; its slowest %s of calls (%s %s or more) took at least %s of its time",
				results.Share(tail.CallShare), t.Of(float64(tail.MinNs)), t.Unit, results.Share(tail.TimeShare))
		}
		parts = append(parts, p)
	}
	if len(parts) > 0 {
		b.WriteString(". " + strings.Join(parts, ". "))
	}
	return b.String() + "."
}
