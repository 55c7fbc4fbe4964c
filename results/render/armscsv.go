package render

import (
	"encoding/csv"
	"io"

	"github.com/tmpprobe/tmpprobe/results"
)

// WriteArmsCSV writes one row per arm result, failed ones included.
func WriteArmsCSV(w io.Writer, sums []*results.Summary) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(results.Names(results.ArmTable)); err != nil {
		return err
	}
	for _, s := range sums {
		if err := cw.Write(results.Cells(results.ArmTable, results.NewArmRow(s))); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
