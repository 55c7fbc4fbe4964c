//go:build linux

package follow

import (
	"os"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
)

// The test process itself: running, with the parent the kernel names.
func TestReadProc(t *testing.T) {
	p, err := ReadProc(os.Getpid())
	if err != nil || p.PPID != os.Getppid() || p.State == 'Z' {
		t.Errorf("ReadProc(self) = %+v, %v; want parent %d", p, err, os.Getppid())
	}
	if _, err := ReadProc(1 << 30); err == nil {
		t.Error("ReadProc of no process gave no error")
	}
}

// A trace is one arm for the whole target and one per region it marked,
// named as results reads them: a region's op is an entry.
func TestResultArms(t *testing.T) {
	region := uint32(7) | probe.RegionFlag
	r := &Result{Wall: time.Second, Records: map[uint32][]results.ClassRecord{
		Phase:  {{Class: "write", Calls: 10, TotalNs: 1000}},
		region: {{Class: results.ClassRegion, Calls: 3, TotalNs: 900}, {Class: "fsync", Calls: 3, TotalNs: 600}},
	}}
	arms := r.Arms("app")
	if len(arms) != 2 {
		t.Fatalf("arms %+v: want the target and one region", arms)
	}
	whole, reg := results.Summarize(&arms[0], ""), results.Summarize(&arms[1], "")
	if whole.Lab != results.LabTrace || whole.IsRegion() || whole.Unit() != "run" || whole.Class("fsync").Calls != 3 || whole.Class("write").Calls != 10 {
		t.Errorf("whole target %+v (unit %s): want every call of every phase, one op the run", arms[0], whole.Unit())
	}
	if reg.Arm != results.RegionArm(7) || !reg.IsRegion() || *reg.Region != 7 || reg.Unit() != "entry" || reg.Ops != 3 || reg.Class("write").Calls != 0 {
		t.Errorf("region %+v (unit %s): want region 7, three entries, its own calls", arms[1], reg.Unit())
	}
}
