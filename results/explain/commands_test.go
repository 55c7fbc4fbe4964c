package explain

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// A compare run names its own baseline (its first command) and pairs
// every other command with it, beside the labs' pairs.
func TestCommandPairs(t *testing.T) {
	run := &results.Run{Kind: results.KindCompare, Arms: []results.ArmResult{{CaseID: results.CaseID{Lab: results.LabCompare, Arm: "old"}}, {CaseID: results.CaseID{Lab: results.LabCompare, Arm: "new"}}, {CaseID: results.CaseID{Lab: results.LabCompare, Arm: "newer"}}}}
	labs := map[string]string{"modes": "TemporaryFile"}
	if b := results.CommandBaseline(run, labs); b[results.LabCompare] != "old" || b["modes"] != "TemporaryFile" || len(labs) != 1 {
		t.Errorf("baselines %v (given %v)", b, labs)
	}
	sums := results.SummarizeAll(run, labs)
	want := []Pair{{results.LabCompare, "new", "old", true}, {results.LabCompare, "newer", "old", true}}
	if got := CommandPairs(sums); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("pairs %v, want %v", got, want)
	}
}

// A syscall only the baseline makes is explained by what it did there:
// listing the syncing command first must not lose the journal and the
// flushes from the WHY of the other. The sentence keeps the unit its
// commands' times read in (ms), not "−8000 µs".
func TestDroppedSyscallKeepsItsMechanism(t *testing.T) {
	arm := func(name string, recs []results.ClassRecord) *results.Summary {
		a := &results.ArmResult{
			CaseID:  results.CaseID{Lab: results.LabCompare, Arm: name, Runtime: "-"},
			Ops:     1,
			Batches: []results.Batch{{Round: 1, Ops: 1, Traced: true, WallNs: 10_000_000, Records: recs}},
		}
		return results.Summarize(a, results.ProtocolRounds)
	}
	write := results.ClassRecord{Class: "write", Calls: 10, TotalNs: 100_000}
	full := arm("full", []results.ClassRecord{write,
		{Class: "fdatasync", Calls: 20, TotalNs: 8_000_000, OffCPUNs: 7_000_000, OffNs: map[string]uint64{results.OffBlockedJBD2: 7_000_000}},
		{Class: "fdatasync", Stage: results.StageJBD2Commit, Calls: 10, TotalNs: 4_000_000},
		{Class: "fdatasync", Stage: results.StageDevFlush, Calls: 20, TotalNs: 3_000_000}})
	off := arm("off", []results.ClassRecord{write})
	line := NewGap(off, full).Sentence()
	for _, want := range []string{"fdatasync −8.00 (", "not made, was 20/run: ", "journal commits/run 10", "cache flushes/run 20"} {
		if !strings.Contains(line, want) {
			t.Errorf("lacks %q: %s", want, line)
		}
	}
}
