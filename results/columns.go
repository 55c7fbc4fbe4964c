package results

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
)

// The CSV schema: the columns of arms.csv and syscalls.csv, each a name
// and the cell a row has in it, declared once in one table per file
// (ArmTable, SyscallTable), so that a column's name and its value cannot
// drift apart, the writers (render) lay the table out, and the reader
// (runfile) finds columns by the same names.

// A Column is one column of a CSV file: its name and its cell in row R.
type Column[R any] struct {
	Name string
	Cell func(R) string
}

// Names are the columns' names, the file's header.
func Names[R any](cols []Column[R]) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// Cells are row's cells, in the columns' order.
func Cells[R any](cols []Column[R], row R) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Cell(row)
	}
	return out
}

// caseColumns are the case's identity columns (CaseColumns), of the case
// id gives a row.
func caseColumns[R any](id func(R) CaseID) []Column[R] {
	out := make([]Column[R], len(caseFields))
	for i, name := range CaseColumns() {
		out[i] = Column[R]{name, func(r R) string { return id(r).Cell(i) }}
	}
	return out
}

// estimateColumns are name, name_lo and name_hi: a median and its 95%
// confidence interval, each empty when unknown (a 0 would read as a
// real, catastrophic, figure in a spreadsheet).
func estimateColumns[R any](name string, e func(R) Estimate) []Column[R] {
	return []Column[R]{
		{name, func(r R) string {
			if v := e(r); v.Known() {
				return ftoa(v.Center)
			}
			return ""
		}},
		{name + "_lo", func(r R) string {
			if v := e(r); v.Bounded() {
				return ftoa(v.Lo)
			}
			return ""
		}},
		{name + "_hi", func(r R) string {
			if v := e(r); v.Bounded() {
				return ftoa(v.Hi)
			}
			return ""
		}},
	}
}

// ArmRow is a row of arms.csv: a case's summary, its batches counted by
// kind, and its syscalls' off-CPU time per op.
type ArmRow struct {
	*Summary
	Untraced, Traced, Setup int64
	SyscallOffNsPerOp       float64
}

// NewArmRow is s's row of arms.csv.
func NewArmRow(s *Summary) ArmRow {
	r := ArmRow{Summary: s}
	for i := range s.Batches {
		switch b := &s.Batches[i]; {
		case !b.Measured():
			r.Setup++
		case b.Traced:
			r.Traced++
		default:
			r.Untraced++
		}
	}
	for _, c := range s.Classes {
		if c.IsSyscall() {
			r.SyscallOffNsPerOp += c.OffNsPerOp
		}
	}
	return r
}

// ArmTable is arms.csv, one row a case (its identity first, CaseColumns):
// the headline figures a spreadsheet or a CI job wants. Each figure with
// an interval has _lo and _hi columns: its 95% confidence interval, empty
// when too few rounds give one. Times per op are medians over the traced
// rounds (see times.go).
var ArmTable = concat(
	caseColumns(func(r ArmRow) CaseID { return r.CaseID }),
	[]Column[ArmRow]{
		{"ops", func(r ArmRow) string { return itoa(int64(r.Ops)) }},
		{"rounds", func(r ArmRow) string { return itoa(int64(r.RoundCount)) }},
		{"untraced_batches", func(r ArmRow) string { return itoa(r.Untraced) }},
		{"traced_batches", func(r ArmRow) string { return itoa(r.Traced) }},
		{"setup_batches", func(r ArmRow) string { return itoa(r.Setup) }},
	},
	estimateColumns("ops_per_s", func(r ArmRow) Estimate { return r.OpsPerS }),
	estimateColumns("mb_per_s", func(r ArmRow) Estimate { return r.MBPerS() }),
	estimateColumns("ratio", func(r ArmRow) Estimate { return r.Ratio }),
	[]Column[ArmRow]{{"traced_ops_per_s", func(r ArmRow) string {
		if r.TracedOpsPerS == 0 {
			return ""
		}
		return ftoa(r.TracedOpsPerS)
	}}},
	estimateColumns("observer", func(r ArmRow) Estimate { return r.Observer }),
	[]Column[ArmRow]{
		{"wall_ns_per_op", func(r ArmRow) string { return nsInt(r.WallNsPerOp) }},
		{"kernel_ns_per_op", func(r ArmRow) string { return nsInt(r.KernelNsPerOp) }},
		{"user_ns_per_op", func(r ArmRow) string { return userNs(r.UserNsPerOp) }},
		{"offcpu_ns_per_op", func(r ArmRow) string { return nsInt(r.SyscallOffNsPerOp) }},
		{"runqueue_ns_per_op", func(r ArmRow) string { return nsInt(r.RunQueueNsPerOp) }},
		{"offcpu_between_ns_per_op", func(r ArmRow) string { return betweenNs(r.Summary) }},
	},
	estimateColumns("wall_ns_per_op", func(r ArmRow) Estimate { return r.TracedWall })[1:],
	[]Column[ArmRow]{
		{"error", func(r ArmRow) string { return errtext.FirstLine(r.Error) }},
	},
)

// ArmColumns are arms.csv's columns (ArmTable's names).
var ArmColumns = Names(ArmTable)

// SyscallRow is a row of syscalls.csv: a case's summary, one of its
// classes (× stage) with its record, the run's facts, and Rows, the
// number of data rows in the file.
type SyscallRow struct {
	*Summary
	Run    *Run
	Class  ClassSummary
	Record ClassRecord
	Rows   int
	// Function and Site make the row one of a function's user time or
	// of a call site of its class (CodeRows); both nil for a class's or
	// a stage's row.
	Function *FunctionSummary
	Site     *SiteSummary
}

// syscallRequired are the columns every syscalls.csv has had: a file is
// read back from them (SyscallColumnsRequired); the rest of SyscallTable
// was added since, and is read when present.
var syscallRequired = concat(
	caseColumns(func(r SyscallRow) CaseID { return r.CaseID }),
	[]Column[SyscallRow]{
		{"ops", func(r SyscallRow) string { return itoa(int64(r.Ops)) }},
		{"ops_per_s", func(r SyscallRow) string { return ftoa(r.OpsPerS.Center) }},
		{"traced_ops_per_s", func(r SyscallRow) string { return ftoa(r.TracedOpsPerS) }},
		{"wall_ns_per_op", func(r SyscallRow) string { return nsInt(r.WallNsPerOp) }},
		{"user_ns_per_op", func(r SyscallRow) string { return userNs(r.UserNsPerOp) }},
		{"syscall", func(r SyscallRow) string { return r.Class.Class }},
		{"stage", func(r SyscallRow) string { return r.Class.Stage }},
		{"calls", func(r SyscallRow) string { return utoa(r.Record.Calls) }},
		{"calls_per_op", func(r SyscallRow) string { return strconv.FormatFloat(r.Class.CallsPerOp, 'f', -1, 64) }},
		{"errors", func(r SyscallRow) string { return utoa(r.Record.Errors) }},
		{"kernel_ns", func(r SyscallRow) string { return utoa(r.Record.TotalNs) }},
	},
)

// SyscallTable is syscalls.csv, one row a case × syscall class (× stage).
// Case-level figures repeat on each of a case's rows, so one file answers
// everything. The *_ns columns are sums over the traced batches; the
// *_ns_per_op ones medians over the traced rounds, as the report prints
// them (files before runqueue_ns_per_op have pooled means there). A column per off-CPU label follows the figures, and
// RowsColumn is last.
var SyscallTable = concat(syscallRequired,
	[]Column[SyscallRow]{
		{"kernel_ns_per_op", func(r SyscallRow) string { return nsInt(r.Class.NsPerOp) }},
		{"offcpu_ns", func(r SyscallRow) string { return utoa(r.Record.OffCPUNs) }},
		{"offcpu_ns_per_op", func(r SyscallRow) string { return nsInt(r.Class.OffNsPerOp) }},
		{"p50_ns", func(r SyscallRow) string { return utoa(r.Class.P50) }},
		{"p95_ns", func(r SyscallRow) string { return utoa(r.Class.P95) }},
		{"p99_ns", func(r SyscallRow) string { return utoa(r.Class.P99) }},
		{"backend", func(r SyscallRow) string { return r.Run.Meta.Backend }},
		{"kernel_release", func(r SyscallRow) string { return r.Run.Meta.KernelRelease }},
		{"bytes", func(r SyscallRow) string { return utoa(r.Record.Bytes) }},
		{"rounds", func(r SyscallRow) string { return itoa(int64(r.RoundCount)) }},
		{"traced_ops", func(r SyscallRow) string { return itoa(int64(r.Traced.Ops)) }},
	},
	estimateColumns("ops_per_s", func(r SyscallRow) Estimate { return r.OpsPerS })[1:],
	estimateColumns("ratio", func(r SyscallRow) Estimate { return r.Ratio }),
	estimateColumns("observer", func(r SyscallRow) Estimate { return r.Observer }),
	[]Column[SyscallRow]{
		{"syscalls_ns_per_op", func(r SyscallRow) string { return nsInt(r.KernelNsPerOp) }},
		{"runqueue_ns_per_op", func(r SyscallRow) string { return nsInt(r.RunQueueNsPerOp) }},
	},
	offLabelColumns(),
	[]Column[SyscallRow]{
		{"offcpu_between_ns_per_op", func(r SyscallRow) string { return betweenNs(r.Summary) }},
		{"unnamed_ns_per_op", func(r SyscallRow) string {
			if r.Stacks == nil || !r.UserMeasured {
				return ""
			}
			return nsInt(r.UnsampledNsPerOp)
		}},
		{"function", func(r SyscallRow) string { return r.codeFrame().Function }},
		{"file", func(r SyscallRow) string { return r.codeFrame().File }},
		{"line", func(r SyscallRow) string {
			if f := r.codeFrame(); f.Line > 0 {
				return itoa(int64(f.Line))
			}
			return ""
		}},
		{"stack", func(r SyscallRow) string { return r.stackCell() }},
		{"samples", func(r SyscallRow) string {
			if r.Function == nil {
				return ""
			}
			return utoa(r.Function.Samples)
		}},
		{"stack_every", func(r SyscallRow) string {
			return stacksCell(r.Stacks, func(s *Stacks) uint64 { return uint64(s.Every) })
		}},
		{"stack_tail_ns", func(r SyscallRow) string { return stacksCell(r.Stacks, func(s *Stacks) uint64 { return s.TailNs }) }},
		{"sample_period_ns", func(r SyscallRow) string {
			return stacksCell(r.Stacks, func(s *Stacks) uint64 { return s.SamplePeriodNs })
		}},
	},
	[]Column[SyscallRow]{{RowsColumn, func(r SyscallRow) string { return itoa(int64(r.Rows)) }}},
)

// SyscallColumnsRequired are the columns a syscalls.csv is read back
// from: the case's identity (CaseColumns), then the figures and the
// record every such file has had. Columns added since are read when
// present.
var SyscallColumnsRequired = Names(syscallRequired)

// SyscallHeader is syscalls.csv's header: SyscallTable's names.
func SyscallHeader() []string { return Names(SyscallTable) }

// offLabelColumns are a column per off-CPU label, its time in the
// record (OffLabelColumn).
func offLabelColumns() []Column[SyscallRow] {
	out := make([]Column[SyscallRow], len(OffLabels))
	for i, l := range OffLabels {
		out[i] = Column[SyscallRow]{OffLabelColumn(l), func(r SyscallRow) string { return utoa(r.Record.OffNs[l]) }}
	}
	return out
}

// OffLabelColumn names the CSV column of an off-CPU label: each of
// OffLabels is one, offcpu_<label>_ns.
func OffLabelColumn(label string) string {
	return "offcpu_" + strings.ReplaceAll(label, "/", "_") + "_ns"
}

// RowsColumn, the last column of syscalls.csv, holds on every row the
// number of data rows in the file: a file cut at a line boundary still
// parses as CSV, and only a count written ahead tells that rows are
// missing.
const RowsColumn = "rows"

func concat[R any](parts ...[]Column[R]) []Column[R] {
	var out []Column[R]
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// betweenNs is the off-CPU time between calls per op where user space
// was measured, empty where it was not (and user_ns_per_op is what the
// syscalls left of the wall time): a reader tells the two apart by it.
func betweenNs(s *Summary) string {
	if !s.UserMeasured {
		return ""
	}
	return nsInt(s.BetweenNsPerOp)
}

// userNs is empty where user time is negative: a trace sums kernel time
// over threads, which can exceed the wall time, and user time is then not
// known (the terminal report says so rather than print it).
func userNs(v float64) string {
	if v < 0 {
		return ""
	}
	return nsInt(v)
}

func itoa(v int64) string  { return strconv.FormatInt(v, 10) }
func utoa(v uint64) string { return strconv.FormatUint(v, 10) }

// ftoa keeps every digit: a rate read back must give the same wall time.
func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// nsInt renders a per-op time as integer ns: finer is below the clock's
// and the probe's resolution.
func nsInt(v float64) string { return strconv.FormatInt(int64(math.Round(v)), 10) }

// CodeRows are an arm's rows of syscalls.csv for where in the code its
// time went (code.go): a row per function of its user time (syscall
// "user"; calls 0, samples its samples, kernel_ns the CPU time they stand
// for and kernel_ns_per_op its median per op), then a row per call site
// of each syscall class (its sampled calls, time and off-CPU time, and
// per op the class's row's part of them), each with its frames.
func CodeRows(s *Summary, run *Run) []SyscallRow {
	var out []SyscallRow
	for i := range s.Functions {
		f := &s.Functions[i]
		out = append(out, SyscallRow{Summary: s, Run: run, Function: f,
			Class:  ClassSummary{Class: ClassUser, NsPerOp: f.NsPerOp.Center},
			Record: ClassRecord{Class: ClassUser, TotalNs: f.Ns}})
	}
	for i := range s.Sites {
		x := &s.Sites[i]
		out = append(out, SyscallRow{Summary: s, Run: run, Site: x,
			Class:  ClassSummary{Class: x.Key.Class, CallsPerOp: x.CallsPerOp, NsPerOp: x.NsPerOp, OffNsPerOp: x.OffNsPerOp},
			Record: ClassRecord{Class: x.Key.Class, Calls: x.Calls, TotalNs: x.Ns, OffCPUNs: x.OffNs}})
	}
	return out
}

// codeFrame is the frame a code row is of: its function, or its call
// site's leaf.
func (r SyscallRow) codeFrame() Frame {
	switch {
	case r.Function != nil:
		return r.Function.Frame
	case r.Site != nil && len(r.Site.Stack) > 0:
		return r.Site.Stack[0]
	}
	return Frame{}
}

// stackCell is a code row's frames, leaf first, as JSON (Frame's
// fields): a name of any characters reads back exactly. A function's
// row has its one frame.
func (r SyscallRow) stackCell() string {
	var frames []Frame
	switch {
	case r.Function != nil:
		frames = []Frame{r.Function.Frame}
	case r.Site != nil:
		frames = r.Site.Stack
	default:
		return ""
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "<module>" as Python names it
	if err := enc.Encode(frames); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// stacksCell is a field of how the run took its stacks, on every row of
// a run that took them.
func stacksCell(st *Stacks, f func(*Stacks) uint64) string {
	if st == nil {
		return ""
	}
	return utoa(f(st))
}
