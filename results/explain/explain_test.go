package explain_test

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// A term is noise when the paired per-round differences cannot tell it
// from zero; a syscall one arm never makes is never noise.
func TestTermNoise(t *testing.T) {
	mk := func(name string, closeNs []uint64, unlinkNs uint64) results.ArmResult {
		a := results.ArmResult{CaseID: results.CaseID{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400}, Ops: 10}
		for i, c := range closeNs {
			recs := []results.ClassRecord{{Class: "close", Calls: 10, TotalNs: c * 10}}
			if unlinkNs > 0 {
				recs = append(recs, results.ClassRecord{Class: "unlink", Calls: 10, TotalNs: unlinkNs * 10})
			}
			a.Batches = append(a.Batches, results.Batch{Round: i + 1, Ops: 10, WallNs: 100_000},
				results.Batch{Round: i + 1, Ops: 10, Traced: true, WallNs: 100_000, Records: recs})
		}
		return a
	}
	// close: A − B alternates ±500 ns around 0: noise. unlink: A only.
	a := mk("NamedTemporaryFile", []uint64{2500, 1500, 2500, 1500, 2500, 1500}, 100)
	b := mk("TemporaryFile", []uint64{2000, 2000, 2000, 2000, 2000, 2000}, 0)
	sums := results.SummarizeAll(&results.Run{Protocol: results.Protocol{Name: results.ProtocolRounds}, Arms: []results.ArmResult{b, a}}, resultstest.Labs.Baselines)
	g := explain.NewGap(sums[1], sums[0])
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
	sums = results.SummarizeAll(&results.Run{Protocol: results.Protocol{Name: results.ProtocolRounds}, Arms: []results.ArmResult{b, a}}, resultstest.Labs.Baselines)
	for _, term := range explain.NewGap(sums[1], sums[0]).Terms {
		if term.Name == "close" && term.Noise {
			t.Error("a close 500 ns slower in all 6 rounds was called noise")
		}
	}
}

// A gap whose untraced ratio points the other way says why; one within
// noise of 1 says so.
func TestGapSentenceOneSource(t *testing.T) {
	mk := func(name string, untraced, tracedWall []int64, syscalls uint64) results.ArmResult {
		a := results.ArmResult{CaseID: results.CaseID{Lab: "buffers", Arm: name, Runtime: "python", Dir: "/d", SizeBytes: 256 << 10}, Ops: 100}
		for i := range untraced {
			a.Batches = append(a.Batches, results.Batch{Round: i + 1, Ops: 100, WallNs: untraced[i]},
				results.Batch{Round: i + 1, Ops: 100, Traced: true, WallNs: tracedWall[i],
					Records: []results.ClassRecord{{Class: "write", Calls: syscalls * 100, TotalNs: syscalls * 100 * 900}}})
		}
		return a
	}
	six := func(v int64) []int64 { return []int64{v, v + 1, v + 2, v + 3, v + 4, v + 5} }
	bytesIO := mk("BytesIO", six(10_000_000), six(10_500_000), 0)
	// Spooled: faster untraced, slower traced (it makes 20 syscalls a round).
	spooled := mk("SpooledTemporaryFile", six(9_000_000), six(12_000_000), 20)
	sums := results.SummarizeAll(&results.Run{Protocol: results.Protocol{Name: results.ProtocolRounds}, Arms: []results.ArmResult{bytesIO, spooled}}, resultstest.Labs.Baselines)
	s := explain.NewGap(sums[1], sums[0]).Sentence()
	if !strings.Contains(s, "the other way: tracing costs SpooledTemporaryFile more, at 20 syscalls/round to 0") {
		t.Errorf("sentence %q: want the opposite signs explained", s)
	}
	// Untraced within noise of each other.
	spooled = mk("SpooledTemporaryFile", []int64{9_000_000, 11_000_000, 9_000_000, 11_000_000, 9_000_000, 11_000_000}, six(12_000_000), 20)
	sums = results.SummarizeAll(&results.Run{Protocol: results.Protocol{Name: results.ProtocolRounds}, Arms: []results.ArmResult{bytesIO, spooled}}, resultstest.Labs.Baselines)
	if s := explain.NewGap(sums[1], sums[0]).Sentence(); !strings.HasPrefix(s, "SpooledTemporaryFile: no different from BytesIO's throughput (") {
		t.Errorf("sentence %q: want no different", s)
	}
}

// A sentence keeps one unit: a trace whose time reads in seconds says its
// inode allocation and device time in seconds too, not "992452 µs" (#21).
func TestSentenceKeepsOneUnit(t *testing.T) {
	a := &results.ArmResult{
		CaseID: results.CaseID{Lab: results.LabTrace, Arm: "app", Runtime: "-"},
		Ops:    1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Traced: true,
			WallNs: 1_200_000_000, Records: []results.ClassRecord{
				{Class: results.ClassOpenatCreate, Calls: 1000, TotalNs: 1_010_000_000},
				{Class: results.ClassOpenatCreate, Stage: results.StageExt4NewInode, Calls: 1000, TotalNs: 992_452_000},
			}}},
	}
	s := results.Summarize(a, "")
	got := explain.ArmSentence(s, s.TimeScale())
	if strings.Contains(got, "µs") || !strings.Contains(got, "ext4 inode allocation 0.992 s") {
		t.Errorf("%s", got)
	}
}

// A gap whose throughputs are no different and whose sides make the same
// syscalls names no term, even one the rounds tell apart (one of dozens
// tested would, by chance): an A/A says "no different" and nothing else
// (#31). A syscall one side makes in most ops keeps its terms named.
func TestQuietGapNamesNoTerm(t *testing.T) {
	mk := func(name string, closeNs []uint64, unlink bool) results.ArmResult {
		a := results.ArmResult{CaseID: results.CaseID{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400}, Ops: 10}
		for i, c := range closeNs {
			recs := []results.ClassRecord{{Class: "close", Calls: 10, TotalNs: c * 10}}
			if unlink {
				recs = append(recs, results.ClassRecord{Class: "unlink", Calls: 10, TotalNs: 1000})
			}
			a.Batches = append(a.Batches, results.Batch{Round: i + 1, Ops: 10, WallNs: 100_000 + int64(i)},
				results.Batch{Round: i + 1, Ops: 10, Traced: true, WallNs: 100_000, Records: recs})
		}
		return a
	}
	six := func(v uint64) []uint64 { return []uint64{v, v, v, v, v, v} }
	for _, c := range []struct {
		unlink bool
		quiet  bool
	}{{false, true}, {true, false}} {
		// close 500 ns slower in every round: outside noise on its own.
		b, a := mk("TemporaryFile", six(2000), false), mk("NamedTemporaryFile", six(2500), c.unlink)
		sums := results.SummarizeAll(&results.Run{Protocol: results.Protocol{Name: results.ProtocolRounds}, Arms: []results.ArmResult{b, a}}, resultstest.Labs.Baselines)
		g := explain.NewGap(sums[1], sums[0])
		want := "NamedTemporaryFile: no different from TemporaryFile's throughput (" + results.TimesText(g.Untraced) + ")."
		if g.Quiet() != c.quiet || (g.Short() == want) != c.quiet || (g.Sentence() == want) != c.quiet {
			t.Errorf("unlink %v: quiet %v, short %q", c.unlink, g.Quiet(), g.Short())
		}
	}
}

// Against a negative gap a share says what it is of ("87% of −1024"),
// and a share that rounds to 0% is not printed (#31).
func TestSharesReadSensibly(t *testing.T) {
	mk := func(name string, writeNs, readNs uint64, wall int64) results.ArmResult {
		a := results.ArmResult{CaseID: results.CaseID{Lab: "modes", Arm: name, Runtime: "go", Dir: "/d", PayloadBytes: 400}, Ops: 10}
		for i := range 6 {
			a.Batches = append(a.Batches, results.Batch{Round: i + 1, Ops: 10, WallNs: wall + int64(i)*100},
				results.Batch{Round: i + 1, Ops: 10, Traced: true, WallNs: wall + int64(i)*100, Records: []results.ClassRecord{
					{Class: "write", Calls: 10, TotalNs: writeNs*10 + uint64(i)}, {Class: "read", Calls: 10, TotalNs: readNs*10 + uint64(i)}}})
		}
		return a
	}
	b, a := mk("TemporaryFile", 5_000, 1_000, 200_000), mk("NamedTemporaryFile", 1_000, 1_001, 160_000)
	sums := results.SummarizeAll(&results.Run{Protocol: results.Protocol{Name: results.ProtocolRounds}, Arms: []results.ArmResult{b, a}}, resultstest.Labs.Baselines)
	s := explain.NewGap(sums[1], sums[0]).Sentence()
	if !strings.Contains(s, "write −4.00 (100% of −4.00") || strings.Contains(s, "0%;") || strings.Contains(s, "(0%") || strings.Contains(s, "−0%") {
		t.Errorf("sentence %q", s)
	}
}
