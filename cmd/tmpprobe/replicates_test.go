//go:build linux

package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/internal/loopext4"
)

// #43: the four mount settings of one journaled ext4 (barrier, nobarrier,
// data=ordered, data=journal), saved side by side in one directory as a
// user keeps runs/before and runs/after, with a replicate of ordered and
// of journal. Runs of another setting are not replicates: a diff counts
// none of them as noise (the barrier and nobarrier runs had been the
// "earlier runs like it" that hid data=journal's −73%), says which it
// left out and why, and names each change's culprit on the arm whose
// work it changed, four changes of four; the A/A pair beside them stays
// quiet.
func TestRunsOfAnotherSettingAreNotNoise(t *testing.T) {
	needBPF(t)
	mnt := loopext4.Journaled(t, "256M")
	img := filepath.Join(filepath.Dir(mnt), "fs.img")
	// The same image at the same mount point each time: the cases are the
	// same dir's, as the runs were.
	remount := func(options string) {
		t.Helper()
		for _, args := range [][]string{{"umount", mnt}, {"mount", "-o", "loop" + options, img, mnt}} {
			if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
			}
		}
	}
	runs := t.TempDir()
	save := func(name, options string) string {
		remount(options)
		out := filepath.Join(runs, name)
		saveRun(t, mnt, out, "TemporaryFile", "mkstemp-fsync")
		return out
	}
	orderedA := save("ordered-a", "")
	nobarrier := save("nobarrier", ",nobarrier")
	journalA := save("journal-a", ",data=journal")
	orderedB := save("ordered-b", "")
	journalB := save("journal-b", ",data=journal")

	// Each change names its culprit on mkstemp-fsync's work (its flushes
	// or its journal's), and leaves out the runs of the other settings.
	for _, c := range []struct {
		name, old, cur string
		culprit        string // in mkstemp-fsync's work verdict
		// leftOut: the runs beside NEW of another setting than NEW's (OLD
		// is the change itself, not named), and a reason one of them has.
		leftOut int
		reason  string
	}{
		{"barrier → nobarrier", orderedA, nobarrier, "NEW is mounted nobarrier", 3, "mounted barrier"},
		{"nobarrier → barrier", nobarrier, orderedB, "NEW is mounted barrier", 2, "data=journal"},
		{"data=ordered → data=journal", orderedB, journalB, "data=journal", 2, "nobarrier"},
		{"data=journal → data=ordered", journalA, orderedB, "data=ordered", 2, "data=journal"},
	} {
		rep := diffAll(t, c.old, c.cur)
		if n := leftOutRuns(rep.LeftOut); n != c.leftOut || !strings.Contains(rep.LeftOut, c.reason) {
			t.Errorf("%s: left out %q (%d runs), want %d naming %q", c.name, rep.LeftOut, n, c.leftOut, c.reason)
		}
		if d := armDiff(rep, "mkstemp-fsync"); d == nil || d.Work == nil || !strings.Contains(d.Work.Headline, c.culprit) {
			t.Errorf("%s: mkstemp-fsync %s, want its work tied to %q", c.name, described(d), c.culprit)
		}
	}
	// data=ordered → data=journal, a replicate of each beside them: a
	// finding under --gate time, named.
	code, stdout, stderr := inProcess("diff", orderedB, journalB, "--gate", "time", "--threshold", "5")
	if code != exitRegressed || !strings.Contains(stdout, "data=journal") {
		t.Errorf("ordered → journal, --gate time --threshold 5: exit %d, want 1 naming data=journal:\n%s%s", code, stdout, stderr)
	}
	// A/A, with the nobarrier and data=journal runs beside it: its work
	// the same, and those runs named as left out.
	code, stdout, stderr = inProcess("diff", orderedA, orderedB, "--gate", "work", "--threshold", "5")
	if code != 0 || !strings.Contains(stdout, "left out") || !strings.Contains(stdout, "data=journal") {
		t.Errorf("A/A beside the other settings, --gate work --threshold 5: exit %d, want 0 naming the runs left out:\n%s%s", code, stdout, stderr)
	}
}

// leftOutRuns counts the runs a "2 runs beside it left out: …; 1: …"
// names.
func leftOutRuns(s string) int {
	n := 0
	for _, part := range strings.Split(s, "; ") {
		var k int
		fmt.Sscanf(part, "%d", &k)
		n += k
	}
	return n
}
