package explain

import (
	"fmt"
	"math"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// The sentences of where in the code an arm's time went (#39): user
// space by function, and each syscall class by the stacks its calls came
// from. Each has a short form, the terminal's, and a whole one, -v's,
// report.md's and JSON's.

// ShortFunctions and ShortSites are how many functions and call sites a
// short sentence names, and ShortFrames how many frames of a site's
// stack.
const (
	ShortFunctions = 3
	ShortSites     = 2
	ShortFrames    = 3
)

// FunctionsSentence says user space by function: "user space 36.1 µs/op:
// 22% in _TemporaryFileWrapper.__getattr__ (tempfile.py:478), …; 6 other
// functions 39%, not sampled 8%". Short names the first ShortFunctions
// and the rest as other functions, by their shares; whole, every one
// with its time ("7.88 µs/op (22%) in …"). "" when no user time was
// sampled.
func FunctionsSentence(s *results.Summary, t results.TimeScale, short bool) string {
	if len(s.Functions) == 0 {
		return ""
	}
	per := t.Unit + "/" + s.Unit()
	in := func(ns float64) string { return t.Of(ns) + " " + per }
	share := func(ns float64) string {
		if s.UserNsPerOp <= 0 {
			return in(ns)
		}
		return results.Share(ns / s.UserNsPerOp)
	}
	// A part named whole: its time, and its share where it has one.
	whole := func(ns float64) string {
		if s.UserNsPerOp <= 0 {
			return in(ns)
		}
		return in(ns) + " (" + share(ns) + ")"
	}
	shown := len(s.Functions)
	if short {
		shown = min(shown, ShortFunctions)
	}
	var parts []string
	// What the parts leave, of whole ns as the CSV keeps each: a run read
	// back from it says the same remainder.
	left := math.Round(s.UserNsPerOp)
	for _, f := range s.Functions[:shown] {
		ns := f.NsPerOp.Center
		left -= math.Round(ns)
		p := share(ns) + " in " + f.Frame.Label()
		if !short {
			p = whole(ns) + " in " + f.Frame.Label()
		}
		parts = append(parts, p)
	}
	var rest []string
	if other := s.OtherFunctionsNsPerOp(shown); shown < len(s.Functions) {
		for _, f := range s.Functions[shown:] {
			left -= math.Round(f.NsPerOp.Center)
		}
		rest = append(rest, fmt.Sprintf("%d other functions %s", len(s.Functions)-shown, share(other)))
	}
	if s.UserMeasured {
		left -= math.Round(s.UnsampledNsPerOp)
		switch {
		case math.Round(s.UnsampledNsPerOp) == 0:
		case short:
			rest = append(rest, NotSampled+" "+share(s.UnsampledNsPerOp))
		default:
			rest = append(rest, NotSampled+" "+whole(s.UnsampledNsPerOp))
		}
		// Medians of the parts need not add up to user space's: what
		// they leave is said, as the breakdown's remainder is.
		if !short && said(left, t) {
			rest = append(rest, "remainder "+t.Signed(left)+" "+per)
		}
	}
	out := fmt.Sprintf("%s %s: %s", results.UserTerm, in(s.UserNsPerOp), strings.Join(parts, ", "))
	if len(rest) > 0 {
		out += "; " + strings.Join(rest, ", ")
	}
	return out + "."
}

// SitesSentence says where a syscall class's calls came from: "fsync
// 127 ms/run: 100% from persist (app.py:4) ← main (app.py:10)". Short
// names the first ShortSites sites by their share of its time, each by
// its first ShortFrames frames; whole, every site, its whole stack and
// its shares of the calls, the time and the off-CPU time. "" when no
// call of the class had its stack taken.
func SitesSentence(s *results.Summary, class string, t results.TimeScale, short bool) string {
	sites := s.SitesOf(class)
	if len(sites) == 0 {
		return ""
	}
	row := s.Class(class)
	per := t.Unit + "/" + s.Unit()
	head := fmt.Sprintf("%s %s %s", class, t.Of(row.NsPerOp), per)
	if !short {
		head += fmt.Sprintf(", calls/%s %s", s.Unit(), results.Count(row.CallsPerOp))
		if row.OffNsPerOp > 0 {
			head += fmt.Sprintf(", %s %s off-CPU", t.Of(row.OffNsPerOp), per)
		}
	}
	shown, frames := len(sites), 0
	if short {
		shown, frames = min(shown, ShortSites), ShortFrames
	}
	var parts []string
	var timeShares float64
	for _, x := range sites {
		timeShares += x.TimeShare
	}
	for _, x := range sites[:shown] {
		what := results.Share(x.TimeShare)
		if !short {
			what = siteShares(x, row.OffNsPerOp > 0)
		}
		parts = append(parts, what+" from "+results.StackLabel(x.Stack, frames))
	}
	out := head + ": " + strings.Join(parts, ", ")
	if rest := sites[shown:]; len(rest) > 0 {
		var ns float64
		for _, x := range rest {
			ns += x.TimeShare
		}
		out += fmt.Sprintf(", %s from %d other sites", results.Share(ns), len(rest))
	}
	// What the sites' medians leave of the class's: no stack taken in
	// the rounds that had none, and medians that do not add up.
	if left := 1 - timeShares; !short && math.Round(100*left) != 0 {
		out += fmt.Sprintf("; %s of its time not attributed", results.Share(left))
	}
	return out + "."
}

// siteShares says a site's shares of its class's calls, time and
// off-CPU time, once where they are the same: "100% of calls, time and
// off-CPU time", "60% of calls, 80% of time".
func siteShares(x results.SiteSummary, off bool) string {
	c, t, o := results.Share(x.CallShare), results.Share(x.TimeShare), results.Share(x.OffShare)
	switch {
	case off && c == t && t == o:
		return c + " of calls, time and off-CPU time"
	case !off && c == t:
		return c + " of calls and time"
	case off:
		return fmt.Sprintf("%s of calls, %s of time, %s of off-CPU time", c, t, o)
	}
	return fmt.Sprintf("%s of calls, %s of time", c, t)
}

// CodeSentences are an arm's sentences of where in the code its time
// went, short or whole: user space by function, then each of classes
// (the syscalls its breakdown shows, in its order) by call site.
func CodeSentences(s *results.Summary, classes []results.ClassSummary, t results.TimeScale, short bool) []string {
	var out []string
	if f := FunctionsSentence(s, t, short); f != "" {
		out = append(out, f)
	}
	for _, c := range classes {
		if !c.IsSyscall() || c.Overlapped {
			continue
		}
		if x := SitesSentence(s, c.Class, t, short); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// StacksLine says how a run took the stacks its code sentences stand on,
// for the footer: "stacks: every call's stack, user time sampled every
// 100 µs on the CPU"; "" when it took none.
func StacksLine(st *results.Stacks) string {
	if w := st.Sampled(); w != "" {
		return "stacks: " + w
	}
	return ""
}

// TopSite says where most of a class's time came from, "from persist
// (app.py:4) ← main (app.py:10)", its stack cut short; "" when no call
// of it had its stack taken.
func TopSite(s *results.Summary, class string) string {
	sites := s.SitesOf(class)
	if len(sites) == 0 {
		return ""
	}
	return "from " + results.StackLabel(sites[0].Stack, ShortFrames)
}
