package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// Device I/O matched by time is a cause only under a syscall that can
// wait for it: under fsync it explains, under clock_nanosleep it is shown
// apart and never named in WHY.
func TestDeviceIOOnlyUnderSyscallsThatWait(t *testing.T) {
	a := &results.ArmResult{
		CaseID: results.CaseID{Lab: "trace", Arm: "app", Runtime: "-"},
		Ops:    1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Traced: true, WallNs: 10_000_000,
			Records: []results.ClassRecord{
				{Class: "clock_nanosleep", Calls: 10, TotalNs: 5_000_000, OffCPUNs: 5_000_000, OffNs: map[string]uint64{"sleep": 5_000_000}},
				{Class: "clock_nanosleep", Stage: "dev_write", Calls: 36, TotalNs: 900_000},
				{Class: "fsync", Calls: 1, TotalNs: 3_000_000},
				{Class: "fsync", Stage: "dev_flush", Calls: 1, TotalNs: 800_000},
				{Class: "openat[create]", Calls: 1, TotalNs: 100_000},
				{Class: "openat[create]", Stage: "dev_read", Calls: 1, TotalNs: 50_000},
			}}},
	}
	s := results.Summarize(a, "")
	if !s.Stage("clock_nanosleep", "dev_write").Beside || s.Stage("fsync", "dev_flush").Beside || s.Stage("openat[create]", "dev_read").Beside {
		t.Errorf("beside: nanosleep %v, fsync %v, openat %v; want only the sleep's",
			s.Stage("clock_nanosleep", "dev_write").Beside, s.Stage("fsync", "dev_flush").Beside, s.Stage("openat[create]", "dev_read").Beside)
	}
	why := explain.ArmSentence(s, s.TimeScale())
	if strings.Contains(why, "device writes") || !strings.Contains(why, "cache flushes") {
		t.Errorf("WHY %q: want fsync's flush named and the sleep's device writes not", why)
	}
	var b bytes.Buffer
	WriteTable(&b, []*results.Summary{s})
	if !strings.Contains(b.String(), "  ⋯ dev_write") || !strings.Contains(b.String(), "cannot wait for it") {
		t.Errorf("breakdown:\n%s", b.String())
	}
	// A 3.6 s run reads in seconds, not "3630061 µs".
	a.Batches[0].WallNs = 3_630_061_000
	b.Reset()
	WriteTable(&b, []*results.Summary{results.Summarize(a, "")})
	if !strings.Contains(b.String(), "app: 3.63 s/run = syscalls 0.0081 + user 3.62") || !strings.Contains(b.String(), "dev_read                     1    <0.001") {
		t.Errorf("a second-scale run:\n%s", b.String())
	}
}

// trace --syscall filters the explanations as well as the table.
func TestTraceViewFiltersWhy(t *testing.T) {
	a := &results.ArmResult{
		CaseID: results.CaseID{Lab: "trace", Arm: "app", Runtime: "-"},
		Ops:    1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Traced: true, WallNs: 10_000_000,
			Records: []results.ClassRecord{{Class: "clock_nanosleep", Calls: 10, TotalNs: 5_000_000}, {Class: "fsync", Calls: 1, TotalNs: 3_000_000}}}},
	}
	var b bytes.Buffer
	WriteTrace(&b, []*results.Summary{results.Summarize(a, "")}, TraceView{Syscalls: []string{"fsync"}})
	why := b.String()[strings.Index(b.String(), "WHY"):]
	if strings.Contains(b.String(), "clock_nanosleep") || !strings.Contains(why, "fsync 3.00 ms (30%)") {
		t.Errorf("--syscall fsync:\n%s", b.String())
	}
}
