package runfile

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// A trace's run.json says which arms are regions ("region": N); one saved
// before it did reads with the regions numbered from their names, and
// either way a region's op is an entry and the whole target's a run.
func TestRegionsReadBack(t *testing.T) {
	arm := func(name string, region *uint32) results.ArmResult {
		return results.ArmResult{CaseID: results.CaseID{Lab: results.LabTrace, Arm: name, Runtime: "-"}, Region: region, Ops: 1,
			Batches: []results.Batch{{Round: 1, Ops: 1, Phase: 1, Traced: true, WallNs: 1000,
				Records: []results.ClassRecord{{Class: "getppid", Calls: 3, TotalNs: 300}}}}}
	}
	zero, four := uint32(0), uint32(4)
	for _, tc := range []struct {
		name  string
		arms  []results.ArmResult
		field bool
	}{
		{"with the field", []results.ArmResult{arm("region 9", nil), arm("region 0", &zero), arm("region 4", &four)}, true},
		{"before the field", []results.ArmResult{arm("region 9", nil), arm("region 0", nil), arm("region 4", nil)}, false},
	} {
		var buf bytes.Buffer
		run := &results.Run{Schema: results.Schema, Tool: "tmpprobe", Complete: true, Protocol: results.Protocol{Name: results.ProtocolRounds},
			Arms: tc.arms}
		if err := json.NewEncoder(&buf).Encode(run); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(buf.String(), `"region":`); got != tc.field {
			t.Fatalf("%s: run.json has a region field: %v", tc.name, got)
		}
		back, err := ReadRun(&buf)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for i, want := range []string{"run", "entry", "entry"} {
			s := results.Summarize(&back.Arms[i], back.Protocol.Name)
			if s.Unit() != want || i > 0 && *s.Region != []uint32{0, 0, 4}[i] {
				t.Errorf("%s: arm %q has unit %s, region %v; want %s", tc.name, s.Arm, s.Unit(), s.Region, want)
			}
		}
	}
}
