//go:build linux

package probe

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/marker"
	"github.com/tmpprobe/tmpprobe/results"
)

// CheckMarkedRegion is checkMarkedRegion for the tests of package
// probe_test, which open the probe through probetest like every other
// package's tests.
var CheckMarkedRegion = checkMarkedRegion

func byClass(recs []results.ClassRecord) map[string]results.ClassRecord {
	m := map[string]results.ClassRecord{}
	for _, r := range recs {
		if r.Stage == "" {
			m[r.Class] = r
		}
	}
	return m
}

// The raw_tp family (kernels without BTF for tracepoints) loads, passes
// the verifier and counts the same, though tp_btf wins here.
func TestRawTpFamily(t *testing.T) {
	p := loadForTest(t, familyRawTp)
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	checkMarkedRegion(t, p)
}

func checkMarkedRegion(t *testing.T, p *Probe) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	const n = 1000
	unix.Getppid() // outside any region: not counted
	marker.Begin(p.Cookie, 7)
	for i := 0; i < n; i++ {
		unix.Getppid()
	}
	marker.End(p.Cookie^1, 7) // wrong cookie: ignored, region goes on
	unix.Close(-1)            // one failing close
	marker.End(p.Cookie, 7)
	unix.Getppid()

	got, err := p.Collect()
	if err != nil {
		t.Fatal(err)
	}
	recs := byClass(got[7])
	if c := recs["getppid"].Calls; c != n {
		t.Errorf("getppid calls = %d, want %d", c, n)
	}
	if c := recs["lseek"]; c.Calls != 1 || c.Errors != 1 {
		t.Errorf("lseek (wrong-cookie marker) = %d calls %d errors, want 1, 1", c.Calls, c.Errors)
	}
	if c := recs["close"]; c.Calls != 1 || c.Errors != 1 {
		t.Errorf("close = %d calls %d errors, want 1, 1", c.Calls, c.Errors)
	}
	for name, r := range recs {
		var h uint64
		for _, b := range r.Hist {
			h += b.Count
		}
		if h != r.Calls {
			t.Errorf("%s: histogram holds %d, calls %d", name, h, r.Calls)
		}
	}
	drops, err := p.Drops()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range drops {
		if v != 0 {
			t.Errorf("drop %s = %d (classes %v)", k, v, recs)
		}
	}
	again, _ := p.Collect()
	if len(again) != 0 {
		t.Errorf("Collect did not clear the map: %v", again)
	}
}
