package results

// RegionClass is the pseudo class under which the probe counts a marked
// region's entries (calls) and the time spent inside it (total_ns).
const RegionClass = "region"

// MergeRecords adds recs into into, matching by class and stage; counts,
// times, off-CPU labels and histograms all add.
func MergeRecords(into, recs []ClassRecord) []ClassRecord {
	idx := map[string]int{}
	for i, r := range into {
		idx[r.Class+"\x00"+r.Stage] = i
	}
	for _, r := range recs {
		k := r.Class + "\x00" + r.Stage
		i, ok := idx[k]
		if !ok {
			into = append(into, ClassRecord{Class: r.Class, Stage: r.Stage})
			i = len(into) - 1
			idx[k] = i
		}
		m := &into[i]
		m.Calls += r.Calls
		m.Errors += r.Errors
		m.TotalNs += r.TotalNs
		m.OffCPUNs += r.OffCPUNs
		m.Bytes += r.Bytes
		for l, v := range r.OffNs {
			if m.OffNs == nil {
				m.OffNs = map[string]uint64{}
			}
			m.OffNs[l] += v
		}
		m.Hist = mergeHist(m.Hist, r.Hist)
	}
	return into
}

func mergeHist(a, b []HistBucket) []HistBucket {
	if len(b) == 0 {
		return a
	}
	counts := map[int]uint64{}
	for _, h := range a {
		counts[h.Slot] += h.Count
	}
	for _, h := range b {
		counts[h.Slot] += h.Count
	}
	out := make([]HistBucket, 0, len(counts))
	for s := 0; s < HistSlots; s++ {
		if c, ok := counts[s]; ok {
			out = append(out, HistBucket{Slot: s, Count: c})
		}
	}
	return out
}
