package render

import (
	"bytes"
	"encoding/csv"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// A trace whose threads spent longer in syscalls than it ran has no user
// time to show: its CSV cell is empty, as the terminal report leaves it.
func TestTraceCSVUserTimeEmptyWhenNegative(t *testing.T) {
	run := &results.Run{Schema: results.Schema, Tool: "tmpprobe", Arms: []results.ArmResult{{
		CaseID:  results.CaseID{Lab: "trace", Arm: "make", Runtime: "-"},
		Ops:     1,
		Batches: []results.Batch{{Traced: true, WallNs: 1_000_000, Records: []results.ClassRecord{{Class: "wait4", Calls: 3, TotalNs: 2_500_000}}}},
	}}}
	sums := results.SummarizeAll(run, nil)
	var b bytes.Buffer
	if err := WriteSyscallCSV(&b, run, sums); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if got := rows[1][col["user_ns_per_op"]]; got != "" {
		t.Errorf("user_ns_per_op %q, want empty", got)
	}
	if got := rows[1][col["wall_ns_per_op"]]; got != "1000000" {
		t.Errorf("wall_ns_per_op %q", got)
	}
}
