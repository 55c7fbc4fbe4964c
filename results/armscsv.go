package results

import (
	"encoding/csv"
	"io"
	"strconv"
)

// ArmColumns are the columns of arms.csv, one row an arm × runtime × dir ×
// parameter: the headline figures a spreadsheet or a CI job wants.
var ArmColumns = []string{
	"lab", "arm", "runtime", "dir", "payload_bytes", "size_bytes", "ops",
	"batches", "traced_batches", "ops_per_s", "ops_per_s_min", "ops_per_s_max",
	"mb_per_s", "ratio", "traced_ops_per_s", "observer",
	"wall_ns_per_op", "kernel_ns_per_op", "user_ns_per_op", "offcpu_ns_per_op",
	"error",
}

// WriteArmsCSV writes one row per arm result, failed ones included.
func WriteArmsCSV(w io.Writer, sums []*Summary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(ArmColumns); err != nil {
		return err
	}
	for _, s := range sums {
		traced := 0
		for _, b := range s.Batches {
			if b.Traced {
				traced++
			}
		}
		var off float64
		for _, c := range s.Classes {
			if c.IsSyscall() {
				off += c.OffNsPerOp
			}
		}
		row := []string{
			s.Lab, s.Arm, s.Runtime, s.Dir, itoa(int64(s.PayloadBytes)), itoa(int64(s.SizeBytes)), itoa(int64(s.Ops)),
			itoa(int64(len(s.Batches))), itoa(int64(traced)), ftoa(s.OpsPerS), ftoa(s.OpsMin), ftoa(s.OpsMax),
			ftoa(s.MBPerS()), ratioCell(s.Ratio), ftoa(s.TracedOpsPerS), ratioCell(s.Observer),
			nsInt(s.WallNsPerOp), nsInt(s.KernelNsPerOp), nsInt(s.UserNsPerOp), nsInt(off),
			firstLine(s.Error),
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ratioCell leaves a missing ratio empty rather than 0, which reads as a
// real (catastrophic) ratio in a spreadsheet.
func ratioCell(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}
