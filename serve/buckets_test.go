//go:build linux

package serve

import (
	"math"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// Every bucket bound falls between two of the probe's slots: for each
// slot, a call counted in it is in a bucket exactly when every value the
// slot holds is at or below the bound, so no bucket's count is a guess.
func TestBucketsEndWhereSlotsEnd(t *testing.T) {
	for slot := range results.HistSlots {
		buckets, count := classicBuckets([]results.HistBucket{{Slot: slot, Count: 1}})
		if count != 1 {
			t.Fatalf("slot %d: count %d", slot, count)
		}
		lo, hi := results.HistLow(slot), results.HistHigh(slot)-1 // the slot's values, in ns
		for _, b := range bucketBounds {
			bound := uint64(math.Round(b * 1e9))
			switch {
			case hi <= bound && slot < results.HistSlots-1 && buckets[b] != 1:
				t.Errorf("slot %d [%d, %d] ns: bucket le=%g holds %d, want 1", slot, lo, hi, b, buckets[b])
			case lo > bound && buckets[b] != 0:
				t.Errorf("slot %d [%d, %d] ns: bucket le=%g holds %d, want 0", slot, lo, hi, b, buckets[b])
			case lo <= bound && bound < hi:
				t.Errorf("slot %d [%d, %d] ns straddles the bound %d ns", slot, lo, hi, bound)
			}
		}
	}
}

// A label's values are kept first come up to the cap, the rest folded
// into "other", counted; an admitted value stays admitted.
func TestLabelCap(t *testing.T) {
	c := newLabelCap(2)
	for _, tc := range []struct{ in, want string }{
		{"read", "read"}, {"write", "write"}, {"fsync", otherValue}, {"read", "read"}, {"openat", otherValue}, {"fsync", otherValue},
	} {
		if got := c.value(tc.in); got != tc.want {
			t.Errorf("value(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if len(c.folded) != 2 {
		t.Errorf("%d values folded, want 2 (fsync, openat)", len(c.folded))
	}
}
