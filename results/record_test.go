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

// Decompose: terms add up to the gap exactly; a syscall only one arm makes
// is "new"; openat variants pair up.
func TestDecompose(t *testing.T) {
	arm := func(name string, wall int64, recs ...ClassRecord) *ArmResult {
		return &ArmResult{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400, Ops: 10,
			Batches: []Batch{{Round: 1, Ops: 10, Traced: true, WallNs: wall, Records: recs}}}
	}
	named := Summarize(arm("NamedTemporaryFile", 100_000,
		ClassRecord{Class: "openat[create]", Calls: 10, TotalNs: 30_000},
		ClassRecord{Class: "unlink", Calls: 10, TotalNs: 20_000},
		ClassRecord{Class: "close", Calls: 10, TotalNs: 5_000}), ProtocolRounds)
	temp := Summarize(arm("TemporaryFile", 60_000,
		ClassRecord{Class: "openat[tmpfile]", Calls: 10, TotalNs: 25_000},
		ClassRecord{Class: "close", Calls: 10, TotalNs: 15_000}), ProtocolRounds)
	g := NewGap(named, temp)
	var sum float64
	terms := map[string]Term{}
	for _, term := range g.Terms {
		sum += float64(term.Delta)
		terms[term.Name] = term
	}
	if g.DeltaNs != 4000 || sum != g.DeltaNs {
		t.Fatalf("gap %v, terms sum %v, want 4000 both", g.DeltaNs, sum)
	}
	if u := terms["unlink"]; u.Delta != 2000 || g.mechanism(u) != "new syscall, 1/op" {
		t.Errorf("unlink term = %+v (%s)", u, g.mechanism(u))
	}
	if o, ok := terms["openat[create] vs openat[tmpfile]"]; !ok || o.Delta != 500 {
		t.Errorf("openat pair = %+v (terms %v)", o, terms)
	}
	if c := terms["close"]; c.Delta != -1000 {
		t.Errorf("close term = %+v", c)
	}
	if u := terms["user space"]; u.Delta != 2500 {
		t.Errorf("user term = %+v", u)
	}
	// The same engine, one arm in two runs: the openat variants of the old
	// run and the new pair up the same way.
	c := Decompose(temp, named, false)
	if len(c.Terms) != len(g.Terms) || c.DeltaNs != g.DeltaNs {
		t.Errorf("run-to-run decomposition %+v, want the gap's terms", c.Terms)
	}
	if g.Terms[0].Name != "user space" {
		t.Errorf("largest term first: got %s", g.Terms[0].Name)
	}
}
