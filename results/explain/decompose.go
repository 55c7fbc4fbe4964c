package explain

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// Term is one additive part of a difference in wall time per op: a syscall
// class (or two variants of one, paired) less its run-queue wait, user
// space, the run-queue wait, or the remainder. Each is the median of the
// term over the traced rounds (results/times.go), as the gap is of the
// wall time: the remainder is what the terms' medians leave of the
// gap's, so that across a difference's terms Σ Delta = Δ wall/op.
type Term struct {
	Name  string          `json:"name"`
	Old   results.NsPerOp `json:"old_ns_per_op"`
	New   results.NsPerOp `json:"new_ns_per_op"`
	Delta results.NsPerOp `json:"delta_ns_per_op"`
	// Noise: the rounds cannot tell this term from no difference.
	Noise   bool     `json:"within_noise,omitempty"`
	Details []Detail `json:"details,omitempty"`
	// Parts split user space by the function its time was sampled in
	// (results/code.go), largest |Δ| first, and what no sample stood
	// for: each the median as the term is, so they need not add up to
	// it.
	Parts []Part `json:"parts,omitempty"`
	// Culprits are the differences of the environment and the
	// neighbours that the mechanism ties to this term (TieCulprits).
	Culprits []Culprit `json:"-"`
	// oldClass and newClass are the syscall classes on each side ("" for
	// user space); they differ when two variants of one syscall pair up.
	oldClass, newClass string
}

// Part is a part of a term: a function's user time, or the user time no
// sample stood for (Function ""), on each side and their difference,
// the medians over the traced rounds as the term's are.
type Part struct {
	Function string          `json:"function,omitempty"`
	File     string          `json:"file,omitempty"`
	Line     int             `json:"line,omitempty"`
	Old      results.NsPerOp `json:"old_ns_per_op"`
	New      results.NsPerOp `json:"new_ns_per_op"`
	Delta    results.NsPerOp `json:"delta_ns_per_op"`
	// Noise: the rounds cannot tell this part from no difference.
	Noise bool `json:"within_noise,omitempty"`
}

// NotSampled names the part of user space whose samples no function
// could be named for (no frame read).
const NotSampled = "unnamed"

// Label names the part in a sentence: its function with its file and
// line (the line it spent most time on, on the side where it spent
// more), or NotSampled.
func (p Part) Label() string {
	if p.Function == "" {
		return NotSampled
	}
	return results.Frame{Function: p.Function, File: p.File, Line: p.Line}.Label()
}

// Name is the part's function alone, as a short sentence names it.
func (p Part) Name() string {
	if p.Function == "" {
		return NotSampled
	}
	return p.Function
}

// Detail is a figure inside a term (a stage, an off-CPU label, calls per
// op) or beside a difference's terms (stages of no syscall).
// Unit "ns" is ns per op, "calls" is a count per op.
type Detail struct {
	Name string  `json:"name"`
	Unit string  `json:"unit"`
	Old  float64 `json:"old"`
	New  float64 `json:"new"`
	// Of is the stage or off-CPU label the figure is of, by the probe's
	// name: what a culprit's evidence is keyed on.
	Of Sign `json:"-"`
}

// Delta is New − Old.
func (d Detail) Delta() float64 { return d.New - d.Old }

// Difference is NEW − OLD in wall time per op, split into terms: the one
// decomposition behind both an arm against its lab's baseline in one run
// (OLD the baseline) and one arm in two runs.
type Difference struct {
	Old, New *results.Summary
	// DeltaNs is the gap in wall time per op, the median as the terms
	// are; Gap is it with its interval (over worker generations, of the
	// rounds' paired differences: unbounded for two runs, whose gap has
	// no rounds in common).
	DeltaNs float64
	Gap     results.Estimate
	Terms   []Term   // largest |Δ| first; noise terms after the rest
	Extras  []Detail // stages of no syscall
}

// Decompose splits cur − prev, each term the median of its samples over
// the traced rounds. sameRun says both ran in the same rounds of one
// run: then each term's difference is the median of its per-round
// differences, paired as the table's ratios are, and the rounds judge a
// term against noise as pairs; otherwise (two runs) the difference of
// the two medians, and the rounds of each side are two samples.
func Decompose(prev, cur *results.Summary, sameRun bool) Difference {
	d := Difference{Old: prev, New: cur, Gap: termGap(prev, cur, results.WallTerm, results.WallTerm, sameRun)}
	d.DeltaNs = d.Gap.Center
	names := map[string]bool{}
	for _, s := range []*results.Summary{prev, cur} {
		for _, c := range s.Classes {
			if c.IsSyscall() && !c.Overlapped {
				names[c.Class] = true
			}
		}
	}
	stages := stagesByClass(prev, cur)
	term := func(name, oc, nc string) Term {
		t := Term{Name: name, Old: results.NsPerOp(prev.TermMedian(oc)), New: results.NsPerOp(cur.TermMedian(nc)), oldClass: oc, newClass: nc}
		t.Delta = results.NsPerOp(termDelta(prev, cur, oc, nc, sameRun))
		return t
	}
	add := func(name, oc, nc string) {
		po, pn := prev.Class(oc), cur.Class(nc)
		t := term(name, oc, nc)
		// A syscall one side never makes is a difference in kind,
		// whatever its size: never noise.
		t.Noise = po.Calls > 0 && pn.Calls > 0 && termNoise(prev, cur, oc, nc, sameRun)
		t.Details = offCPUDetails(po, pn)
		t.Details = append(t.Details, stages.details(oc, nc)...)
		t.Details = append(t.Details, Detail{"calls", "calls", po.CallsPerOp, pn.CallsPerOp, Sign{}})
		d.Terms = append(d.Terms, t)
	}
	for _, p := range pairFamilies(prev, cur, names) {
		delete(names, p[0])
		delete(names, p[1])
		add(p[1]+" vs "+p[0], p[0], p[1])
	}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		add(n, n, n)
	}
	user := term(results.UserTerm, results.UserTerm, results.UserTerm)
	user.Noise = termNoise(prev, cur, results.UserTerm, results.UserTerm, sameRun)
	user.Details = stages.details(results.ClassUser, results.ClassUser)
	user.Parts = functionParts(prev, cur, sameRun)
	d.Terms = append(d.Terms, user)
	if bt := term(results.BetweenTerm, results.BetweenTerm, results.BetweenTerm); bt.Old != 0 || bt.New != 0 {
		bt.Noise = termNoise(prev, cur, results.BetweenTerm, results.BetweenTerm, sameRun)
		bt.Details = offCPUDetails(prev.Class(results.ClassUser), cur.Class(results.ClassUser))
		d.Terms = append(d.Terms, bt)
	}
	if rq := term(results.RunQueueTerm, results.RunQueueTerm, results.RunQueueTerm); rq.Old != 0 || rq.New != 0 {
		rq.Noise = termNoise(prev, cur, results.RunQueueTerm, results.RunQueueTerm, sameRun)
		d.Terms = append(d.Terms, rq)
	}
	if rest := remainder(d); rest.Delta != 0 {
		d.Terms = append(d.Terms, rest)
	}
	sort.SliceStable(d.Terms, func(i, j int) bool {
		ti, tj := d.Terms[i], d.Terms[j]
		if ti.Noise != tj.Noise {
			return !ti.Noise
		}
		if math.Abs(float64(ti.Delta)) != math.Abs(float64(tj.Delta)) {
			return math.Abs(float64(ti.Delta)) > math.Abs(float64(tj.Delta))
		}
		return ti.Name < tj.Name
	})
	d.Extras = stages.rest()
	return d
}

// remainder is what the terms' medians leave of the gap's median: shown
// as a term of its own, never spread over the others (#42).
func remainder(d Difference) Term {
	t := Term{Name: results.RemainderTerm, Old: results.NsPerOp(d.Old.WallNsPerOp), New: results.NsPerOp(d.New.WallNsPerOp)}
	t.Delta = results.NsPerOp(d.DeltaNs)
	for _, o := range d.Terms {
		t.Old -= o.Old
		t.New -= o.New
		t.Delta -= o.Delta
	}
	// Below a nanosecond per op is float rounding of terms that add up.
	if math.Abs(float64(t.Delta)) < 1 {
		t.Delta = 0
	}
	return t
}

// functionParts split user space by function between prev and cur:
// every function either side sampled, and, where user space was
// measured, the time no sample stood for; largest |Δ| first.
func functionParts(prev, cur *results.Summary, sameRun bool) []Part {
	type side struct {
		frame results.Frame
		ns    results.Estimate
	}
	keys := map[results.FuncKey]*[2]side{}
	for i, s := range []*results.Summary{prev, cur} {
		for _, f := range s.Functions {
			k := results.FuncKey{Function: f.Frame.Function, File: f.Frame.File}
			if keys[k] == nil {
				keys[k] = &[2]side{}
			}
			keys[k][i] = side{f.Frame, f.NsPerOp}
		}
	}
	if len(keys) == 0 {
		return nil
	}
	var out []Part
	// A function's time is its share of the samples of the user time's
	// median (results/code.go): its change is the difference of the two,
	// within noise where their intervals (the user time's spread and the
	// share's of few samples) overlap.
	for k, sides := range keys {
		o, n := sides[0].ns, sides[1].ns
		p := Part{Function: k.Function, File: k.File, Line: sides[1].frame.Line,
			Old: results.NsPerOp(o.Center), New: results.NsPerOp(n.Center)}
		if o.Center > n.Center {
			p.Line = sides[0].frame.Line
		}
		p.Delta = p.New - p.Old
		p.Noise = o.Bounded() && n.Bounded() && o.Lo <= n.Hi && n.Lo <= o.Hi
		out = append(out, p)
	}
	if prev.UserMeasured && cur.UserMeasured {
		p := Part{Old: results.NsPerOp(prev.UnsampledNsPerOp), New: results.NsPerOp(cur.UnsampledNsPerOp)}
		p.Delta = p.New - p.Old
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if math.Abs(float64(a.Delta)) != math.Abs(float64(b.Delta)) {
			return math.Abs(float64(a.Delta)) > math.Abs(float64(b.Delta))
		}
		if a.Function != b.Function {
			return a.Function < b.Function
		}
		return a.File < b.File
	})
	return out
}

// termDelta is the term's difference between cur (class kn) and prev
// (ko): with sameRun the median of its per-round differences over the
// rounds both traced, else the difference of its medians.
func termDelta(prev, cur *results.Summary, ko, kn string, sameRun bool) float64 {
	return termGap(prev, cur, ko, kn, sameRun).Center
}

// termGap is termDelta with its interval where the rounds pair.
func termGap(prev, cur *results.Summary, ko, kn string, sameRun bool) results.Estimate {
	return gapOf(prev, cur, byTerm(ko), byTerm(kn), sameRun)
}

// byTerm is a round's sample of a term.
func byTerm(k string) func(*results.RoundSample) float64 {
	return func(r *results.RoundSample) float64 { return r.Terms[k] }
}

// gapOf is a figure's difference between cur (its sample in a round fn)
// and prev (fo), as termGap's: paired by round in one run, else the
// difference of the two medians over the traced rounds.
func gapOf(prev, cur *results.Summary, fo, fn func(*results.RoundSample) float64, sameRun bool) results.Estimate {
	os, ns, diffs := samplesOf(prev, cur, fo, fn)
	if sameRun && cur.Protocol != results.ProtocolSeed && len(diffs) > 0 {
		return results.ClusteredMedian(diffs)
	}
	return results.Point(medianOf(ns) - medianOf(os))
}

// medianOf is the median of a figure's traced rounds, 0 with none.
func medianOf(u []results.Unit) float64 {
	if len(u) == 0 {
		return 0
	}
	return results.ClusteredMedian(u).Center
}

// pairFamilies pairs variants of one syscall (openat[tmpfile] on the old
// side, openat[create] on the new) when each side makes exactly one
// variant of it that the other does not, so the difference says
// "openat[create] vs openat[tmpfile] +3" rather than +100 and −97. The
// variants both sides make stay terms of their own: a program's plain
// openat while it starts (a compared interpreter's imports) does not
// keep its temp files' opens apart. Each pair is [old, new].
func pairFamilies(prev, cur *results.Summary, names map[string]bool) [][2]string {
	fam := func(n string) string { f, _, _ := strings.Cut(n, "["); return f }
	members := func(s *results.Summary, f string) []string {
		var out []string
		for _, c := range s.Classes {
			if c.IsSyscall() && c.Calls > 0 && fam(c.Class) == f {
				out = append(out, c.Class)
			}
		}
		return out
	}
	var out [][2]string
	seen := map[string]bool{}
	for _, n := range slices.Sorted(maps.Keys(names)) {
		f := fam(n)
		if seen[f] {
			continue
		}
		seen[f] = true
		mo, mn := members(prev, f), members(cur, f)
		onlyOld := slices.DeleteFunc(slices.Clone(mo), func(c string) bool { return slices.Contains(mn, c) })
		onlyNew := slices.DeleteFunc(slices.Clone(mn), func(c string) bool { return slices.Contains(mo, c) })
		if len(onlyOld) == 1 && len(onlyNew) == 1 {
			out = append(out, [2]string{onlyOld[0], onlyNew[0]})
		}
	}
	return out
}

// termNoise says whether the term (class ko on the old side, kn on the
// new) cannot be told from no difference by the rounds. Two arms of one
// run ran in every round, so the per-round differences are paired
// samples: noise when the 95% interval of their median over the run's
// units (results.UnitSummaries) contains 0. One
// arm in two runs, or the seed protocol (arms in sequence, nothing
// paired): a Mann–Whitney U test of one side's rounds against the other's
// decides, at α = 0.05. Too few rounds for either call nothing noise.
func termNoise(prev, cur *results.Summary, ko, kn string, sameRun bool) bool {
	return noiseOf(prev, cur, byTerm(ko), byTerm(kn), sameRun)
}

// noiseOf is termNoise of any figure of a round.
func noiseOf(prev, cur *results.Summary, fo, fn func(*results.RoundSample) float64, sameRun bool) bool {
	os, ns, diffs := samplesOf(prev, cur, fo, fn)
	if !sameRun || cur.Protocol == results.ProtocolSeed {
		return results.Indistinct(results.UnitSummaries(os), results.UnitSummaries(ns))
	}
	e := results.ClusteredMedian(diffs)
	return e.Bounded() && e.Lo <= 0 && 0 <= e.Hi
}

// samplesOf are a figure's per-round samples on each side (fo in prev,
// fn in cur) over the traced rounds and, for the rounds both traced,
// their differences, each with its unit.
func samplesOf(prev, cur *results.Summary, fo, fn func(*results.RoundSample) float64) (os, ns, diffs []results.Unit) {
	oldRounds := map[int]float64{}
	for i := range prev.Rounds {
		r := &prev.Rounds[i]
		if r.Terms != nil {
			oldRounds[r.Round] = fo(r)
			os = append(os, results.Unit{Unit: prev.UnitOf(r), Value: fo(r)})
		}
	}
	for i := range cur.Rounds {
		r := &cur.Rounds[i]
		if r.Terms == nil {
			continue
		}
		u := cur.UnitOf(r)
		ns = append(ns, results.Unit{Unit: u, Value: fn(r)})
		if ov, ok := oldRounds[r.Round]; ok {
			diffs = append(diffs, results.Unit{Unit: u, Value: fn(r) - ov})
		}
	}
	return os, ns, diffs
}

// stageRows holds the stage rows of both sides by class, and hands each
// out once: to its syscall's term, or, for a class with no term, as an
// extra.
type stageRows map[string]map[string]*[2]results.ClassSummary

func stagesByClass(prev, cur *results.Summary) stageRows {
	rows := stageRows{}
	for side, s := range []*results.Summary{prev, cur} {
		for _, c := range s.Classes {
			// User space's own row is its term, no stage of it.
			if c.IsSyscall() || c.Class == results.ClassUser && c.Stage == "" {
				continue
			}
			if rows[c.Class] == nil {
				rows[c.Class] = map[string]*[2]results.ClassSummary{}
			}
			if rows[c.Class][c.Stage] == nil {
				rows[c.Class][c.Stage] = &[2]results.ClassSummary{}
			}
			rows[c.Class][c.Stage][side] = c
		}
	}
	return rows
}

// details are the stage figures under the term's classes, old side from
// ko's stages and new from kn's. Device I/O beside a syscall that cannot
// wait for it is left out: it is no cause.
func (rows stageRows) details(ko, kn string) []Detail {
	merged := map[string]*[2]results.ClassSummary{}
	for side, k := range []string{ko, kn} {
		for st, p := range rows[k] {
			if merged[st] == nil {
				merged[st] = &[2]results.ClassSummary{}
			}
			merged[st][side] = p[side]
		}
	}
	delete(rows, ko)
	delete(rows, kn)
	var out []Detail
	for _, st := range slices.Sorted(maps.Keys(merged)) {
		p := merged[st]
		if p[0].Beside || p[1].Beside {
			continue
		}
		if p[0].NsPerOp != 0 || p[1].NsPerOp != 0 {
			out = append(out, Detail{st, "ns", p[0].NsPerOp, p[1].NsPerOp, StageSign(st)})
		}
		out = append(out, Detail{st, "calls", p[0].CallsPerOp, p[1].CallsPerOp, StageSign(st)})
	}
	return out
}

// rest are the stage rows no term took, named "class/stage".
func (rows stageRows) rest() []Detail {
	var out []Detail
	for _, class := range slices.Sorted(maps.Keys(rows)) {
		for _, d := range rows.details(class, class) {
			d.Name = class + "/" + d.Name
			out = append(out, d)
		}
	}
	return out
}

// offCPUDetails splits a class's off-CPU change by label (who woke the
// thread, and how it left the CPU), or gives the total when unlabelled.
func offCPUDetails(prev, cur results.ClassSummary) []Detail {
	labels := map[string]bool{}
	for l := range prev.OffByLabel {
		labels[l] = true
	}
	for l := range cur.OffByLabel {
		labels[l] = true
	}
	// A side with off-CPU time but no labels (a run rebuilt from a CSV)
	// would make every label look new: compare totals then.
	unlabelled := func(c results.ClassSummary) bool { return len(c.OffByLabel) == 0 && c.OffNsPerOp > 0 }
	if len(labels) == 0 || unlabelled(prev) || unlabelled(cur) {
		if prev.OffNsPerOp == 0 && cur.OffNsPerOp == 0 {
			return nil
		}
		return []Detail{{"off-CPU", "ns", prev.OffNsPerOp, cur.OffNsPerOp, Sign{}}}
	}
	var out []Detail
	for _, l := range slices.Sorted(maps.Keys(labels)) {
		if isPreempted(l) {
			continue // the run-queue wait is a term of its own
		}
		out = append(out, Detail{"off-CPU " + offPhrase(l), "ns", prev.OffByLabel[l], cur.OffByLabel[l], LabelSign(l)})
	}
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].Delta()) > math.Abs(out[j].Delta()) })
	return out
}

// MarshalJSON carries times as integer ns, counts as they are.
func (d Detail) MarshalJSON() ([]byte, error) {
	type plain Detail
	if d.Unit == "ns" {
		d.Old, d.New = math.Round(d.Old), math.Round(d.New)
	}
	return json.Marshal(plain(d))
}
