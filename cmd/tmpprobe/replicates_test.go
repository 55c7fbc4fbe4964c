//go:build linux

package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/internal/loopext4"
)

// #43: runs of four mount settings of one journaled ext4, saved side by
// side in one directory as a user keeps runs/before and runs/after. Runs
// of another setting are not replicates: a diff counts none of them as
// noise (the barrier and nobarrier runs had been the "earlier runs like
// it" that hid data=journal's −73%), says which it left out and why, and
// names each change's culprit; the A/A pair beside them stays quiet.
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
	journal := save("journal", ",data=journal")
	orderedB := save("ordered-b", "")

	// nobarrier: less work (no cache flush), its culprit tied; the runs
	// of the other settings left out, by name of what they are.
	rep := diffAll(t, orderedA, nobarrier)
	// ext4's options in effect say what each is: barrier (the other
	// ordered run; OLD, the change itself, is not named), data=journal
	// with what it implies.
	for _, want := range []string{"1 run beside it left out: mounted barrier", "data=journal"} {
		if !strings.Contains(rep.LeftOut, want) {
			t.Errorf("barrier → nobarrier: left out %q, want %q named", rep.LeftOut, want)
		}
	}
	if d := armDiff(rep, "mkstemp-fsync"); d == nil || d.Work == nil || !strings.Contains(d.Work.Headline, "NEW is mounted nobarrier") {
		t.Errorf("barrier → nobarrier: mkstemp-fsync %s, want its work tied to nobarrier", described(d))
	}
	// data=ordered → data=journal: a finding under --gate time, named.
	code, stdout, stderr := inProcess("diff", orderedB, journal, "--gate", "time", "--threshold", "5")
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
