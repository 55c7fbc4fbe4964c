package results

import (
	"math"
	"strings"
	"testing"
)

// The median's 95% interval comes from order statistics: for 10 samples
// the 2nd and 9th smallest (P = 1 − 2·11/1024 = 97.9%; the 3rd and 8th
// give only 89%), for 6 the extremes (96.9%), and 5 give none.
func TestMedianInterval(t *testing.T) {
	e := Median([]float64{7, 1, 10, 3, 5, 2, 9, 4, 8, 6})
	if e.Center != 5.5 || e.Lo != 2 || e.Hi != 9 || e.N != 10 {
		t.Errorf("median of 1..10 = %+v, want 5.5 [2, 9]", e)
	}
	if e := Median([]float64{3, 1, 2, 6, 5, 4}); e.Lo != 1 || e.Hi != 6 || !e.Bounded() {
		t.Errorf("median of 1..6 = %+v, want [1, 6]", e)
	}
	if e := Median([]float64{1, 2, 3, 4, 5}); e.Bounded() || e.Center != 3 {
		t.Errorf("median of 5 samples = %+v, want 3 with no interval", e)
	}
	if got := rateCell(Median([]float64{1, 2, 3, 4, 5})); got != "3 ±∞" {
		t.Errorf("rate cell without an interval = %q", got)
	}
	if got := ratioCell(Estimate{Center: 0.61, Lo: 0.594, Hi: 0.633, N: 10}); got != "0.61 [0.59–0.63]" {
		t.Errorf("ratio cell = %q", got)
	}
	if got := rateCell(Estimate{Center: 1000, Lo: 960, Hi: 1030, N: 10}); got != "1000 ±4%" {
		t.Errorf("rate cell = %q, want the larger side, 4%%", got)
	}
}

// armRounds is an arm whose round r ran untraced at ops[r] ops/s (1000
// ops a batch), and traced at 90% of that.
func armRounds(name string, opsPerS []float64) ArmResult {
	a := ArmResult{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400, Ops: 1000}
	for i, v := range opsPerS {
		wall := int64(math.Round(1000 / v * 1e9))
		a.Batches = append(a.Batches, Batch{Round: i + 1, Ops: 1000, WallNs: wall},
			Batch{Round: i + 1, Ops: 1000, Traced: true, WallNs: wall * 10 / 9})
	}
	return a
}

// A ratio is taken per round and then summarized: the machine's drift
// from round to round (here ×6) cancels, where the two arms' own
// intervals overlap widely.
func TestPairedRatio(t *testing.T) {
	base := []float64{1000, 2000, 3000, 4000, 5000, 6000}
	half := []float64{500, 1000, 1500, 2000, 2500, 3000}
	run := &Run{Protocol: Protocol{Name: ProtocolRounds}, Arms: []ArmResult{armRounds("TemporaryFile", base), armRounds("NamedTemporaryFile", half)}}
	sums := SummarizeAll(run, fixtureLabs.Baselines)
	r := sums[1].Ratio
	if math.Abs(r.Center-0.5) > 1e-6 || math.Abs(r.Lo-0.5) > 1e-6 || math.Abs(r.Hi-0.5) > 1e-6 || r.N != 6 {
		t.Errorf("paired ratio %+v, want 0.5 [0.5–0.5] over 6 rounds", r)
	}
	if o := sums[0].OpsPerS; math.Abs(o.Lo-1000) > 1e-3 || math.Abs(o.Hi-6000) > 1e-3 {
		t.Errorf("baseline ops/s %+v: want the interval of the drifting rounds, [1000, 6000]", o)
	}
	if o := sums[1].Observer; math.Abs(o.Center-0.9) > 1e-3 {
		t.Errorf("traced ÷ untraced %+v, want 0.9", o)
	}
	if b := sums[0].Ratio; b.Center != 1 || b.Lo != 1 || b.Hi != 1 {
		t.Errorf("the baseline's own ratio %+v, want 1", b)
	}
	// The seed protocol takes the labs' ratio of medians, which has no
	// interval.
	run.Protocol.Name = ProtocolSeed
	seed := SummarizeAll(run, fixtureLabs.Baselines)[1].Ratio
	if math.Abs(seed.Center-0.5) > 1e-6 || seed.Bounded() {
		t.Errorf("seed ratio %+v, want 0.5 without an interval", seed)
	}
}

// A term is noise when the paired per-round differences cannot tell it
// from zero; a syscall one arm never makes is never noise.
func TestTermNoise(t *testing.T) {
	mk := func(name string, closeNs []uint64, unlinkNs uint64) ArmResult {
		a := ArmResult{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400, Ops: 10}
		for i, c := range closeNs {
			recs := []ClassRecord{{Class: "close", Calls: 10, TotalNs: c * 10}}
			if unlinkNs > 0 {
				recs = append(recs, ClassRecord{Class: "unlink", Calls: 10, TotalNs: unlinkNs * 10})
			}
			a.Batches = append(a.Batches, Batch{Round: i + 1, Ops: 10, WallNs: 100_000},
				Batch{Round: i + 1, Ops: 10, Traced: true, WallNs: 100_000, Records: recs})
		}
		return a
	}
	// close: A − B alternates ±500 ns around 0: noise. unlink: A only.
	a := mk("NamedTemporaryFile", []uint64{2500, 1500, 2500, 1500, 2500, 1500}, 100)
	b := mk("TemporaryFile", []uint64{2000, 2000, 2000, 2000, 2000, 2000}, 0)
	sums := SummarizeAll(&Run{Protocol: Protocol{Name: ProtocolRounds}, Arms: []ArmResult{b, a}}, fixtureLabs.Baselines)
	g := NewGap(sums[1], sums[0])
	noise := map[string]bool{}
	for _, term := range g.Terms {
		noise[term.Name] = term.Noise
	}
	if !noise["close"] || noise["unlink"] {
		t.Errorf("noise %v: want close within noise, unlink (made by one arm only) never", noise)
	}
	if s := g.Sentence(); !strings.Contains(s, "unlink +0.10 (new syscall, 1/op)") {
		t.Errorf("sentence %q", s)
	}
	// A close 500 ns slower in every round is no longer noise.
	a = mk("NamedTemporaryFile", []uint64{2500, 2500, 2500, 2500, 2500, 2500}, 100)
	sums = SummarizeAll(&Run{Protocol: Protocol{Name: ProtocolRounds}, Arms: []ArmResult{b, a}}, fixtureLabs.Baselines)
	for _, term := range NewGap(sums[1], sums[0]).Terms {
		if term.Name == "close" && term.Noise {
			t.Error("a close 500 ns slower in all 6 rounds was called noise")
		}
	}
}

// A gap whose untraced ratio points the other way says why; one within
// noise of 1 says so.
func TestGapSentenceOneSource(t *testing.T) {
	mk := func(name string, untraced, tracedWall []int64, syscalls uint64) ArmResult {
		a := ArmResult{Lab: "buffers", Arm: name, Runtime: "python", Dir: "/d", SizeBytes: 256 << 10, Ops: 100}
		for i := range untraced {
			a.Batches = append(a.Batches, Batch{Round: i + 1, Ops: 100, WallNs: untraced[i]},
				Batch{Round: i + 1, Ops: 100, Traced: true, WallNs: tracedWall[i],
					Records: []ClassRecord{{Class: "write", Calls: syscalls * 100, TotalNs: syscalls * 100 * 900}}})
		}
		return a
	}
	six := func(v int64) []int64 { return []int64{v, v + 1, v + 2, v + 3, v + 4, v + 5} }
	bytesIO := mk("BytesIO", six(10_000_000), six(10_500_000), 0)
	// Spooled: faster untraced, slower traced (it makes 20 syscalls a round).
	spooled := mk("SpooledTemporaryFile", six(9_000_000), six(12_000_000), 20)
	sums := SummarizeAll(&Run{Protocol: Protocol{Name: ProtocolRounds}, Arms: []ArmResult{bytesIO, spooled}}, fixtureLabs.Baselines)
	s := NewGap(sums[1], sums[0]).Sentence()
	if !strings.Contains(s, "the other way: tracing costs SpooledTemporaryFile more, at 20 syscalls/round to 0") {
		t.Errorf("sentence %q: want the opposite signs explained", s)
	}
	// Untraced within noise of each other.
	spooled = mk("SpooledTemporaryFile", []int64{9_000_000, 11_000_000, 9_000_000, 11_000_000, 9_000_000, 11_000_000}, six(12_000_000), 20)
	sums = SummarizeAll(&Run{Protocol: Protocol{Name: ProtocolRounds}, Arms: []ArmResult{bytesIO, spooled}}, fixtureLabs.Baselines)
	if s := NewGap(sums[1], sums[0]).Sentence(); !strings.Contains(s, "untraced no different") {
		t.Errorf("sentence %q: want untraced no different", s)
	}
}
