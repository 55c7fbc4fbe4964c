package render

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// SyscallColumnsRequired are the columns a syscalls.csv is read back
// from: the case's identity (results.CaseColumns), then the figures and
// the record every such file has had. Columns added since are read when
// present.
var SyscallColumnsRequired = append(results.CaseColumns(), "ops",
	"ops_per_s", "traced_ops_per_s", "wall_ns_per_op", "user_ns_per_op",
	"syscall", "stage", "calls", "calls_per_op", "errors", "kernel_ns")

// SyscallColumns are the columns of the syscall breakdown CSV, one row a
// case × syscall class (× stage). Case-level figures repeat on each of a
// case's rows, so one file answers everything.
var SyscallColumns = append(SyscallColumnsRequired[:len(SyscallColumnsRequired):len(SyscallColumnsRequired)],
	"kernel_ns_per_op", "offcpu_ns", "offcpu_ns_per_op",
	"p50_ns", "p95_ns", "p99_ns", "backend", "kernel_release", "bytes",
	"rounds", "traced_ops", "ops_per_s_lo", "ops_per_s_hi",
	"ratio", "ratio_lo", "ratio_hi", "observer", "observer_lo", "observer_hi",
)

// OffLabelColumn names the CSV column of an off-CPU label: each of
// results.OffLabels is one, offcpu_<label>_ns.
func OffLabelColumn(label string) string {
	return "offcpu_" + strings.ReplaceAll(label, "/", "_") + "_ns"
}

// RowsColumn, the last column, holds on every row the number of data rows
// in the file: a file cut at a line boundary still parses as CSV, and only
// a count written ahead tells that rows are missing.
const RowsColumn = "rows"

func syscallHeader() []string {
	h := append([]string(nil), SyscallColumns...)
	for _, l := range results.OffLabels {
		h = append(h, OffLabelColumn(l))
	}
	return append(h, RowsColumn)
}

// WriteSyscallCSV writes the breakdown of every traced arm.
func WriteSyscallCSV(w io.Writer, run *results.Run, sums []*results.Summary) error {
	var rows [][]string
	for _, s := range sums {
		if s.Traced == nil {
			continue
		}
		recs := map[string]results.ClassRecord{}
		for _, r := range s.Traced.Records {
			recs[r.Class+"\x00"+r.Stage] = r
		}
		classes := s.Classes
		if len(classes) == 0 {
			// An arm with no syscall at all (BytesIO) still gets a row,
			// with an empty syscall column, so the file lists every arm.
			classes = []results.ClassSummary{{}}
		}
		for _, c := range classes {
			r := recs[c.Class+"\x00"+c.Stage]
			row := append(s.Cells(), itoa(int64(s.Ops)),
				ftoa(s.OpsPerS.Center), ftoa(s.TracedOpsPerS), nsInt(s.WallNsPerOp), userNs(s.UserNsPerOp),
				c.Class, c.Stage, utoa(r.Calls), strconv.FormatFloat(c.CallsPerOp, 'f', -1, 64), utoa(r.Errors),
				utoa(r.TotalNs), nsInt(c.NsPerOp), utoa(r.OffCPUNs), nsInt(c.OffNsPerOp),
				utoa(c.P50), utoa(c.P95), utoa(c.P99), run.Meta.Backend, run.Meta.KernelRelease, utoa(r.Bytes),
				itoa(int64(s.RoundCount)), itoa(int64(s.Traced.Ops)),
			)
			row = append(row, estimateCells(s.OpsPerS)[1:]...)
			row = append(row, estimateCells(s.Ratio)...)
			row = append(row, estimateCells(s.Observer)...)
			for _, l := range results.OffLabels {
				row = append(row, utoa(r.OffNs[l]))
			}
			rows = append(rows, row)
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(syscallHeader()); err != nil {
		return err
	}
	n := itoa(int64(len(rows)))
	for _, row := range rows {
		if err := cw.Write(append(row, n)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
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
func ftoa(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// nsInt renders a per-op time as integer ns: finer is below the clock's
// and the probe's resolution.
func nsInt(v float64) string { return strconv.FormatInt(int64(math.Round(v)), 10) }
