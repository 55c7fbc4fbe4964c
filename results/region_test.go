package results_test

import (
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// A trace saved before regions were a field reads with its regions
// numbered from their names, region 0 too; its first arm is the whole
// target whatever its command is called, and another lab's arm named like
// a region is no region.
func TestNameRegions(t *testing.T) {
	trace := func(arm string) results.ArmResult {
		return results.ArmResult{CaseID: results.CaseID{Lab: results.LabTrace, Arm: arm, Runtime: "-"}}
	}
	seven := uint32(7)
	run := &results.Run{Arms: []results.ArmResult{trace("region 9"), trace("region 3"), trace(results.RegionArm(0)),
		trace("region 12x"), trace("region 5")}}
	run.Arms[4].Region = &seven // written with the field: kept as written
	results.NameRegions(run)
	for i, want := range []int{-1, 3, 0, -1, 7} {
		a := &run.Arms[i]
		switch {
		case want < 0 && a.IsRegion():
			t.Errorf("arm %d %q: region %d, want none", i, a.Arm, *a.Region)
		case want >= 0 && (!a.IsRegion() || *a.Region != uint32(want)):
			t.Errorf("arm %d %q: region %v, want %d", i, a.Arm, a.Region, want)
		}
	}
	cmp := &results.Run{Arms: []results.ArmResult{{CaseID: results.CaseID{Lab: results.LabCompare, Arm: "a"}},
		{CaseID: results.CaseID{Lab: results.LabCompare, Arm: "region 2"}}}}
	if results.NameRegions(cmp); cmp.Arms[1].IsRegion() {
		t.Errorf("compare's command %q read as a region", cmp.Arms[1].Arm)
	}
}
