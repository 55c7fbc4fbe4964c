package render

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"github.com/tmpprobe/tmpprobe/results"
)

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
			row = append(row, nsInt(s.KernelNsPerOp), nsInt(s.RunQueueNsPerOp))
			for _, l := range results.OffLabels {
				row = append(row, utoa(r.OffNs[l]))
			}
			rows = append(rows, row)
		}
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(results.SyscallHeader()); err != nil {
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
