package results

import "testing"

// The slot arithmetic must match bpf/tmpprobe.h: every value lands in a
// slot whose [low, high) range contains it, and slots tile the line.
func TestHistSlots(t *testing.T) {
	for _, v := range []uint64{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 100, 1000, 4095, 4096, 123456789, 1 << 40} {
		s := HistSlot(v)
		if lo, hi := HistLow(s), HistHigh(s); v < lo || v >= hi {
			t.Errorf("%d in slot %d = [%d, %d)", v, s, lo, hi)
		}
	}
	for s := 0; s < HistSlots-1; s++ {
		if HistHigh(s) != HistLow(s+1) || HistLow(s) >= HistHigh(s) {
			t.Errorf("slot %d = [%d, %d) does not tile", s, HistLow(s), HistHigh(s))
		}
	}
	if HistSlot(1<<62) != HistSlots-1 {
		t.Errorf("huge values must clamp to the last slot")
	}
}

func TestPercentile(t *testing.T) {
	// 90 calls of ~1000 ns and 10 of ~1 ms.
	h := []HistBucket{{Slot: HistSlot(1000), Count: 90}, {Slot: HistSlot(1_000_000), Count: 10}}
	for _, c := range []struct {
		q      float64
		lo, hi uint64
	}{
		{0.5, 896, 1024}, {0.9, 896, 1024}, {0.95, 917504, 1048576}, {0.99, 917504, 1048576},
	} {
		if p := Percentile(h, c.q); p < c.lo || p >= c.hi {
			t.Errorf("p%.0f = %d, want in [%d, %d)", 100*c.q, p, c.lo, c.hi)
		}
	}
	if Percentile(nil, 0.5) != 0 {
		t.Error("empty histogram must give 0")
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 400: "400", 1024: "1K", 65536: "64K", 1 << 20: "1M", 1500: "1500"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
