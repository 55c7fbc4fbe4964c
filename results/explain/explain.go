package explain

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/textwrap"
	"github.com/tmpprobe/tmpprobe/results"
)

// Gap is Δwall/op between two arms of one peer group, A − B (B the lab's
// baseline, or the arm a pair compares with), decomposed into
// Σ Δ(syscall class) + Δ(user space) from the pooled traced batches of
// each: a Difference with B as the old side. Untraced is A's untraced
// throughput ÷ B's: per round, then the median (rounds protocol), or the
// ratio of the medians (seed).
type Gap struct {
	Difference
	A, B     *results.Summary
	Untraced results.Estimate
	// Headline: the pair is a question its lab exists to answer (Pair).
	Headline bool
	// Scale is the unit the sentences give times in: the table's (a
	// compare table in ms says its gaps in ms); zero: B's.
	Scale results.TimeScale
	// functions is how many functions the short reason of user space
	// names (ShortWithin fits them): 0 the default, shortFunctions.
	functions int
}

// shortFunctions is how many of user space's functions a short WHY names
// at most: the largest says which code; a second, whether it is alone.
const shortFunctions = 2

// untraced is a round's untraced ops/s, not its headline: the ratio stands
// beside a gap measured traced to show what the probe's cost hides, so a
// round that ran only traced has nothing to add to it. Of the time its
// worker was not waiting for a CPU, as the table's ratios (see
// RoundSample.Ratio).
func untraced(r *results.RoundSample) float64 {
	if r.OpsPerS == 0 {
		return 0
	}
	return r.OwnCPUOpsPerS
}

// traced is a round's traced ops/s: another sample of the spread between
// rounds (Settle).
func traced(r *results.RoundSample) float64 { return r.TracedOpsPerS }

// NewGap builds the gap A − B. Against A's baseline the untraced ratio is
// the one the table prints, A's Ratio, with the spread between runs its
// interval includes (#29), or as a syscalls.csv recorded it: one figure,
// one interval (#31).
func NewGap(a, b *results.Summary) Gap {
	g := Gap{Difference: Decompose(b, a, true), A: a, B: b, Untraced: a.Ratio}
	if a.RatioTo != b.Arm || !a.Ratio.Known() {
		g.Untraced = results.PairedRatio(a, b, untraced)
	}
	return g
}

// mechanism says what the measurements show about one term of the gap.
func (g Gap) mechanism(t Term) string {
	if w, ok := g.namedTermWords(t); ok {
		return w.long
	}
	switch {
	case t.Name == results.UserTerm:
		m := userMechanism(g.A, g.B)
		if parts := g.partsText(t, -1, true); parts != "" {
			m = strings.TrimPrefix(m+"; "+parts, "; ")
		}
		return m
	case t.Name == results.BetweenTerm:
		return betweenMechanism(g.A, g.B)
	case t.oldClass != t.newClass:
		m := classMechanism(g.A, nil, t.newClass, g.scale(), true)
		if mb := classMechanism(g.B, nil, t.oldClass, g.scale(), true); mb != "" {
			m = strings.TrimPrefix(m+"; vs "+mb, "; ")
		}
		return m
	}
	return deltaMechanism(g.A, g.B, t.newClass, g.scale())
}

// deltaMechanism says what changed in one class between A and B, its
// times in sc.
func deltaMechanism(a, b *results.Summary, class string, sc results.TimeScale) string {
	ca, cb := a.Class(class), b.Class(class)
	var parts []string
	switch {
	case cb.Calls == 0 && ca.Calls > 0:
		p := fmt.Sprintf("new syscall, %s/%s", results.Count(ca.CallsPerOp), a.Unit())
		if from := TopSite(a, class); from != "" {
			p += ", " + from
		}
		parts = append(parts, p)
	case ca.Calls == 0 && cb.Calls > 0:
		// What the calls no longer made did is the culprit of this term:
		// say it, as for a new syscall.
		p := fmt.Sprintf("not made, was %s/%s", results.Count(cb.CallsPerOp), a.Unit())
		if m := classMechanism(b, nil, class, sc, true); m != "" {
			p += ": " + m
		}
		parts = append(parts, p)
	case math.Abs(ca.CallsPerOp-cb.CallsPerOp) > 0.005:
		parts = append(parts, fmt.Sprintf("calls/%s %s → %s", a.Unit(), results.Count(cb.CallsPerOp), results.Count(ca.CallsPerOp)))
	}
	base := b
	if cb.Calls == 0 {
		base = nil
	}
	if m := classMechanism(a, base, class, sc, true); m != "" {
		parts = append(parts, m)
	}
	if ca.Calls > 0 && cb.Calls > 0 {
		switch inodeMove(a, b, class) {
		case movedIn:
			parts = append(parts, "the inode is evicted here instead")
		case movedOut:
			parts = append(parts, "the inode is no longer evicted here")
		}
	}
	return strings.Join(parts, "; ")
}

// inodeMoved says whether inode eviction moved into or out of a class.
type inodeMoved int

const (
	notMoved inodeMoved = iota
	movedIn
	movedOut
)

// inodeMove finds when inode eviction moved into or out of this class.
func inodeMove(a, b *results.Summary, class string) inodeMoved {
	ea := a.Stage(class, results.StageExt4EvictInode).CallsPerOp
	eb := b.Stage(class, results.StageExt4EvictInode).CallsPerOp
	switch {
	case ea > 0.5 && eb < 0.5:
		return movedIn
	case eb > 0.5 && ea < 0.5:
		return movedOut
	}
	return notMoved
}

// offWords turn the dominant off-CPU label into words: long where a
// breakdown says it, short where a WHY bullet does. One table, so that a
// label cannot be worded in one and missing from the other.
var offWords = map[string]termWords{
	results.OffPreempted:      {"preempted (run-queue wait)", "waits for a CPU"},
	results.OffBlockedJBD2:    {"waiting for the journal commit", "waits for the journal"},
	results.OffBlockedIRQ:     {"waiting for the device (woken from irq)", "waits for the device"},
	results.OffBlockedKworker: {"waiting for writeback (woken by a kworker)", "waits for writeback"},
	results.OffBlockedOther:   {"blocked", "blocked"},
	results.OffBlocked:        {"blocked", "blocked"},
	results.OffSleepJBD2:      {"sleeping until the journal commit", "waits for the journal"},
	results.OffSleepIRQ:       {"sleeping until the device answered", "waits for the device"},
	results.OffSleepKworker:   {"sleeping until a kworker woke it", "waits for writeback"},
	results.OffSleepOther:     {"sleeping", "sleeps"},
	results.OffSleep:          {"sleeping", "sleeps"},
}

// termWords say what a term is, long in a full sentence and short in a
// WHY bullet.
type termWords struct{ long, short string }

// runQueueWords and remainderWords say what the terms of those names are.
var (
	runQueueWords  = termWords{"runnable, waiting for a CPU another task had", "CPU neighbours"}
	remainderWords = termWords{
		"what the terms' medians over the rounds leave of the gap's median", "medians of the terms"}
	// Where user space was measured, the remainder is also the wall time
	// no term accounts for, round by round.
	measuredRemainderWords = termWords{
		"the wall time no term accounts for, and what the terms' medians over the rounds leave of the gap's median",
		"wall time no term accounts for"}
)

// namedTermWords are the words of a term that is what its name says,
// whatever the gap: the run-queue wait and the remainder.
func (g Gap) namedTermWords(t Term) (termWords, bool) {
	switch {
	case t.Name == results.RunQueueTerm:
		return runQueueWords, true
	case t.Name == results.RemainderTerm && g.A.UserMeasured:
		return measuredRemainderWords, true
	case t.Name == results.RemainderTerm:
		return remainderWords, true
	}
	return termWords{}, false
}

// ioStages are the stages that explain a syscall's time, in the order
// sentences name them, with what they count.
var ioStages = []struct{ stage, what string }{
	{results.StageJBD2Commit, "journal commits"},
	{results.StageDevFlush, "cache flushes"},
	{results.StageDevWrite, "device writes"},
	{results.StageDevDiscard, "discards"},
	{results.StageExt4FreeInode, "inodes freed"},
}

// classMechanism describes one class of one arm from its measurements:
// off-CPU share and why, and the I/O, journal and inode work inside it.
// With a base arm, stage counts that differ are shown as "base → s".
//
// In a term (a WHY's), the class's run-queue wait is the run-queue term's
// and not said here; in the breakdown's row it is the row's.
func classMechanism(s, base *results.Summary, class string, t results.TimeScale, term bool) string {
	c := s.Class(class)
	if c.Calls == 0 {
		return ""
	}
	var parts []string
	// One unit in a sentence, t: µs in the labs; ms or s in a long trace,
	// where "1.01 s … 992452 µs" read badly; a compare table's in its WHY.
	in := func(ns float64) string { return t.Of(ns) + " " + t.Unit }
	own, off, dom := c.NsPerOp, c.OffNsPerOp, dominant
	if term {
		off, dom = waitingNs(c), dominantWait
		own -= c.OffNsPerOp - off
	}
	if own > 0 && off >= 0.1*own {
		label, ns := dom(c.OffByLabel)
		parts = append(parts, fmt.Sprintf("%s off-CPU, mostly %s: %s", results.Share(off/own), offPhrase(label), in(ns)))
	}
	if a := s.Stage(class, results.StageExt4NewInode); a.NsPerOp >= 0.25*c.NsPerOp && c.NsPerOp > 0 {
		parts = append(parts, fmt.Sprintf("ext4 inode allocation %s (%s)", in(a.NsPerOp), results.Share(a.NsPerOp/c.NsPerOp)))
	}
	for _, io := range ioStages {
		st := s.Stage(class, io.stage)
		if st.Beside {
			continue // the device was busy beside the syscall, not for it
		}
		was := -1.0
		if base != nil {
			was = base.Stage(class, io.stage).CallsPerOp
		}
		if st.CallsPerOp < 0.05 && (was < 0.05 || math.Abs(was-st.CallsPerOp) < 0.05) {
			continue
		}
		p := fmt.Sprintf("%s/%s %s", io.what, s.Unit(), results.Count(st.CallsPerOp))
		if was >= 0 {
			if math.Abs(was-st.CallsPerOp) < 0.05 {
				continue // unchanged: not part of the difference
			}
			p = fmt.Sprintf("%s/%s %s → %s", io.what, s.Unit(), results.Count(was), results.Count(st.CallsPerOp))
		}
		switch {
		case io.stage == results.StageJBD2Commit && st.CallsPerOp > 0:
			p += fmt.Sprintf(" (%s each)", in(st.NsPerOp/st.CallsPerOp))
		case strings.HasPrefix(io.stage, results.DevStagePrefix) && st.NsPerOp > 0:
			p += fmt.Sprintf(" (device %s/%s)", in(st.NsPerOp), s.Unit())
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

func offPhrase(label string) string {
	if words, ok := offWords[label]; ok {
		return words.long
	}
	return label
}

func dominant(m map[string]float64) (string, float64) {
	best, bv := "", -1.0
	for k, v := range m {
		if v > bv || (v == bv && k < best) {
			best, bv = k, v
		}
	}
	return best, bv
}

func userMechanism(a, b *results.Summary) string {
	pa := a.Stage(results.ClassUser, results.StagePageFault).CallsPerOp
	pb := b.Stage(results.ClassUser, results.StagePageFault).CallsPerOp
	oa, ob := waitingNs(a.Class(results.ClassUser)), waitingNs(b.Class(results.ClassUser))
	var parts []string
	if a.Runtime == "python" {
		parts = append(parts, "the interpreter running tempfile's Python code between syscalls")
	}
	// Measured, user space is on-CPU time: its waits between calls are
	// the off-CPU term's.
	if !a.UserMeasured && math.Abs(oa-ob) >= 50 {
		label, _ := dominantWait(a.Class(results.ClassUser).OffByLabel)
		if oa < ob {
			label, _ = dominantWait(b.Class(results.ClassUser).OffByLabel)
		}
		parts = append(parts, fmt.Sprintf("off-CPU between syscalls %s → %s µs, mostly %s", results.Micros(ob), results.Micros(oa), offPhrase(label)))
	}
	if math.Abs(pa-pb) >= 0.05 {
		parts = append(parts, fmt.Sprintf("page faults/%s %s → %s", a.Unit(), results.Count(pb), results.Count(pa)))
	}
	return strings.Join(parts, "; ")
}

// Sentence renders the gap as prose, whole: what report.md, JSON and
// --why full say. It leads with the one ratio the table prints, A's
// untraced throughput ÷ B's with its interval; then where the gap in
// time per op measured traced goes, every term outside noise with its
// share and all its mechanism, and the terms within noise.
func (g Gap) Sentence() string {
	return g.text(len(g.Terms), func(t Term) string { return g.mechanism(t) }, true)
}

// Short is the gap as the terminal says it by default: the ratio, the
// traced gap and its three largest terms outside noise, each with one
// short reason (Reason). The rest is Sentence's.
func (g Gap) Short() string {
	return g.text(ShortTerms, g.Reason, false)
}

// ShortTerms is how many terms a short WHY names.
const ShortTerms = 3

// ShortWithin is Short with as many of its terms as fit lines lines of a
// bullet at width columns (textwrap.Bullet): the answer first, the terms
// after it as room allows; user space's largest function before a
// third term, its second one after.
func (g Gap) ShortWithin(width, lines int) string {
	fits := func(s string) bool { return textwrap.Lines(textwrap.Bullet("  ", s, width)) <= lines }
	for n := ShortTerms; n >= 0; n-- {
		for k := shortFunctions; k >= 1; k-- {
			g.functions = k
			if s := g.text(n, g.Reason, false); fits(s) || n == 0 && k == 1 {
				return s
			}
		}
	}
	return g.Short()
}

// partsText names a term's parts (user space's functions) with their
// change: at most most of them (−1: all) outside noise, by name alone
// with "…" for the rest in a short sentence, or all with their file and
// line and what they were.
func (g Gap) partsText(t Term, most int, full bool) string {
	sc := g.scale()
	var out []string
	for _, p := range t.Parts {
		if sc.Of(float64(p.Delta)) == sc.Of(0) || p.Noise && !full || !full && p.Function == "" {
			continue
		}
		if most >= 0 && len(out) == most {
			out = append(out, "…")
			break
		}
		if !full {
			out = append(out, p.Name()+" "+sc.Signed(float64(p.Delta)))
			continue
		}
		s := fmt.Sprintf("%s %s (%s → %s)", p.Label(), sc.Signed(float64(p.Delta)), sc.Of(float64(p.Old)), sc.Of(float64(p.New)))
		if p.Noise {
			s += " within noise"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

// text writes the gap naming at most most terms outside noise, each
// annotated by why; full adds the terms within noise, and names a
// command whole (the short form cuts a long one: textwrap.Middle).
func (g Gap) text(most int, why func(Term) string, full bool) string {
	var b strings.Builder
	b.WriteString(g.head(full))
	if g.Quiet() {
		// No difference in throughput and none in kind: whatever single
		// term the rounds happen to tell apart is one of dozens tested,
		// so nothing is named outside noise.
		if full {
			if noise := g.noiseList(g.Terms); noise != "" {
				b.WriteString("; traced, within noise: " + noise)
			}
		}
		return b.String() + "."
	}
	sc := g.scale()
	unit := sc.Unit + "/" + g.A.Unit()
	fmt.Fprintf(&b, ": %s %s traced", sc.Signed(g.DeltaNs), unit)
	if other := g.otherWay(); other != "" {
		b.WriteString(" (" + other + ")")
	}
	shares := g.shares()
	var main []string
	var noise []Term
	shared := false
	for _, t := range g.Terms {
		d := float64(t.Delta)
		if t.Noise {
			noise = append(noise, t)
			continue
		}
		if len(main) == most {
			continue
		}
		s := t.Name + " " + sc.Signed(d)
		var ann []string
		if f := d / g.DeltaNs; shares && results.ShareSaid(f) {
			sh := results.Share(f)
			if g.DeltaNs < 0 && !shared {
				// Against a total that is negative, a share's sign
				// reads as the term's: "−40% of −1658" says which.
				sh += " of " + sc.Signed(g.DeltaNs)
			}
			shared = true
			ann = append(ann, sh)
		}
		if m := why(t); m != "" {
			ann = append(ann, m)
		}
		if len(ann) > 0 {
			s += " (" + strings.Join(ann, "; ") + ")"
		}
		main = append(main, s)
	}
	switch {
	case len(main) == 0 && most > 0:
		b.WriteString(", no term of which stands out of the spread between rounds")
	case len(main) == 0:
	case !shares:
		b.WriteString(", from terms that cancel: " + strings.Join(main, ", "))
	default:
		b.WriteString(", of which " + strings.Join(main, ", "))
	}
	if list := g.noiseList(noise); full && list != "" {
		b.WriteString(". Within noise: " + list)
	}
	return b.String() + "."
}

// head says the ratio: A's untraced throughput against B's, as the table
// prints it, or that the rounds tell them apart by less than
// results.MinEffectPct.
func (g Gap) head(full bool) string {
	u, a, b := g.Untraced, g.A.Arm, g.B.Arm
	if !full {
		a, b = textwrap.Middle(a, ShortName), textwrap.Middle(b, ShortName)
	}
	if !u.Known() {
		return fmt.Sprintf("%s against %s", a, b)
	}
	if g.same() && (full || g.A.Lab == results.LabCompare) {
		// What the "no different" stands on: a compare's answer, and in
		// a lab's full WHY (the first screen's keeps its terms).
		return throughputHead(a, b, u, true) + settled(g.A, g.B, results.MinEffectPct)
	}
	return throughputHead(a, b, u, g.same())
}

// throughputHead says a's throughput against b's as the ratio r, or, when
// the rounds do not tell them apart (same), that they are no different.
func throughputHead(a, b string, r results.Estimate, same bool) string {
	if same {
		return fmt.Sprintf("%s: no different from %s's throughput (%s)", a, b, results.TimesText(r))
	}
	return fmt.Sprintf("%s: %s %s's throughput", a, results.TimesText(r), b)
}

// ShortName is the most of a name (a compared command's line) a short
// WHY gives.
const ShortName = 40

// same says the untraced ratio is told apart from 1 by less than
// results.MinEffectPct, or not at all.
func (g Gap) same() bool {
	return g.Untraced.Known() && g.Untraced.Bounded() && results.Differs(g.Untraced, results.MinEffectPct) == 0
}

// Quiet says there is nothing to explain: the throughputs are no
// different and neither side makes a syscall, or a variant of one, the
// other does not.
func (g Gap) Quiet() bool {
	if !g.same() {
		return false
	}
	for _, t := range g.Terms {
		if t.inKind() {
			return false
		}
	}
	return true
}

// inKind says the term is a difference in kind: a syscall one side makes
// in most of its ops and the other never, or two variants of one.
func (t Term) inKind() bool {
	if t.oldClass != t.newClass {
		return true
	}
	for _, d := range t.Details {
		if d.Name == "calls" && d.Unit == "calls" {
			return d.Old == 0 && d.New >= 0.5 || d.New == 0 && d.Old >= 0.5
		}
	}
	return false
}

// shares says whether a term's share of the gap means something: the
// terms, those within noise too, mostly pull one way (when a +22 and a
// −14 make a −1.5, they cancel, and a +0.47 of a −0.34 is −139% of it).
func (g Gap) shares() bool {
	if g.DeltaNs == 0 {
		return false
	}
	var gross float64
	for _, t := range g.Terms {
		gross += math.Abs(float64(t.Delta))
	}
	return math.Abs(g.DeltaNs) >= gross/2
}

// noiseList names the terms within noise worth a word (50 ns or more).
func (g Gap) noiseList(terms []Term) string {
	sc := g.scale()
	var out []string
	for _, t := range terms {
		if t.Noise && math.Abs(float64(t.Delta)) >= 50 {
			out = append(out, t.Name+" "+sc.Signed(float64(t.Delta)))
		}
	}
	return strings.Join(out, ", ")
}

// scale is the unit the gap's times are in: Scale when the report set one
// (a compare table's), else B's.
func (g Gap) scale() results.TimeScale {
	if g.Scale.Unit != "" {
		return g.Scale
	}
	return g.B.TimeScale()
}

// otherWay explains a traced gap that points the other way from the
// untraced ratio: tracing costs the arm with more syscalls more.
func (g Gap) otherWay() string {
	u := g.Untraced
	if !u.Known() || g.same() || !(u.Bounded() || math.IsNaN(u.Lo)) || (u.Center-1)*(-g.DeltaNs) >= 0 {
		return ""
	}
	return fmt.Sprintf("the other way: tracing costs %s more, at %s syscalls/%s to %s",
		g.A.Arm, results.Count(syscallsPerOp(g.A)), g.A.Unit(), results.Count(syscallsPerOp(g.B)))
}

// LabKnowledge is what the arms catalogue says about its labs that the
// explanations need (arms imports explain, so it arrives as data).
type LabKnowledge struct {
	Baselines map[string]string // lab → the arm its ratios are taken against
	Pairs     []Pair            // the gaps the WHY section explains, in its order
	Spills    []Spill
}

// Pair is a gap A − B explained in every peer group of Lab that traced
// both. Headline marks a question the lab exists to answer, said first.
type Pair struct {
	Lab, A, B string
	Headline  bool
}

// Spill is an arm of Lab that keeps its bytes in memory up to a threshold
// and rolls over to a file past it; past it, its writes are set beside
// those of Versus, which uses a file throughout.
type Spill struct{ Lab, Arm, Versus string }

// Comparisons lists, group by group, the gap of each pair whose arms both
// were traced in that peer group, in the order of pairs.
func Comparisons(sums []*results.Summary, pairs []Pair) []Gap {
	var out []Gap
	for _, g := range results.PeerGroups(sums) {
		find := func(arm string) *results.Summary {
			for _, s := range g {
				if s.Arm == arm && s.Traced != nil {
					return s
				}
			}
			return nil
		}
		for _, p := range pairs {
			if p.Lab != g[0].Lab {
				continue
			}
			if sa, sb := find(p.A), find(p.B); sa != nil && sb != nil {
				gap := NewGap(sa, sb)
				gap.Headline = p.Headline
				out = append(out, gap)
			}
		}
	}
	return out
}

// SpillSentence says where sp's arm rolled over to a file, from the openat
// calls it made per size.
func SpillSentence(sums []*results.Summary, sp Spill, runtime, dir string) string {
	var below, above []*results.Summary
	for _, s := range sums {
		if s.Lab != sp.Lab || s.Arm != sp.Arm || s.Runtime != runtime || s.Dir != dir || s.Traced == nil {
			continue
		}
		if fileOpens(s) > 0 {
			above = append(above, s)
		} else {
			below = append(below, s)
		}
	}
	if len(below)+len(above) == 0 {
		return ""
	}
	bySize := func(l []*results.Summary) {
		sort.Slice(l, func(i, j int) bool { return l[i].SizeBytes < l[j].SizeBytes })
	}
	bySize(below)
	bySize(above)
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): ", sp.Arm, runtime)
	if len(below) > 0 {
		last := below[len(below)-1]
		fmt.Fprintf(&b, "up to %s it stayed in memory (0 file syscalls, %s write/round)",
			results.Size(float64(last.SizeBytes)), results.Count(last.Class(results.ClassWrite).CallsPerOp))
	}
	if len(above) > 0 {
		first := above[0]
		if len(below) > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "from %s it rolled over to a file: %s open/round, %s writes/round",
			results.Size(float64(first.SizeBytes)), results.Count(fileOpens(first)),
			results.Count(first.Class(results.ClassWrite).CallsPerOp))
		for _, s := range sums {
			if s.Arm == sp.Versus && s.Peer() == first.Peer() && s.Traced != nil {
				fmt.Fprintf(&b, " (the rolled-over buffer, then a chunk each; %s makes %s)",
					sp.Versus, results.Count(s.Class(results.ClassWrite).CallsPerOp))
			}
		}
	} else {
		b.WriteString("; it never rolled over")
	}
	return b.String() + "."
}

// fileOpens is how many new files per op s opened, either way: openat
// with O_TMPFILE or with O_CREAT|O_EXCL.
func fileOpens(s *results.Summary) float64 {
	return s.Class(results.ClassOpenatTmpfile).CallsPerOp + s.Class(results.ClassOpenatCreate).CallsPerOp
}

// SpillSentences says, per spilling arm, runtime and dir, where the arm
// rolled over to a file.
func SpillSentences(sums []*results.Summary, spills []Spill) []string {
	var out []string
	for _, sp := range spills {
		seen := map[string]bool{}
		for _, s := range sums {
			k := s.Runtime + "\x00" + s.Dir
			if s.Lab == sp.Lab && s.Arm == sp.Arm && !seen[k] {
				seen[k] = true
				if line := SpillSentence(sums, sp, s.Runtime, s.Dir); line != "" {
					out = append(out, line)
				}
			}
		}
	}
	return out
}

// GroupTitle names a group of cases compared with one another, over its
// table, in its warnings and in a diff: "modes lab · go · /tmp · payload
// 400B". dir is the group's dir as the caller shows it (a diff's "OLD →
// NEW", a matrix's dir by position).
func GroupTitle(lab, runtime, dir, param string) string {
	return fmt.Sprintf("%s lab · %s · %s · %s", lab, runtime, dir, param)
}
