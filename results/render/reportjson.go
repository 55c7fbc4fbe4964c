package render

import (
	"encoding/json"
	"io"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// SummaryReport is a report for machines ('tmpprobe report --format
// json'): the per-op figures of every arm, integer ns per op, and what the
// report says of them, sentence by sentence, as the terminal and
// report.md say it.
type SummaryReport struct {
	Schema   int               `json:"schema"`
	Started  time.Time         `json:"started"`
	Protocol results.Protocol  `json:"protocol"`
	Complete bool              `json:"complete"`
	Args     []string          `json:"args"`
	Meta     MetaReport        `json:"meta"`
	Drops    map[string]uint64 `json:"drops,omitempty"`
	Arms     []ArmReport       `json:"arms"`
	// Between is the spread between runs the intervals include.
	Between *results.BetweenRuns `json:"between_runs,omitempty"`
	// Groups are the peer groups in the report's order, with their
	// verdicts and WHY sentences; Spills, Failures and Footer the
	// report's after them.
	Groups   []GroupReport       `json:"groups,omitempty"`
	Spills   []report.Sentence   `json:"spills,omitempty"`
	Failures []report.Failure    `json:"failures,omitempty"`
	Footer   []report.FooterLine `json:"footer,omitempty"`
}

// MetaReport is the run's facts with its warnings, as run.json has them.
type MetaReport struct {
	results.Meta
	Warnings []string `json:"warnings,omitempty"`
}

// ArmReport is one arm's figures, and the sentence of where its time goes.
type ArmReport struct {
	results.CaseID
	Ops int `json:"ops_per_batch"`
	results.Figures
	// TimePerOp is the untraced time per op the table prints (µs/op):
	// 1e9 ÷ ops_per_s, its interval inverted; wall_ns_per_op is the
	// traced batches' pooled, which the breakdown divides.
	TimePerOp     *results.Estimate `json:"time_per_op_ns,omitempty"`
	TracedOpsPerS float64           `json:"traced_ops_per_s,omitempty"`
	WallNsPerOp   results.NsPerOp   `json:"wall_ns_per_op"`
	KernelNsPerOp results.NsPerOp   `json:"kernel_ns_per_op"`
	UserNsPerOp   results.NsPerOp   `json:"user_ns_per_op"`
	// UserMeasured says user_ns_per_op is the threads' measured on-CPU
	// time outside syscalls, and offcpu_between_ns_per_op their time off
	// the CPU there that was no wait for a CPU; without it user space is
	// what the syscalls leave of the wall time (runs before #39).
	UserMeasured   bool            `json:"user_measured,omitempty"`
	BetweenNsPerOp results.NsPerOp `json:"offcpu_between_ns_per_op,omitempty"`
	Classes        []ClassReport   `json:"classes,omitempty"`
	// Functions split user space by function and CallSites each syscall
	// class by the stacks its calls came from (#39), the times medians
	// over the traced rounds; NotSampledNsPerOp is the measured user
	// time no sample stood for.
	Functions         []FunctionReport `json:"functions,omitempty"`
	NotSampledNsPerOp results.NsPerOp  `json:"unnamed_ns_per_op,omitempty"`
	CallSites         []SiteReport     `json:"call_sites,omitempty"`
	Error             string           `json:"error,omitempty"`
	Sentence          string           `json:"sentence,omitempty"`
	// Code are the sentences of where in the code its time went, whole.
	Code []report.Sentence `json:"code,omitempty"`
}

// FunctionReport is one function's user time: the function (its line
// the one it spent most time on), the samples taken in it and the CPU
// time they stand for over the traced batches, its time per op with its
// interval and its share of user space.
type FunctionReport struct {
	results.Frame
	Samples uint64           `json:"samples"`
	Ns      uint64           `json:"ns"`
	NsPerOp results.Estimate `json:"ns_per_op"`
	Share   float64          `json:"share"`
}

// SiteReport is one call site of a syscall class: its stack, leaf
// first; the sampled calls, time and off-CPU time issued from it over
// the traced batches; its part of the class's row per op and its shares
// of it.
type SiteReport struct {
	Class      string          `json:"class"`
	Stack      []results.Frame `json:"stack"`
	Calls      uint64          `json:"calls"`
	Ns         uint64          `json:"ns"`
	OffNs      uint64          `json:"offcpu_ns"`
	CallsPerOp float64         `json:"calls_per_op"`
	NsPerOp    results.NsPerOp `json:"ns_per_op"`
	OffNsPerOp results.NsPerOp `json:"offcpu_ns_per_op"`
	CallShare  float64         `json:"call_share"`
	TimeShare  float64         `json:"time_share"`
	OffShare   float64         `json:"offcpu_share"`
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

// GroupReport is one peer group: its title, its arms by name, and its
// sentences.
type GroupReport struct {
	Title string   `json:"title"`
	Arms  []string `json:"arms"`
	// Base is the arm the group's ratios divide by (its throughput), and
	// Observer the line that says what tracing cost its arms.
	Base     string            `json:"base,omitempty"`
	Observer string            `json:"observer,omitempty"`
	Verdicts []report.Sentence `json:"verdicts,omitempty"`
	Why      []report.Sentence `json:"why,omitempty"`
}

// WriteSummaryJSON writes the report of a run for machines.
func WriteSummaryJSON(w io.Writer, run *results.Run, sums []*results.Summary, labs explain.LabKnowledge) error {
	return WriteJSONDocument(w, report.New(report.Input{Run: run, Sums: sums, Labs: labs}, report.Options{}))
}

// WriteJSONDocument writes a report for machines: SummaryReport.
func WriteJSONDocument(w io.Writer, d *report.Document) error {
	h := d.Head
	rep := SummaryReport{Schema: h.Schema, Started: h.Started, Protocol: h.Protocol, Complete: h.Complete,
		Args: h.Args, Meta: MetaReport{h.Meta, h.Warnings}, Drops: h.Drops, Arms: []ArmReport{}, Between: h.Between,
		Spills: d.Spills, Failures: d.Failures, Footer: d.Footer}
	for _, a := range d.Arms {
		rep.Arms = append(rep.Arms, armReport(a))
	}
	for _, g := range d.Groups {
		gr := GroupReport{Title: g.Title, Base: g.Base, Observer: g.Observer, Verdicts: g.Verdicts, Why: g.Why}
		for _, a := range g.Arms {
			gr.Arms = append(gr.Arms, a.Arm)
		}
		rep.Groups = append(rep.Groups, gr)
	}
	return WriteJSON(w, rep)
}

func armReport(a *report.Arm) ArmReport {
	out := ArmReport{CaseID: a.CaseID, Ops: a.Ops, Figures: a.Figures, TracedOpsPerS: results.RoundTo(a.TracedOpsPerS, 10),
		WallNsPerOp: results.NsPerOp(a.WallNs), KernelNsPerOp: results.NsPerOp(a.KernelNs), UserNsPerOp: results.NsPerOp(a.UserNs),
		UserMeasured: a.UserMeasured, BetweenNsPerOp: results.NsPerOp(a.BetweenNs), Error: a.Error, Sentence: a.Sentence.Text}
	if a.TimePerOp.Known() {
		out.TimePerOp = &a.TimePerOp
	}
	out.Code, out.NotSampledNsPerOp = a.Code, results.NsPerOp(a.NotSampledNs)
	for _, f := range a.Functions {
		out.Functions = append(out.Functions, FunctionReport{Frame: f.Frame, Samples: f.Samples, Ns: f.Ns, NsPerOp: f.NsPerOp,
			Share: results.RoundTo(f.Share, 1e4)})
	}
	for _, x := range a.Sites {
		out.CallSites = append(out.CallSites, SiteReport{Class: x.Key.Class, Stack: x.Stack, Calls: x.Calls, Ns: x.Ns, OffNs: x.OffNs,
			CallsPerOp: x.CallsPerOp, NsPerOp: results.NsPerOp(x.NsPerOp), OffNsPerOp: results.NsPerOp(x.OffNsPerOp),
			CallShare: results.RoundTo(x.CallShare, 1e4), TimeShare: results.RoundTo(x.TimeShare, 1e4), OffShare: results.RoundTo(x.OffShare, 1e4)})
	}
	for _, c := range a.Classes {
		cr := ClassReport{Class: c.Class, Stage: c.Stage, Calls: c.Calls, CallsPerOp: c.CallsPerOp,
			NsPerOp: results.NsPerOp(c.NsPerOp), OffNsPerOp: results.NsPerOp(c.OffNsPerOp), P50: c.P50, P95: c.P95, P99: c.P99}
		if len(c.OffByLabel) > 0 {
			cr.OffByLabel = map[string]results.NsPerOp{}
			for k, v := range c.OffByLabel {
				cr.OffByLabel[k] = results.NsPerOp(v)
			}
		}
		out.Classes = append(out.Classes, cr)
	}
	return out
}

// WriteJSON writes v as every JSON file tmpprobe writes: indented by two
// spaces, one value a file.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
