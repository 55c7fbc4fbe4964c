package render

import (
	"encoding/csv"
	"io"

	"github.com/tmpprobe/tmpprobe/results"
)

// WriteSyscallCSV writes the breakdown of every traced arm.
func WriteSyscallCSV(w io.Writer, run *results.Run, sums []*results.Summary) error {
	var rows []results.SyscallRow
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
			rows = append(rows, results.SyscallRow{Summary: s, Run: run, Class: c, Record: recs[c.Class+"\x00"+c.Stage]})
		}
		rows = append(rows, results.CodeRows(s, run)...)
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(results.SyscallHeader()); err != nil {
		return err
	}
	for _, row := range rows {
		row.Rows = len(rows)
		if err := cw.Write(results.Cells(results.SyscallTable, row)); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
