package results

import (
	"encoding/json"
	"io"
	"math"
	"time"
)

// SummaryReport is the per-op view of a run for machines ('tmpprobe report
// --format json'): what the terminal report shows, integer ns per op.
type SummaryReport struct {
	Schema   int               `json:"schema"`
	Started  time.Time         `json:"started"`
	Complete bool              `json:"complete"`
	Args     []string          `json:"args"`
	Meta     Meta              `json:"meta"`
	Drops    map[string]uint64 `json:"drops,omitempty"`
	Arms     []ArmReport       `json:"arms"`
}

// ArmReport is one Summary.
type ArmReport struct {
	Lab           string        `json:"lab"`
	Arm           string        `json:"arm"`
	Runtime       string        `json:"runtime"`
	Dir           string        `json:"dir"`
	PayloadBytes  int           `json:"payload_bytes,omitempty"`
	SizeBytes     int           `json:"size_bytes,omitempty"`
	Ops           int           `json:"ops_per_batch"`
	OpsPerS       float64       `json:"ops_per_s"`
	OpsMin        float64       `json:"ops_per_s_min"`
	OpsMax        float64       `json:"ops_per_s_max"`
	MBPerS        float64       `json:"mb_per_s,omitempty"`
	Ratio         float64       `json:"ratio,omitempty"`
	TracedOpsPerS float64       `json:"traced_ops_per_s,omitempty"`
	Observer      float64       `json:"observer,omitempty"`
	WallNsPerOp   NsPerOp       `json:"wall_ns_per_op"`
	KernelNsPerOp NsPerOp       `json:"kernel_ns_per_op"`
	UserNsPerOp   NsPerOp       `json:"user_ns_per_op"`
	Classes       []ClassReport `json:"classes,omitempty"`
	Error         string        `json:"error,omitempty"`
}

// ClassReport is one ClassSummary.
type ClassReport struct {
	Class      string             `json:"class"`
	Stage      string             `json:"stage,omitempty"`
	Calls      uint64             `json:"calls"`
	CallsPerOp float64            `json:"calls_per_op"`
	NsPerOp    NsPerOp            `json:"ns_per_op"`
	OffNsPerOp NsPerOp            `json:"offcpu_ns_per_op"`
	OffByLabel map[string]NsPerOp `json:"offcpu_by_label_ns_per_op,omitempty"`
	P50        uint64             `json:"p50_ns"`
	P95        uint64             `json:"p95_ns"`
	P99        uint64             `json:"p99_ns"`
}

// WriteSummaryJSON writes the per-op view of a run.
func WriteSummaryJSON(w io.Writer, run *Run, sums []*Summary) error {
	rep := SummaryReport{Schema: run.Schema, Started: run.Started, Complete: run.Complete,
		Args: run.Args, Meta: run.Meta, Drops: run.Drops, Arms: []ArmReport{}}
	for _, s := range sums {
		a := ArmReport{
			Lab: s.Lab, Arm: s.Arm, Runtime: s.Runtime, Dir: s.Dir, PayloadBytes: s.PayloadBytes, SizeBytes: s.SizeBytes,
			Ops: s.Ops, OpsPerS: round1(s.OpsPerS), OpsMin: round1(s.OpsMin), OpsMax: round1(s.OpsMax),
			MBPerS: round1(s.MBPerS()), Ratio: round3(s.Ratio), TracedOpsPerS: round1(s.TracedOpsPerS),
			Observer: round3(s.Observer), WallNsPerOp: NsPerOp(s.WallNsPerOp),
			KernelNsPerOp: NsPerOp(s.KernelNsPerOp), UserNsPerOp: NsPerOp(s.UserNsPerOp), Error: s.Error,
		}
		for _, c := range s.Classes {
			cr := ClassReport{Class: c.Class, Stage: c.Stage, Calls: c.Calls, CallsPerOp: c.CallsPerOp,
				NsPerOp: NsPerOp(c.NsPerOp), OffNsPerOp: NsPerOp(c.OffNsPerOp), P50: c.P50, P95: c.P95, P99: c.P99}
			if len(c.OffByLabel) > 0 {
				cr.OffByLabel = map[string]NsPerOp{}
				for k, v := range c.OffByLabel {
					cr.OffByLabel[k] = NsPerOp(v)
				}
			}
			a.Classes = append(a.Classes, cr)
		}
		rep.Arms = append(rep.Arms, a)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func round1(v float64) float64 { return roundTo(v, 10) }
func round3(v float64) float64 { return roundTo(v, 1000) }

func roundTo(v, scale float64) float64 {
	if !finite(v) {
		return 0 // JSON has no Inf or NaN
	}
	return math.Round(v*scale) / scale
}
