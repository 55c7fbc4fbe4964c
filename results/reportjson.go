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
	Protocol Protocol          `json:"protocol"`
	Complete bool              `json:"complete"`
	Args     []string          `json:"args"`
	Meta     Meta              `json:"meta"`
	Drops    map[string]uint64 `json:"drops,omitempty"`
	Arms     []ArmReport       `json:"arms"`
}

// ArmReport is one Summary.
type ArmReport struct {
	Lab          string `json:"lab"`
	Arm          string `json:"arm"`
	Runtime      string `json:"runtime"`
	Dir          string `json:"dir"`
	PayloadBytes int    `json:"payload_bytes,omitempty"`
	SizeBytes    int    `json:"size_bytes,omitempty"`
	Ops          int    `json:"ops_per_batch"`
	Figures
	TracedOpsPerS float64       `json:"traced_ops_per_s,omitempty"`
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
	rep := SummaryReport{Schema: run.Schema, Started: run.Started, Protocol: run.Protocol, Complete: run.Complete,
		Args: run.Args, Meta: run.Meta, Drops: run.Drops, Arms: []ArmReport{}}
	for _, s := range sums {
		a := ArmReport{
			Lab: s.Lab, Arm: s.Arm, Runtime: s.Runtime, Dir: s.Dir, PayloadBytes: s.PayloadBytes, SizeBytes: s.SizeBytes,
			Ops: s.Ops, Figures: s.Headline(), TracedOpsPerS: round1(s.TracedOpsPerS), WallNsPerOp: NsPerOp(s.WallNsPerOp),
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

// Figures are an arm's headline figures with their 95% intervals, as
// run.json, arms.csv and 'report --format json' carry them.
type Figures struct {
	Rounds   int       `json:"rounds"`
	OpsPerS  Estimate  `json:"ops_per_s"`
	MBPerS   *Estimate `json:"mb_per_s,omitempty"`
	Ratio    *Estimate `json:"ratio,omitempty"`
	Observer *Estimate `json:"observer,omitempty"`
}

// Headline gathers the summary's headline figures.
func (s *Summary) Headline() Figures {
	return Figures{Rounds: s.RoundCount, OpsPerS: s.OpsPerS, MBPerS: known(s.MBPerS()),
		Ratio: known(s.Ratio), Observer: known(s.Observer)}
}

// known is e, or nil to leave a figure the arm does not have out of JSON.
func known(e Estimate) *Estimate {
	if !e.Known() {
		return nil
	}
	return &e
}

func round1(v float64) float64 { return roundTo(v, 10) }
func round3(v float64) float64 { return roundTo(v, 1000) }

func roundTo(v, scale float64) float64 {
	if !finite(v) {
		return 0 // JSON has no Inf or NaN
	}
	return math.Round(v*scale) / scale
}
