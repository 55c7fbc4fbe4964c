package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// writeHistograms prints each syscall class's latency distribution of the
// traced batches as log2 buckets, the way biolatency and bpftrace do, for
// the arms that have them. The kernel keeps four sub-buckets per power of
// two; they are merged here.
func writeHistograms(w io.Writer, d *report.Document) {
	for _, a := range d.Arms {
		if a.Hist == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s\n", a.Hist.Title)
		for _, r := range a.Hist.Classes {
			fmt.Fprintf(w, "\n  %s (%d calls)\n", r.Class, r.Calls)
			WriteLog2(w, r.Hist)
		}
	}
}

// WriteLog2 prints "low -> high : count |****|" rows in ns.
func WriteLog2(w io.Writer, h []results.HistBucket) {
	rows := map[int]uint64{} // log2 bucket → count
	lo, hi := 64, -1
	for _, b := range h {
		l := 0
		for v := results.HistLow(b.Slot); v > 1; v >>= 1 {
			l++
		}
		rows[l] += b.Count
		lo, hi = min(lo, l), max(hi, l)
	}
	var peak uint64
	for _, c := range rows {
		peak = max(peak, c)
	}
	fmt.Fprintf(w, "  %24s : %-8s %s\n", "ns", "count", "distribution")
	for l := lo; l <= hi; l++ {
		low, high := uint64(1)<<l, uint64(1)<<(l+1)-1
		if l == 0 {
			low = 0
		}
		bar := 0
		if peak > 0 {
			bar = int(rows[l] * 40 / peak)
		}
		fmt.Fprintf(w, "  %10d -> %-10d : %-8d |%-40s|\n", low, high, rows[l], strings.Repeat("*", bar))
	}
}
