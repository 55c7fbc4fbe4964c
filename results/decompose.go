package results

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
)

// ChangeTerm is one additive part of a change in wall time per op: a syscall
// class or user space. Across an arm's terms, Σ Delta = Δ wall/op, because
// user space is defined as wall − Σ syscall time.
type ChangeTerm struct {
	Name    string   `json:"name"`
	Old     NsPerOp  `json:"old_ns_per_op"`
	New     NsPerOp  `json:"new_ns_per_op"`
	Delta   NsPerOp  `json:"delta_ns_per_op"`
	Details []Detail `json:"details,omitempty"`
}

// Detail is a figure inside a term (a stage, an off-CPU label, calls per
// op) or beside an arm's terms (stages of no syscall).
// Unit "ns" is ns per op, "calls" is a count per op.
type Detail struct {
	Name string  `json:"name"`
	Unit string  `json:"unit"`
	Old  float64 `json:"old"`
	New  float64 `json:"new"`
}

// Delta is New − Old.
func (d Detail) Delta() float64 { return d.New - d.Old }

// NsPerOp is a per-op time; machine-readable output carries it as integer
// ns (finer is below the clock's resolution).
type NsPerOp float64

func (v NsPerOp) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(math.Round(float64(v))), 10), nil
}

const userTerm = "user space"

// DecomposeChange splits the change from prev to cur in wall time per op (of each
// one's p50 traced batch) into syscall-class terms and user space, largest
// first, and lists the figures that are not additive terms (stages of no
// syscall) as extras. Either side may be nil.
func DecomposeChange(prev, cur *Summary) (terms []ChangeTerm, extras []Detail) {
	type pair struct{ prev, cur ClassSummary }
	syscalls := map[string]*pair{}
	stages := map[string]map[string]*pair{} // class → stage → rows
	var order []string
	add := func(s *Summary, isNew bool) {
		if s == nil {
			return
		}
		for _, c := range s.Classes {
			var p *pair
			if c.IsSyscall() {
				if syscalls[c.Class] == nil {
					syscalls[c.Class] = &pair{}
					order = append(order, c.Class)
				}
				p = syscalls[c.Class]
			} else {
				if stages[c.Class] == nil {
					stages[c.Class] = map[string]*pair{}
				}
				if stages[c.Class][c.Stage] == nil {
					stages[c.Class][c.Stage] = &pair{}
				}
				p = stages[c.Class][c.Stage]
			}
			if isNew {
				p.cur = c
			} else {
				p.prev = c
			}
		}
	}
	add(prev, false)
	add(cur, true)
	stageDetails := func(class string) []Detail {
		var out []Detail
		for _, st := range sortedKeys(stages[class]) {
			p := stages[class][st]
			if p.prev.Beside || p.cur.Beside {
				continue // I/O beside a syscall that cannot wait for it: no cause
			}
			name := st
			if _, isTerm := syscalls[class]; !isTerm && class != "user" {
				name = class + "/" + st
			}
			if p.prev.NsPerOp != 0 || p.cur.NsPerOp != 0 {
				out = append(out, Detail{name, "ns", p.prev.NsPerOp, p.cur.NsPerOp})
			}
			out = append(out, Detail{name, "calls", p.prev.CallsPerOp, p.cur.CallsPerOp})
		}
		delete(stages, class)
		return out
	}
	for _, class := range order {
		p := syscalls[class]
		t := ChangeTerm{Name: class, Old: NsPerOp(p.prev.NsPerOp), New: NsPerOp(p.cur.NsPerOp)}
		t.Delta = t.New - t.Old
		t.Details = append(t.Details, offCPUDetails(p.prev, p.cur)...)
		t.Details = append(t.Details, stageDetails(class)...)
		t.Details = append(t.Details, Detail{"calls", "calls", p.prev.CallsPerOp, p.cur.CallsPerOp})
		terms = append(terms, t)
	}
	user := ChangeTerm{Name: userTerm}
	if prev != nil {
		user.Old = NsPerOp(prev.UserNsPerOp)
	}
	if cur != nil {
		user.New = NsPerOp(cur.UserNsPerOp)
	}
	user.Delta = user.New - user.Old
	user.Details = stageDetails("user")
	terms = append(terms, user)
	sort.SliceStable(terms, func(i, j int) bool {
		return math.Abs(float64(terms[i].Delta)) > math.Abs(float64(terms[j].Delta))
	})
	for _, class := range sortedKeys(stages) {
		extras = append(extras, stageDetails(class)...)
	}
	return terms, extras
}

// offCPUDetails splits a class's off-CPU change by label (who woke the
// thread, and how it left the CPU), or gives the total when unlabelled.
func offCPUDetails(prev, cur ClassSummary) []Detail {
	labels := map[string]bool{}
	for l := range prev.OffByLabel {
		labels[l] = true
	}
	for l := range cur.OffByLabel {
		labels[l] = true
	}
	// A side with off-CPU time but no labels (a run rebuilt from a CSV)
	// would make every label look new: compare totals then.
	unlabelled := func(c ClassSummary) bool { return len(c.OffByLabel) == 0 && c.OffNsPerOp > 0 }
	if len(labels) == 0 || unlabelled(prev) || unlabelled(cur) {
		if prev.OffNsPerOp == 0 && cur.OffNsPerOp == 0 {
			return nil
		}
		return []Detail{{"off-CPU", "ns", prev.OffNsPerOp, cur.OffNsPerOp}}
	}
	var out []Detail
	for _, l := range sortedKeys(labels) {
		out = append(out, Detail{"off-CPU " + OffLabelPhrase(l), "ns", prev.OffByLabel[l], cur.OffByLabel[l]})
	}
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].Delta()) > math.Abs(out[j].Delta()) })
	return out
}

// OffLabelPhrase says what an off-CPU label of the probe means.
func OffLabelPhrase(label string) string { return offPhrase(label) }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// MarshalJSON carries times as integer ns, counts as they are.
func (d Detail) MarshalJSON() ([]byte, error) {
	type plain Detail
	if d.Unit == "ns" {
		d.Old, d.New = math.Round(d.Old), math.Round(d.New)
	}
	return json.Marshal(plain(d))
}
