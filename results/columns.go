package results

import "strings"

// The CSV schema: the columns of arms.csv and syscalls.csv, beside the
// case's identity columns (CaseColumns), so that the writers (render) and
// the reader (runfile) spell no column name of their own.

// ArmColumns are the columns of arms.csv, one row a case (its identity
// first, CaseColumns): the headline figures a spreadsheet or a CI job
// wants. Each figure with an interval has _lo and _hi columns: its 95%
// confidence interval, empty when too few rounds give one. Times per op
// are medians over the traced rounds (see times.go).
var ArmColumns = append(CaseColumns(), "ops",
	"rounds", "untraced_batches", "traced_batches", "setup_batches",
	"ops_per_s", "ops_per_s_lo", "ops_per_s_hi",
	"mb_per_s", "mb_per_s_lo", "mb_per_s_hi",
	"ratio", "ratio_lo", "ratio_hi",
	"traced_ops_per_s", "observer", "observer_lo", "observer_hi",
	"wall_ns_per_op", "kernel_ns_per_op", "user_ns_per_op", "offcpu_ns_per_op",
	"runqueue_ns_per_op", "wall_ns_per_op_lo", "wall_ns_per_op_hi",
	"error",
)

// SyscallColumnsRequired are the columns a syscalls.csv is read back
// from: the case's identity (CaseColumns), then the figures and the
// record every such file has had. Columns added since are read when
// present.
var SyscallColumnsRequired = append(CaseColumns(), "ops",
	"ops_per_s", "traced_ops_per_s", "wall_ns_per_op", "user_ns_per_op",
	"syscall", "stage", "calls", "calls_per_op", "errors", "kernel_ns")

// SyscallColumns are the columns of the syscall breakdown CSV, one row a
// case × syscall class (× stage), up to the off-CPU labels' columns
// (SyscallHeader has them all). Case-level figures repeat on each of a
// case's rows, so one file answers everything. The *_ns columns are
// sums over the traced batches; the *_ns_per_op ones medians over the
// traced rounds, as the report prints them (files before
// runqueue_ns_per_op have pooled means there).
var SyscallColumns = append(SyscallColumnsRequired[:len(SyscallColumnsRequired):len(SyscallColumnsRequired)],
	"kernel_ns_per_op", "offcpu_ns", "offcpu_ns_per_op",
	"p50_ns", "p95_ns", "p99_ns", "backend", "kernel_release", "bytes",
	"rounds", "traced_ops", "ops_per_s_lo", "ops_per_s_hi",
	"ratio", "ratio_lo", "ratio_hi", "observer", "observer_lo", "observer_hi",
	"syscalls_ns_per_op", "runqueue_ns_per_op",
)

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

// SyscallHeader is syscalls.csv's header: SyscallColumns, a column per
// off-CPU label, and RowsColumn last.
func SyscallHeader() []string {
	h := append([]string(nil), SyscallColumns...)
	for _, l := range OffLabels {
		h = append(h, OffLabelColumn(l))
	}
	return append(h, RowsColumn)
}
