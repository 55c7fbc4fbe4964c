//go:build linux

package arms_test

import (
	"context"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/marker"
	"github.com/tmpprobe/tmpprobe/results"
)

// driver.py spells the marker in Python, apart from internal/marker: a
// batch it runs in a phase must land in that phase, as a region
// internal/marker marks lands in its own. The phases' alternating bits
// catch an encoding that shifts, truncates or swaps begin and end
// differently.
func TestPythonMarksAsGo(t *testing.T) {
	p := openProbe(t)
	rt := python(t)
	const pyPhase, goPhase = 0x2aaaaaab, 0x15555555
	w, err := arms.Start(context.Background(), rt, arms.Config{
		Lab: "marker", Arm: "python", PyFunc: "temporary_file", Dir: t.TempDir(), Cookie: p.Cookie,
	}, 0)
	if err != nil {
		t.Fatalf("%v: %s", err, w.Stderr())
	}
	defer w.Close()
	if _, _, err := w.Batch(pyPhase, true, 1, 0); err != nil {
		t.Fatalf("%v: %s", err, w.Stderr())
	}
	func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		marker.Begin(p.Cookie, goPhase)
		unix.Getppid()
		marker.End(p.Cookie, goPhase)
	}()
	got, err := p.Collect()
	if err != nil {
		t.Fatal(err)
	}
	for phase, recs := range got {
		if phase != pyPhase && phase != goPhase {
			t.Errorf("records in phase %#x, which no one marked: %v", phase, recs)
		}
	}
	// The op closes its one file inside the region; a worker whose
	// markers began the region at the batch's end would show only what it
	// did after (its reply, its next read).
	if c := calls(got[pyPhase], "close"); c != 1 {
		t.Errorf("driver.py's batch in phase %#x: %d close calls, want 1 (%v)", pyPhase, c, got[pyPhase])
	}
	if c := calls(got[goPhase], "getppid"); c != 1 {
		t.Errorf("internal/marker's region in phase %#x: %d getppid calls, want 1 (%v)", goPhase, c, got[goPhase])
	}
}

func calls(recs []results.ClassRecord, class string) uint64 {
	for _, r := range recs {
		if r.Class == class && r.Stage == "" {
			return r.Calls
		}
	}
	return 0
}
