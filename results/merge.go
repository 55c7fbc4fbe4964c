package results

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
			// Quantiles of one record stay; of two they cannot be added.
			into = append(into, ClassRecord{Class: r.Class, Stage: r.Stage, Quantiles: r.Quantiles})
			i = len(into) - 1
			idx[k] = i
		} else {
			into[i].Quantiles = nil
		}
		into[i].Add(r)
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

// SubtractRecords is cur − prev by class and stage, for successive
// snapshots of running totals; rows that did not change are dropped.
func SubtractRecords(cur, prev []ClassRecord) []ClassRecord {
	before := map[string]ClassRecord{}
	for _, r := range prev {
		before[r.Class+"\x00"+r.Stage] = r
	}
	var out []ClassRecord
	for _, r := range cur {
		d := r.Sub(before[r.Class+"\x00"+r.Stage])
		if d.Calls > 0 || d.TotalNs > 0 || d.OffCPUNs > 0 {
			out = append(out, d)
		}
	}
	return out
}
