package explain

import (
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// A compare run names its own baseline (its first command) and pairs
// every other command with it; the labs' knowledge is kept, not changed.
func TestWithCommands(t *testing.T) {
	labs := LabKnowledge{Baselines: map[string]string{"modes": "TemporaryFile"}, Pairs: []Pair{{"modes", "NamedTemporaryFile", "TemporaryFile"}}}
	run := &results.Run{Arms: []results.ArmResult{{Lab: results.LabCompare, Arm: "old"}, {Lab: results.LabCompare, Arm: "new"}, {Lab: results.LabCompare, Arm: "newer"}}}
	k := labs.WithCommands(run, run)
	if k.Baselines[results.LabCompare] != "old" || k.Baselines["modes"] != "TemporaryFile" {
		t.Errorf("baselines %v", k.Baselines)
	}
	want := []Pair{labs.Pairs[0], {results.LabCompare, "new", "old"}, {results.LabCompare, "newer", "old"}}
	if len(k.Pairs) != len(want) {
		t.Fatalf("pairs %v, want %v", k.Pairs, want)
	}
	for i := range want {
		if k.Pairs[i] != want[i] {
			t.Errorf("pair %d = %v, want %v", i, k.Pairs[i], want[i])
		}
	}
	if _, ok := labs.Baselines[results.LabCompare]; ok || len(labs.Pairs) != 1 {
		t.Error("WithCommands changed the knowledge it was given")
	}
}
