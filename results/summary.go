package results

import (
	"sort"
	"strings"
)

// Summary is the per-op view of one arm result: headline throughput from
// the untraced batches (when there are any), attribution from the median
// traced batch.
type Summary struct {
	*ArmResult
	OpsPerS       float64 // p50 batch; untraced when baseline batches ran
	OpsMin        float64 // slowest batch of the same kind
	OpsMax        float64 // fastest batch of the same kind
	TracedOpsPerS float64 // p50 traced batch; 0 when nothing was traced
	Observer      float64 // TracedOpsPerS / OpsPerS; 0 without both
	Ratio         float64 // OpsPerS / the lab baseline arm's; 0 when absent
	Traced        *Batch  // the p50 traced batch the attribution comes from
	WallNsPerOp   float64 // of the traced p50 batch
	KernelNsPerOp float64 // Σ syscall time per op, same batch
	UserNsPerOp   float64 // wall − kernel
	Classes       []ClassSummary
	// Spread is, per syscall class and for "user" and "wall", max − min of
	// ns/op across the traced batches: the run-to-run noise of that term.
	Spread map[string]float64
}

// ClassSummary is one syscall class (or stage) per op of the traced p50
// batch, with percentiles of single calls.
type ClassSummary struct {
	Class         string
	Stage         string
	Calls         uint64
	CallsPerOp    float64
	NsPerOp       float64
	OffNsPerOp    float64
	ErrPerOp      float64
	BytesPerOp    float64
	OffByLabel    map[string]float64 // ns per op
	P50, P95, P99 uint64
}

// IsSyscall reports whether the row is a syscall's own time (not a stage,
// an event, or user space).
func (c *ClassSummary) IsSyscall() bool { return c.Stage == "" && c.Class != "user" }

// Unit names what one "op" is: a round of the buffers lab, a whole traced
// run, an entry into a region a traced program marked, or a lab op.
func (s *Summary) Unit() string {
	switch {
	case s.SizeBytes > 0:
		return "round"
	case s.Lab == "trace" && strings.HasPrefix(s.Arm, "region "):
		return "entry"
	case s.Lab == "trace":
		return "run"
	}
	return "op"
}

// MBPerS is the buffers lab's metric: MiB of payload per second of a round.
func (s *Summary) MBPerS() float64 {
	if s.SizeBytes == 0 || s.OpsPerS == 0 {
		return 0
	}
	return float64(s.SizeBytes) / (1 << 20) * s.OpsPerS
}

// p50 picks the median batch by wall time (the lower median for an even
// count, as the labs' p50 of a handful of repeats).
func p50(bs []*Batch) (*Batch, float64, float64) {
	if len(bs) == 0 {
		return nil, 0, 0
	}
	sorted := append([]*Batch(nil), bs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].WallNs < sorted[j].WallNs })
	return sorted[(len(sorted)-1)/2], float64(sorted[0].WallNs), float64(sorted[len(sorted)-1].WallNs)
}

// Summarize computes the per-op figures of one arm result.
func Summarize(a *ArmResult) *Summary {
	s := &Summary{ArmResult: a}
	var traced, untraced []*Batch
	for i := range a.Batches {
		b := &a.Batches[i]
		if b.Traced {
			traced = append(traced, b)
		} else {
			untraced = append(untraced, b)
		}
	}
	ops := float64(a.Ops)
	perSec := func(wall float64) float64 {
		if wall <= 0 {
			return 0
		}
		return ops / (wall / 1e9)
	}
	headline := untraced
	if len(headline) == 0 {
		headline = traced
	}
	if b, fastest, slowest := p50(headline); b != nil {
		s.OpsPerS = perSec(float64(b.WallNs))
		s.OpsMin, s.OpsMax = perSec(slowest), perSec(fastest)
	}
	tb, _, _ := p50(traced)
	if tb == nil {
		return s
	}
	s.Traced = tb
	s.TracedOpsPerS = perSec(float64(tb.WallNs))
	if len(untraced) > 0 && s.OpsPerS > 0 {
		s.Observer = s.TracedOpsPerS / s.OpsPerS
	}
	s.WallNsPerOp = float64(tb.WallNs) / ops
	for _, r := range tb.Records {
		c := ClassSummary{
			Class: r.Class, Stage: r.Stage, Calls: r.Calls,
			CallsPerOp: float64(r.Calls) / ops,
			NsPerOp:    float64(r.TotalNs) / ops,
			OffNsPerOp: float64(r.OffCPUNs) / ops,
			ErrPerOp:   float64(r.Errors) / ops,
			BytesPerOp: float64(r.Bytes) / ops,
			P50:        Percentile(r.Hist, 0.50),
			P95:        Percentile(r.Hist, 0.95),
			P99:        Percentile(r.Hist, 0.99),
		}
		if len(r.OffNs) > 0 {
			c.OffByLabel = map[string]float64{}
			for k, v := range r.OffNs {
				c.OffByLabel[k] = float64(v) / ops
			}
		}
		if c.IsSyscall() {
			s.KernelNsPerOp += c.NsPerOp
		}
		s.Classes = append(s.Classes, c)
	}
	s.UserNsPerOp = s.WallNsPerOp - s.KernelNsPerOp
	s.Spread = spread(traced, ops)
	sortClasses(s.Classes)
	return s
}

// sortClasses orders syscalls by time per op, largest first, each followed
// by its stages (by stage name); classes seen only through stages (user
// space) come last.
func sortClasses(cs []ClassSummary) {
	own := map[string]float64{}
	for _, c := range cs {
		if c.IsSyscall() {
			own[c.Class] = c.NsPerOp
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		oa, aok := own[a.Class]
		ob, bok := own[b.Class]
		if aok != bok {
			return aok
		}
		if a.Class != b.Class {
			if oa != ob {
				return oa > ob
			}
			return a.Class < b.Class
		}
		if (a.Stage == "") != (b.Stage == "") {
			return a.Stage == ""
		}
		return a.Stage < b.Stage
	})
}

// spread computes Summary.Spread over the traced batches.
func spread(traced []*Batch, ops float64) map[string]float64 {
	lo, hi := map[string]float64{}, map[string]float64{}
	see := func(k string, v float64) {
		if l, ok := lo[k]; !ok || v < l {
			lo[k] = v
		}
		if v > hi[k] {
			hi[k] = v
		}
	}
	names := map[string]bool{}
	for _, b := range traced {
		for _, r := range b.Records {
			if r.Stage == "" && r.Class != "user" {
				names[r.Class] = true
			}
		}
	}
	for _, b := range traced {
		per := map[string]float64{}
		var kernel float64
		for _, r := range b.Records {
			if r.Stage == "" && r.Class != "user" {
				per[r.Class] = float64(r.TotalNs) / ops
				kernel += float64(r.TotalNs)
			}
		}
		for n := range names {
			see(n, per[n]) // a class absent from a batch counts as 0 there
		}
		see("wall", float64(b.WallNs)/ops)
		see("user", (float64(b.WallNs)-kernel)/ops)
	}
	out := map[string]float64{}
	for k := range hi {
		out[k] = hi[k] - lo[k]
	}
	return out
}

// Stage returns the row of a stage inside a class, or a zero row.
func (s *Summary) Stage(class, stage string) ClassSummary {
	for _, c := range s.Classes {
		if c.Class == class && c.Stage == stage {
			return c
		}
	}
	return ClassSummary{Class: class, Stage: stage}
}

// Class returns the syscall-level row of a class, or a zero row.
func (s *Summary) Class(name string) ClassSummary { return s.Stage(name, "") }

// SummarizeAll summarizes every result and fills each one's ratio to its
// lab's baseline arm with the same runtime, dir and parameter.
func SummarizeAll(arms []ArmResult, baseline map[string]string) []*Summary {
	out := make([]*Summary, len(arms))
	base := map[string]*Summary{}
	for i := range arms {
		out[i] = Summarize(&arms[i])
		if baseline[arms[i].Lab] == arms[i].Arm {
			base[peerKey(&arms[i])] = out[i]
		}
	}
	for _, s := range out {
		if b := base[peerKey(s.ArmResult)]; b != nil && b.OpsPerS > 0 {
			s.Ratio = s.OpsPerS / b.OpsPerS
		}
	}
	return out
}

// peerKey groups results that a lab compares: same lab, runtime, dir and
// parameter.
func peerKey(a *ArmResult) string {
	return a.Lab + "/" + a.Runtime + "/" + a.Dir + "/" + a.Param()
}
