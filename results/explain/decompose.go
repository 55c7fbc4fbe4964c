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
// class (or two variants of one, paired), or user space. Across a
// difference's terms Σ Delta = Δ wall/op, because user space is wall −
// Σ syscall time on each side.
type Term struct {
	Name  string          `json:"name"`
	Old   results.NsPerOp `json:"old_ns_per_op"`
	New   results.NsPerOp `json:"new_ns_per_op"`
	Delta results.NsPerOp `json:"delta_ns_per_op"`
	// Noise: the rounds cannot tell this term from no difference.
	Noise   bool     `json:"within_noise,omitempty"`
	Details []Detail `json:"details,omitempty"`
	// Culprits are the differences of the environment and the
	// neighbours that the mechanism ties to this term (TieCulprits).
	Culprits []Culprit `json:"-"`
	// oldClass and newClass are the syscall classes on each side ("" for
	// user space); they differ when two variants of one syscall pair up.
	oldClass, newClass string
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
	DeltaNs  float64
	Terms    []Term   // largest |Δ| first; noise terms after the rest
	Extras   []Detail // stages of no syscall
}

// Decompose splits cur − prev from the pooled traced batches of each.
// sameRun says both ran in the same rounds of one run, so their rounds
// pair up when a term is judged against noise; otherwise (two runs) the
// rounds of each side are compared as two samples.
func Decompose(prev, cur *results.Summary, sameRun bool) Difference {
	d := Difference{Old: prev, New: cur, DeltaNs: cur.WallNsPerOp - prev.WallNsPerOp}
	names := map[string]bool{}
	for _, s := range []*results.Summary{prev, cur} {
		for _, c := range s.Classes {
			if c.IsSyscall() && !c.Overlapped {
				names[c.Class] = true
			}
		}
	}
	stages := stagesByClass(prev, cur)
	add := func(name, oc, nc string) {
		po, pn := prev.Class(oc), cur.Class(nc)
		t := Term{Name: name, Old: results.NsPerOp(po.NsPerOp), New: results.NsPerOp(pn.NsPerOp), oldClass: oc, newClass: nc}
		t.Delta = t.New - t.Old
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
	user := Term{Name: results.UserTerm, Old: results.NsPerOp(prev.UserNsPerOp), New: results.NsPerOp(cur.UserNsPerOp),
		Noise: termNoise(prev, cur, results.UserTerm, results.UserTerm, sameRun), Details: stages.details(results.ClassUser, results.ClassUser)}
	user.Delta = user.New - user.Old
	d.Terms = append(d.Terms, user)
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
	oldRounds := map[int]map[string]float64{}
	var os, ns, diffs []results.Unit
	for i := range prev.Rounds {
		r := &prev.Rounds[i]
		if r.Terms != nil {
			oldRounds[r.Round] = r.Terms
			os = append(os, results.Unit{Unit: prev.UnitOf(r), Value: r.Terms[ko]})
		}
	}
	for i := range cur.Rounds {
		r := &cur.Rounds[i]
		if r.Terms == nil {
			continue
		}
		u := cur.UnitOf(r)
		ns = append(ns, results.Unit{Unit: u, Value: r.Terms[kn]})
		if ot := oldRounds[r.Round]; ot != nil {
			diffs = append(diffs, results.Unit{Unit: u, Value: r.Terms[kn] - ot[ko]})
		}
	}
	if !sameRun || cur.Protocol == results.ProtocolSeed {
		return results.Indistinct(results.UnitSummaries(os), results.UnitSummaries(ns))
	}
	e := results.ClusteredMedian(diffs)
	return e.Bounded() && e.Lo <= 0 && 0 <= e.Hi
}

// stageRows holds the stage rows of both sides by class, and hands each
// out once: to its syscall's term, or, for a class with no term, as an
// extra.
type stageRows map[string]map[string]*[2]results.ClassSummary

func stagesByClass(prev, cur *results.Summary) stageRows {
	rows := stageRows{}
	for side, s := range []*results.Summary{prev, cur} {
		for _, c := range s.Classes {
			if c.IsSyscall() {
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
