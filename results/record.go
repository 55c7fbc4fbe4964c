package results

import "sort"

// ClassRecord is what the kernel side aggregated for one syscall class (and
// optionally one stage inside it) during one batch. All times are integer ns.
type ClassRecord struct {
	Class    string            `json:"class"`
	Stage    string            `json:"stage,omitempty"`
	Calls    uint64            `json:"calls"`
	Errors   uint64            `json:"errors,omitempty"`
	TotalNs  uint64            `json:"total_ns"`
	OffCPUNs uint64            `json:"offcpu_ns"`
	Bytes    uint64            `json:"bytes,omitempty"`
	OffNs    map[string]uint64 `json:"offcpu_by_label_ns,omitempty"`
	Hist     []HistBucket      `json:"hist,omitempty"`
	// Quantiles are p50, p95 and p99 as a syscalls.csv carries them, for
	// a record rebuilt from one: it has no histogram to take them from.
	Quantiles []uint64 `json:"-"`
}

// Add adds o's counts, times, off-CPU time by label and histogram into r:
// the one place a record's sum is written (per-CPU slots in probe, batches
// and rounds in MergeRecords). Class and Stage are the caller's match;
// Quantiles do not add (MergeRecords drops them).
func (r *ClassRecord) Add(o ClassRecord) {
	r.Calls += o.Calls
	r.Errors += o.Errors
	r.TotalNs += o.TotalNs
	r.OffCPUNs += o.OffCPUNs
	r.Bytes += o.Bytes
	for l, v := range o.OffNs {
		if r.OffNs == nil {
			r.OffNs = map[string]uint64{}
		}
		r.OffNs[l] += v
	}
	r.Hist = mergeHist(r.Hist, o.Hist)
}

// Sub is r − prev for running totals (prev an earlier snapshot of the same
// class and stage): Add undone. An off-CPU label or histogram slot that
// did not grow is left out.
func (r ClassRecord) Sub(prev ClassRecord) ClassRecord {
	d := ClassRecord{Class: r.Class, Stage: r.Stage, Calls: r.Calls - prev.Calls, Errors: r.Errors - prev.Errors,
		TotalNs: r.TotalNs - prev.TotalNs, OffCPUNs: r.OffCPUNs - prev.OffCPUNs, Bytes: r.Bytes - prev.Bytes}
	for l, v := range r.OffNs {
		if v > prev.OffNs[l] {
			if d.OffNs == nil {
				d.OffNs = map[string]uint64{}
			}
			d.OffNs[l] = v - prev.OffNs[l]
		}
	}
	was := map[int]uint64{}
	for _, h := range prev.Hist {
		was[h.Slot] = h.Count
	}
	for _, h := range r.Hist {
		if h.Count > was[h.Slot] {
			d.Hist = append(d.Hist, HistBucket{Slot: h.Slot, Count: h.Count - was[h.Slot]})
		}
	}
	return d
}

// percentiles are the record's p50, p95 and p99 of single calls.
func (r *ClassRecord) percentiles() (p50, p95, p99 uint64) {
	if len(r.Hist) == 0 && len(r.Quantiles) == 3 {
		return r.Quantiles[0], r.Quantiles[1], r.Quantiles[2]
	}
	return Percentile(r.Hist, 0.50), Percentile(r.Hist, 0.95), Percentile(r.Hist, 0.99)
}

// HistBucket is one non-empty slot of a latency histogram.
type HistBucket struct {
	Slot  int    `json:"slot"`
	Count uint64 `json:"count"`
}

// Histogram geometry, shared with bpf/tmpprobe.h: log2 buckets split in
// four sub-buckets, slot = v for v < 4, else 4*(log2(v)-1) + next two bits.
const (
	HistSlots   = 192
	histSubBits = 2
)

// HistLow is the smallest ns value that lands in slot.
func HistLow(slot int) uint64 {
	if slot < 4 {
		return uint64(slot)
	}
	l := slot/4 + 1
	sub := uint64(slot % 4)
	return (4 + sub) << (l - histSubBits)
}

// HistHigh is one past the largest ns value that lands in slot.
func HistHigh(slot int) uint64 { return HistLow(slot + 1) }

// HistSlot is the slot a value lands in (the same arithmetic as the BPF side).
func HistSlot(v uint64) int {
	if v < 4 {
		return int(v)
	}
	l := 63
	for v>>uint(l) == 0 {
		l--
	}
	slot := 4*(l-1) + int((v>>uint(l-histSubBits))&3)
	if slot >= HistSlots {
		return HistSlots - 1
	}
	return slot
}

// Percentile estimates the q-quantile (0 < q ≤ 1) from a histogram, taking
// the midpoint of the slot it falls in; the error is bounded by the slot
// width (±12.5%).
func Percentile(h []HistBucket, q float64) uint64 {
	var total uint64
	for _, b := range h {
		total += b.Count
	}
	if total == 0 {
		return 0
	}
	sorted := append([]HistBucket(nil), h...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Slot < sorted[j].Slot })
	rank := uint64(q*float64(total) + 0.5)
	if rank < 1 {
		rank = 1
	}
	var seen uint64
	for _, b := range sorted {
		seen += b.Count
		if seen >= rank {
			lo, hi := HistLow(b.Slot), HistHigh(b.Slot)
			return lo + (hi-lo)/2
		}
	}
	last := sorted[len(sorted)-1].Slot
	return HistLow(last)
}
