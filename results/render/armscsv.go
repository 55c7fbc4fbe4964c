package render

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
)

// WriteArmsCSV writes one row per arm result, failed ones included.
func WriteArmsCSV(w io.Writer, sums []*results.Summary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(results.ArmColumns); err != nil {
		return err
	}
	for _, s := range sums {
		var untraced, traced, setup int64
		for i := range s.Batches {
			switch b := &s.Batches[i]; {
			case !b.Measured():
				setup++
			case b.Traced:
				traced++
			default:
				untraced++
			}
		}
		var off float64
		for _, c := range s.Classes {
			if c.IsSyscall() {
				off += c.OffNsPerOp
			}
		}
		row := append(s.Cells(), itoa(int64(s.Ops)),
			itoa(int64(s.RoundCount)), itoa(untraced), itoa(traced), itoa(setup))
		row = append(row, estimateCells(s.OpsPerS)...)
		row = append(row, estimateCells(s.MBPerS())...)
		row = append(row, estimateCells(s.Ratio)...)
		row = append(row, figureCell(s.TracedOpsPerS))
		row = append(row, estimateCells(s.Observer)...)
		wall := estimateCells(s.TracedWall)
		row = append(row, nsInt(s.WallNsPerOp), nsInt(s.KernelNsPerOp), userNs(s.UserNsPerOp), nsInt(off),
			nsInt(s.RunQueueNsPerOp), wall[1], wall[2], errtext.FirstLine(s.Error))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// estimateCells are the median and the interval's bounds, each empty when
// unknown: a 0 would read as a real (catastrophic) figure in a spreadsheet.
func estimateCells(e results.Estimate) []string {
	if !e.Known() {
		return []string{"", "", ""}
	}
	if !e.Bounded() {
		return []string{ftoa(e.Center), "", ""}
	}
	return []string{ftoa(e.Center), ftoa(e.Lo), ftoa(e.Hi)}
}

func figureCell(v float64) string {
	if v == 0 {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
