package results

import (
	"cmp"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Where in the code (#39): what the stacks a run took (Run.Stacks) say
// of an arm. User time is split by function, each sample given to the
// leaf frame's function (self time, never inclusive: the shares then add
// up to the sampled time, and the function named is the one that was
// running); for an interpreter, the innermost Python frame's, since a
// native leaf (the eval loop, a dict lookup) says what CPython did, not
// which of the user's functions made it do so. A syscall class's time is
// split by the stacks that issued its calls. Each figure is a time per
// op of one traced round, of which the report prints the median over the
// traced rounds with its interval over worker generations, as it does of
// every other time (#42).

// FuncKey is a function: its name and its file. Its line is where it ran
// (a frame's line), which moves within it from sample to sample.
type FuncKey struct{ Function, File string }

// SiteKey is a call site of a syscall class: the class, and the stack
// (an index into Run.Stacks.Table) its calls were issued from.
type SiteKey struct {
	Class string
	Stack int
}

// SiteTime is a call site's share of its class's row in one traced
// round, per op: its calls, time and off-CPU time.
type SiteTime struct{ Calls, Ns, OffNs float64 }

// FunctionSummary is one function's user time in an arm.
type FunctionSummary struct {
	// Frame is the function, with the line most of its samples were
	// taken on: what it was doing.
	Frame Frame
	// Samples and Ns are the samples taken in it over the traced
	// batches and the user CPU time they stand for.
	Samples, Ns uint64
	// NsPerOp is the median over the traced rounds of its sampled time
	// per op, with its interval; Share that of the arm's user time.
	NsPerOp Estimate
	Share   float64
}

// SiteSummary is one call site of a syscall class in an arm.
type SiteSummary struct {
	Key   SiteKey
	Stack []Frame // leaf first
	// Calls, Ns and OffNs are the sampled calls issued from it over the
	// traced batches, their time and their off-CPU time.
	Calls, Ns, OffNs uint64
	// CallsPerOp, NsPerOp and OffNsPerOp are medians over the traced
	// rounds of the class's row apportioned to the site by its share of
	// the round's sampled calls, time and off-CPU time (exact where
	// every call's stack was taken, Stacks.Every 1 with no tail).
	CallsPerOp, NsPerOp, OffNsPerOp float64
	// CallShare, TimeShare and OffShare are those of the class row's
	// medians.
	CallShare, TimeShare, OffShare float64
}

// Label names a frame in a sentence: "persist (app.py:4)", a native one
// by its object where it has no file: "fsync (libc.so.6)". A file is
// named by its base name; the JSON and the CSVs keep the whole path.
func (f Frame) Label() string {
	name := f.Function
	if name == "" {
		name = "?"
	}
	switch {
	case f.File != "" && f.Line > 0:
		return name + " (" + filepath.Base(f.File) + ":" + strconv.Itoa(f.Line) + ")"
	case f.File != "":
		return name + " (" + filepath.Base(f.File) + ")"
	case f.Module != "":
		return name + " (" + filepath.Base(f.Module) + ")"
	}
	return name
}

// StackLabel names a stack leaf first, "persist (app.py:4) ← main
// (app.py:10)": every frame (most 0), or at most most of them, "…"
// standing for those left out. Cut short, it keeps the frames down to
// the first in another file than the leaf's, which says whose code
// called into the leaf's ("opener (tempfile.py:629) ← … ← make
// (app.py:8)"), and when that is too deep, the leaf, "…" and that frame.
func StackLabel(frames []Frame, most int) string {
	pick := frames
	if most > 0 && len(frames) > most {
		caller := slices.IndexFunc(frames, func(f Frame) bool { return f.File != frames[0].File })
		switch {
		case caller < 0 || caller < most:
			pick = append(slices.Clone(frames[:most]), Frame{})
		default:
			pick = []Frame{frames[0], {}, frames[caller]}
		}
	}
	parts := make([]string, len(pick))
	for i, f := range pick {
		parts[i] = "…"
		if f != (Frame{}) {
			parts[i] = f.Label()
		}
	}
	return strings.Join(parts, " ← ")
}

// FramesOf are the frames of stack i of the table, leaf first; nil for
// an index out of the table (runfile refuses such a run).
func (st *Stacks) FramesOf(i int) []Frame {
	if st == nil || i < 0 || i >= len(st.Table) {
		return nil
	}
	out := make([]Frame, 0, len(st.Table[i]))
	for _, f := range st.Table[i] {
		if f >= 0 && f < len(st.Frames) {
			out = append(out, st.Frames[f])
		}
	}
	return out
}

// leafFunction is the frame a user sample is given to: the innermost
// Python frame where the stack has one, else its leaf; a harness frame
// is the harness (one function, its file's).
func leafFunction(st *Stacks, frames []Frame) (Frame, bool) {
	leaf := -1
	for i, f := range frames {
		if f.Kind == FramePython {
			leaf = i
			break
		}
	}
	if leaf < 0 && len(frames) > 0 {
		leaf = 0
	}
	if leaf < 0 {
		return Frame{}, false
	}
	f := frames[leaf]
	if st.IsHarness(f) {
		return Frame{Function: HarnessFunction, Kind: f.Kind}, true
	}
	return f, true
}

// Sampled says how the run took its stacks, for a sentence: "every
// call's stack of fsync and rename, 1 call in 64 of the others", "the
// stacks of 1 call in 16 of openat and unlink", with the slow calls'
// and the user-time sampler's period.
func (st *Stacks) Sampled() string {
	if st == nil {
		return ""
	}
	rate := func(n uint32) string {
		if n == 1 {
			return "every call's stack"
		}
		return "the stacks of 1 call in " + strconv.FormatUint(uint64(n), 10)
	}
	byRate := map[uint32][]string{}
	for _, class := range slices.Sorted(maps.Keys(st.EveryClass)) {
		if n := st.EveryClass[class]; n > 0 {
			byRate[n] = append(byRate[n], class)
		}
	}
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(byRate)) {
		parts = append(parts, rate(n)+" of "+strings.Join(byRate[n], ", "))
	}
	switch {
	case st.Every > 0 && len(parts) > 0:
		parts = append(parts, rate(st.Every)+" of the other syscalls")
	case st.Every > 0:
		parts = append(parts, rate(st.Every))
	}
	if st.TailNs > 0 {
		parts = append(parts, "every call of "+Micros(float64(st.TailNs))+" µs or more")
	}
	if st.SamplePeriodNs > 0 {
		parts = append(parts, "user time sampled every "+periodText(st.SamplePeriodNs)+" on the CPU")
	}
	return strings.Join(parts, "; ")
}

// roundSites are one traced batch's call sites per op: each stack's
// part of its syscall class's row.
func roundSites(b *Batch, ops float64, st *Stacks) map[SiteKey]SiteTime {
	if len(b.Stacks) == 0 || st == nil {
		return nil
	}
	type sums struct{ calls, ns, off float64 }
	sampled := map[string]*sums{}
	for _, r := range b.Stacks {
		if r.Class == ClassUser {
			continue
		}
		s := sampled[r.Class]
		if s == nil {
			s = &sums{}
			sampled[r.Class] = s
		}
		s.calls, s.ns, s.off = s.calls+float64(r.Calls), s.ns+float64(r.Ns), s.off+float64(r.OffCPUNs)
	}
	rows := map[string]ClassRecord{}
	for _, r := range b.Records {
		if r.Stage == "" {
			rows[r.Class] = r
		}
	}
	// A site's part of its class's row is its share of the calls whose
	// stacks were taken: each of calls, time and off-CPU time by its own.
	part := func(row uint64, site uint64, all float64) float64 {
		if all <= 0 {
			return 0
		}
		return float64(row) / ops * float64(site) / all
	}
	sites := map[SiteKey]SiteTime{}
	for _, r := range b.Stacks {
		if r.Class == ClassUser {
			continue
		}
		row, s := rows[r.Class], sampled[r.Class]
		k := SiteKey{r.Class, r.Stack}
		t := sites[k]
		t.Calls += part(row.Calls, r.Calls, s.calls)
		t.Ns += part(row.TotalNs, r.Ns, s.ns)
		t.OffNs += part(row.OffCPUNs, r.OffCPUNs, s.off)
		sites[k] = t
	}
	return sites
}

// codeSummaries sets the arm's functions and call sites from its traced
// rounds and its pooled traced batches' stacks.
func (s *Summary) codeSummaries(st *Stacks) {
	if st == nil || s.Traced == nil || len(s.Traced.Stacks) == 0 {
		return
	}
	s.Stacks = st
	type pooled struct {
		samples, ns uint64
		lines       map[int]uint64
		frame       Frame
	}
	funcs := map[FuncKey]*pooled{}
	for _, r := range s.Traced.Stacks {
		if r.Class != ClassUser {
			continue
		}
		f, ok := leafFunction(st, st.FramesOf(r.Stack))
		if !ok {
			continue
		}
		k := FuncKey{f.Function, f.File}
		p := funcs[k]
		if p == nil {
			p = &pooled{lines: map[int]uint64{}, frame: f}
			funcs[k] = p
		}
		p.samples += r.Samples
		p.ns += r.Ns
		p.lines[f.Line] += r.Ns
	}
	// Each function's user time per op is the arm's user time (its
	// median over the traced rounds, #42) times the function's share of
	// all the samples the traced batches took: a proportion of exact
	// counts, as the off-CPU time is split by label. Per-round medians
	// of each function's own samples would say 0 for any function under
	// about a tenth of the time: a 20 ms batch at 1 kHz takes 20 samples.
	var all uint64
	for _, r := range s.Traced.Stacks {
		if r.Class == ClassUser {
			all += r.Samples
		}
	}
	user := s.TermEstimate(UserTerm)
	var named float64
	for _, p := range funcs {
		fs := FunctionSummary{Frame: p.frame, Samples: p.samples, Ns: p.ns}
		// The line it spent most of its time on; the lowest of equals.
		best := -1
		for l, ns := range p.lines {
			if best < 0 || ns > p.lines[best] || ns == p.lines[best] && l < best {
				best = l
			}
		}
		fs.Frame.Line = best
		fs.NsPerOp = shareOf(user, p.samples, all)
		named += float64(p.samples)
		s.Functions = append(s.Functions, fs)
	}
	if s.UserMeasured && all > 0 {
		// The samples no function could be named for (no frame was read).
		s.UnsampledNsPerOp = user.Center * (1 - named/float64(all))
	}
	for _, r := range s.Traced.Stacks {
		if r.Class == ClassUser {
			continue
		}
		k := SiteKey{r.Class, r.Stack}
		i := slices.IndexFunc(s.Sites, func(x SiteSummary) bool { return x.Key == k })
		if i < 0 {
			s.Sites = append(s.Sites, SiteSummary{Key: k, Stack: st.FramesOf(r.Stack)})
			i = len(s.Sites) - 1
		}
		x := &s.Sites[i]
		x.Calls, x.Ns, x.OffNs = x.Calls+r.Calls, x.Ns+r.Ns, x.OffNs+r.OffCPUNs
	}
	if s.StacksApart {
		s.sitesByShare()
	} else {
		for i := range s.Sites {
			x := &s.Sites[i]
			x.CallsPerOp = s.codeEstimate(func(r *RoundSample) float64 { return r.Sites[x.Key].Calls }).Center
			x.NsPerOp = s.codeEstimate(func(r *RoundSample) float64 { return r.Sites[x.Key].Ns }).Center
			x.OffNsPerOp = s.codeEstimate(func(r *RoundSample) float64 { return r.Sites[x.Key].OffNs }).Center
		}
	}
	s.codeShares()
}

// sitesByShare apportions each class's row to its sites by their shares
// of the calls sampled, their time and off-CPU time over the batches that
// took stacks, as a function's user time is its share of the samples:
// where those batches are not the ones the rows come from, a site's time
// per op there, against a row of other batches, could exceed the row.
func (s *Summary) sitesByShare() {
	type sums struct{ calls, ns, off uint64 }
	byClass := map[string]sums{}
	for _, x := range s.Sites {
		t := byClass[x.Key.Class]
		byClass[x.Key.Class] = sums{t.calls + x.Calls, t.ns + x.Ns, t.off + x.OffNs}
	}
	part := func(row float64, site, all uint64) float64 {
		if all == 0 {
			return 0
		}
		return row * float64(site) / float64(all)
	}
	for i := range s.Sites {
		x := &s.Sites[i]
		row, t := s.Class(x.Key.Class), byClass[x.Key.Class]
		x.CallsPerOp, x.NsPerOp, x.OffNsPerOp = part(row.CallsPerOp, x.Calls, t.calls), part(row.NsPerOp, x.Ns, t.ns), part(row.OffNsPerOp, x.OffNs, t.off)
	}
}

// recordedCode makes the code figures a syscalls.csv recorded the
// summary's, as recorded does the rows'.
func (s *Summary) recordedCode(t *RecordedTimes) {
	if s.Stacks == nil {
		return
	}
	for i := range s.Functions {
		f := &s.Functions[i]
		if ns, ok := t.Functions[FuncKey{f.Frame.Function, f.Frame.File}]; ok {
			f.NsPerOp = Point(ns)
		}
	}
	for i := range s.Sites {
		x := &s.Sites[i]
		if st, ok := t.Sites[x.Key]; ok {
			x.CallsPerOp, x.NsPerOp, x.OffNsPerOp = st.Calls, st.Ns, st.OffNs
		}
	}
	s.UnsampledNsPerOp = t.UnsampledNs
	s.codeShares()
}

// codeShares sets each function's share of the user time and each
// site's shares of its class's row, and puts them in the order reports
// list them: the most time first.
func (s *Summary) codeShares() {
	for i := range s.Functions {
		if s.UserNsPerOp > 0 {
			s.Functions[i].Share = s.Functions[i].NsPerOp.Center / s.UserNsPerOp
		}
	}
	// By whole ns, as the CSV keeps them, so a run read back from one
	// lists them in the same order.
	slices.SortStableFunc(s.Functions, func(a, b FunctionSummary) int {
		return cmp.Or(cmp.Compare(math.Round(b.NsPerOp.Center), math.Round(a.NsPerOp.Center)), cmp.Compare(b.Ns, a.Ns),
			cmp.Compare(a.Frame.Function, b.Frame.Function), cmp.Compare(a.Frame.File, b.Frame.File))
	})
	share := func(part, whole float64) float64 {
		if whole <= 0 {
			return 0
		}
		return part / whole
	}
	for i := range s.Sites {
		x := &s.Sites[i]
		row := s.Class(x.Key.Class)
		x.CallShare, x.TimeShare, x.OffShare = share(x.CallsPerOp, row.CallsPerOp), share(x.NsPerOp, row.NsPerOp), share(x.OffNsPerOp, row.OffNsPerOp)
	}
	order := map[string]int{}
	for i, c := range s.Classes {
		if _, ok := order[c.Class]; !ok {
			order[c.Class] = i
		}
	}
	slices.SortStableFunc(s.Sites, func(a, b SiteSummary) int {
		return cmp.Or(cmp.Compare(order[a.Key.Class], order[b.Key.Class]), cmp.Compare(math.Round(b.NsPerOp), math.Round(a.NsPerOp)),
			cmp.Compare(b.Ns, a.Ns), cmp.Compare(b.Calls, a.Calls),
			cmp.Compare(StackLabel(a.Stack, 0), StackLabel(b.Stack, 0)))
	})
}

// codeEstimate is a code figure's median over the traced rounds, zeros
// included (a round that sampled no time in a function spent none there
// that the sampler saw), with its interval. A run that took its stacks
// in batches of their own apportions its sites by share instead
// (sitesByShare).
func (s *Summary) codeEstimate(f func(*RoundSample) float64) Estimate {
	u := s.tracedUnits(f)
	if len(u) == 0 {
		return Point(0)
	}
	return ClusteredMedian(u)
}

// OtherFunctionsNsPerOp is the user time of the functions after the
// first shown of s.Functions: the sum of their medians, each of which a
// whole list names, so a short list and a whole one agree (and a run
// read back from its CSV, which records each, says the same).
func (s *Summary) OtherFunctionsNsPerOp(shown int) float64 {
	var ns float64
	for _, f := range s.Functions[min(shown, len(s.Functions)):] {
		ns += f.NsPerOp.Center
	}
	return ns
}

// SitesOf are the call sites of a class, the most time first.
func (s *Summary) SitesOf(class string) []SiteSummary {
	var out []SiteSummary
	for _, x := range s.Sites {
		if x.Key.Class == class {
			out = append(out, x)
		}
	}
	return out
}

// periodText says a sampler's period: "100 µs", "1 ms", "250 ns".
func periodText(ns uint64) string {
	switch {
	case ns >= 1_000_000 && ns%1_000_000 == 0:
		return strconv.FormatUint(ns/1_000_000, 10) + " ms"
	case ns >= 1000 && ns%1000 == 0:
		return strconv.FormatUint(ns/1000, 10) + " µs"
	}
	return Micros(float64(ns)) + " µs"
}

// shareOf is the share part of whole samples of the estimate e: its
// center times the share, its interval e's bounds times the share's 95%
// Wilson interval, so that both what the rounds spread and what a share
// of a few samples can be are in it.
func shareOf(e Estimate, part, whole uint64) Estimate {
	if whole == 0 {
		return Point(0)
	}
	p := float64(part) / float64(whole)
	out := Estimate{Center: e.Center * p, Lo: math.NaN(), Hi: math.NaN(), N: e.N}
	if e.Bounded() {
		lo, hi := wilson(p, float64(whole))
		out.Lo, out.Hi = e.Lo*lo, e.Hi*hi
	}
	return out
}

// wilson is the 95% Wilson score interval of a proportion p of n.
func wilson(p, n float64) (lo, hi float64) {
	const z = 1.96
	center := (p + z*z/(2*n)) / (1 + z*z/n)
	half := z / (1 + z*z/n) * math.Sqrt(p*(1-p)/n+z*z/(4*n*n))
	return math.Max(0, center-half), math.Min(1, center+half)
}
