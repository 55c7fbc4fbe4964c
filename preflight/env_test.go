//go:build linux

package preflight_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/internal/loopext4"
	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
)

func needRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounts a loop ext4: needs root")
	}
}

// runIn is a run whose only facts are those of dir.
func runIn(t *testing.T, dir string) *results.Run {
	t.Helper()
	m, _, err := preflight.Facts([]string{dir}, "")
	if err != nil {
		t.Fatal(err)
	}
	return &results.Run{Meta: m, Arms: []results.ArmResult{{CaseID: results.CaseID{Lab: "modes", Arm: "a", Runtime: "go", Dir: dir}}}}
}

// TestNobarrierIsADifference: a journaled ext4 mounted nobarrier against
// one mounted with the defaults differs by that option, in the mount
// options and in the options ext4 runs with; the diff listed no
// difference at all when the dirs were compared as a list of objects.
func TestNobarrierIsADifference(t *testing.T) {
	needRoot(t)
	old := runIn(t, loopext4.Journaled(t, "64M"))
	cur := runIn(t, loopext4.JournaledWith(t, "64M", "nobarrier"))
	rep := compare.Diff("old", old, "new", cur, nil, 5, nil)
	var names []string
	found := map[string]bool{}
	for _, f := range rep.Preflight {
		names = append(names, f.Name)
		if slices.Contains(f.Added, "nobarrier") {
			found[f.Name] = true
		}
	}
	if !found["dirs[0].mount_options"] || !found["dirs[0].fs_options"] {
		t.Errorf("nobarrier added in %v, want in dirs[0].mount_options and dirs[0].fs_options (differences: %v)", found, names)
	}
	for _, f := range rep.Preflight {
		if strings.Contains(f.Name, "queues") && !strings.HasSuffix(f.Name, ".device") && !strings.HasSuffix(f.Name, ".loop_backing_file") {
			t.Errorf("two fresh loop devices differ in %s: %s → %s", f.Name, f.Old, f.New)
		}
	}
}

// TestAANoDifference: the same dir twice differs in nothing.
func TestAANoDifference(t *testing.T) {
	needRoot(t)
	dir := loopext4.Journaled(t, "64M")
	rep := compare.Diff("old", runIn(t, dir), "new", runIn(t, dir), nil, 5, nil)
	for _, f := range rep.Preflight {
		t.Errorf("A/A: %s: %s → %s", f.Name, f.Old, f.New)
	}
}

// TestOverlayUpper: an overlay's facts are its upper layer's file system
// and devices, so block I/O and journal commits are matched.
func TestOverlayUpper(t *testing.T) {
	needRoot(t)
	ext4 := loopext4.Journaled(t, "64M")
	for _, d := range []string{"lower", "upper", "work", "merged"} {
		if err := os.Mkdir(filepath.Join(ext4, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	merged := filepath.Join(ext4, "merged")
	opts := "lowerdir=" + filepath.Join(ext4, "lower") + ",upperdir=" + filepath.Join(ext4, "upper") + ",workdir=" + filepath.Join(ext4, "work")
	if out, err := exec.Command("mount", "-t", "overlay", "overlay", "-o", opts, merged).CombinedOutput(); err != nil {
		t.Fatalf("mount overlay: %v\n%s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", merged).Run() })
	f, devs, err := preflight.Dir(merged)
	if err != nil {
		t.Fatal(err)
	}
	want, wantDevs, _ := preflight.Dir(ext4)
	if f.Upper != filepath.Join(ext4, "upper") || f.FSType != "ext4" || f.Journal != "yes" || f.Disk != want.Disk {
		t.Errorf("overlay facts: upper %q, %s, journal %q, disk %q; want upper %s/upper, ext4, journal yes, disk %q", f.Upper, f.FSType, f.Journal, f.Disk, ext4, want.Disk)
	}
	if !slices.Equal(devs, wantDevs) || len(devs) == 0 {
		t.Errorf("overlay devices %v, want the upper ext4's %v", devs, wantDevs)
	}
	m := results.Meta{Dirs: []results.DirFacts{f}}
	if w := preflight.Warnings(&m); len(w) != 1 || w[0].Kind != results.WarningOverlay || w[0].Upper != f.Upper {
		t.Errorf("warnings %+v, want only the overlay's, its upper layer %s", w, f.Upper)
	}
}
