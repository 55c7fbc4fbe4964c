//go:build linux

package probe_test

import (
	"testing"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
)

// A marked region counts exactly the syscalls the thread made inside it and
// nothing outside it or from a marker with another cookie.
func TestMarkedRegionCountsExactly(t *testing.T) {
	probe.CheckMarkedRegion(t, probetest.Open(t, probe.Options{Attach: probe.BackendTracepoint}))
}

// Calibration traces its own loop and leaves no record behind.
func TestCalibrate(t *testing.T) {
	p := probetest.Open(t, probe.Options{Attach: probe.BackendTracepoint})
	c, err := p.Calibrate(20000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("getppid: %+v", c)
	if c.Detached <= 0 || c.Inactive <= 0 || c.Active <= 0 {
		t.Errorf("calibration gave %+v", c)
	}
	if !p.Attached() {
		t.Error("Calibrate left the probe detached")
	}
	if left, _ := p.Collect(); len(left) != 0 {
		t.Errorf("Calibrate left records: %v", left)
	}
}
