package render

import (
	"encoding/json"
	"io"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// SummaryReport is the per-op view of a run for machines ('tmpprobe report
// --format json'): what the terminal report shows, integer ns per op.
type SummaryReport struct {
	Schema   int               `json:"schema"`
	Started  time.Time         `json:"started"`
	Protocol results.Protocol  `json:"protocol"`
	Complete bool              `json:"complete"`
	Args     []string          `json:"args"`
	Meta     results.Meta      `json:"meta"`
	Drops    map[string]uint64 `json:"drops,omitempty"`
	Arms     []ArmReport       `json:"arms"`
	// Between is the spread between runs the intervals include.
	Between *results.BetweenRuns `json:"between_runs,omitempty"`
}

// ArmReport is one Summary.
type ArmReport struct {
	results.CaseID
	Ops int `json:"ops_per_batch"`
	results.Figures
	TracedOpsPerS float64         `json:"traced_ops_per_s,omitempty"`
	WallNsPerOp   results.NsPerOp `json:"wall_ns_per_op"`
	KernelNsPerOp results.NsPerOp `json:"kernel_ns_per_op"`
	UserNsPerOp   results.NsPerOp `json:"user_ns_per_op"`
	Classes       []ClassReport   `json:"classes,omitempty"`
	Error         string          `json:"error,omitempty"`
}

// ClassReport is one ClassSummary.
type ClassReport struct {
	Class      string                     `json:"class"`
	Stage      string                     `json:"stage,omitempty"`
	Calls      uint64                     `json:"calls"`
	CallsPerOp float64                    `json:"calls_per_op"`
	NsPerOp    results.NsPerOp            `json:"ns_per_op"`
	OffNsPerOp results.NsPerOp            `json:"offcpu_ns_per_op"`
	OffByLabel map[string]results.NsPerOp `json:"offcpu_by_label_ns_per_op,omitempty"`
	P50        uint64                     `json:"p50_ns"`
	P95        uint64                     `json:"p95_ns"`
	P99        uint64                     `json:"p99_ns"`
}

// WriteSummaryJSON writes the per-op view of a run.
func WriteSummaryJSON(w io.Writer, run *results.Run, sums []*results.Summary) error {
	rep := SummaryReport{Schema: run.Schema, Started: run.Started, Protocol: run.Protocol, Complete: run.Complete,
		Args: run.Args, Meta: run.Meta, Drops: run.Drops, Arms: []ArmReport{}, Between: run.Between}
	for _, s := range sums {
		a := ArmReport{
			CaseID: s.CaseID, Ops: s.Ops, Figures: s.Headline(), TracedOpsPerS: results.RoundTo(s.TracedOpsPerS, 10), WallNsPerOp: results.NsPerOp(s.WallNsPerOp),
			KernelNsPerOp: results.NsPerOp(s.KernelNsPerOp), UserNsPerOp: results.NsPerOp(s.UserNsPerOp), Error: s.Error,
		}
		for _, c := range s.Classes {
			cr := ClassReport{Class: c.Class, Stage: c.Stage, Calls: c.Calls, CallsPerOp: c.CallsPerOp,
				NsPerOp: results.NsPerOp(c.NsPerOp), OffNsPerOp: results.NsPerOp(c.OffNsPerOp), P50: c.P50, P95: c.P95, P99: c.P99}
			if len(c.OffByLabel) > 0 {
				cr.OffByLabel = map[string]results.NsPerOp{}
				for k, v := range c.OffByLabel {
					cr.OffByLabel[k] = results.NsPerOp(v)
				}
			}
			a.Classes = append(a.Classes, cr)
		}
		rep.Arms = append(rep.Arms, a)
	}
	return WriteJSON(w, rep)
}

// WriteJSON writes v as every JSON file tmpprobe writes: indented by two
// spaces, one value a file.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
