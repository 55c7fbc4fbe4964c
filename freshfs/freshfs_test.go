//go:build linux

package freshfs_test

import (
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/freshfs"
	"github.com/tmpprobe/tmpprobe/internal/loopext4"
	"github.com/tmpprobe/tmpprobe/preflight"
)

// features are an ext4's features as dumpe2fs -h lists them, without the
// flags that describe its state.
func features(t *testing.T, dev string) []string {
	t.Helper()
	out, err := exec.Command("dumpe2fs", "-h", dev).Output()
	if err != nil {
		t.Fatalf("dumpe2fs -h %s: %v", dev, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Filesystem features:"); ok {
			fs := slices.DeleteFunc(strings.Fields(v), func(f string) bool { return f == "needs_recovery" || f == "orphan_present" })
			slices.Sort(fs)
			return fs
		}
	}
	t.Fatalf("dumpe2fs -h %s: no features", dev)
	return nil
}

// A fresh file system for a journaled ext4 mounted with discard: the same
// features (the journal, no fast commits, a 1 KiB block) and the same
// options, on a loop device backed by a file on the work dir's own file
// system; and nothing left once removed.
func TestMatchesTheWorkDirsExt4(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	src := loopext4.Mount(t, "64M", loopext4.Options{Mkfs: []string{"-O", "has_journal,^fast_commit,^metadata_csum", "-b", "1024"}})
	if out, err := exec.Command("mount", "-o", "remount,discard,nobarrier", src).CombinedOutput(); err != nil {
		t.Fatalf("remount %s: %v: %s", src, err, out)
	}
	srcFacts, _, err := preflight.Dir(src)
	if err != nil {
		t.Fatal(err)
	}
	f, err := freshfs.Make(src, 32<<20)
	if err != nil {
		t.Fatal(err)
	}
	removed := false
	defer func() {
		if !removed {
			f.Remove()
		}
	}()
	facts, _, err := preflight.Dir(f.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if facts.Source != f.Device || facts.FSType != "ext4" || facts.Journal != "yes" {
		t.Errorf("fresh fs %+v, want a journaled ext4 on %s", facts, f.Device)
	}
	if want, got := features(t, srcFacts.Source), features(t, f.Device); !slices.Equal(want, got) {
		t.Errorf("features %v, want the work dir's %v", got, want)
	}
	for _, o := range []string{"discard", "nobarrier"} {
		if !slices.Contains(strings.Split(facts.Options, ","), o) {
			t.Errorf("mounted with %s, want %s as the work dir is", facts.Options, o)
		}
	}
	if !strings.HasPrefix(f.Image, src+"/") {
		t.Errorf("image %s, want it on the work dir's file system %s", f.Image, src)
	}
	if d := f.Describe(); !strings.Contains(d, f.Device) || !strings.Contains(d, "discard") || f.Guessed != "" {
		t.Errorf("description %q (guessed %q), want the device and the options, nothing guessed", d, f.Guessed)
	}
	dev, img := f.Device, f.Image
	removed = true
	if err := f.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(img); !os.IsNotExist(err) {
		t.Errorf("image %s still there after Remove (%v)", img, err)
	}
	if out, _ := exec.Command("losetup", "-a").Output(); strings.Contains(string(out), dev+":") {
		t.Errorf("loop device %s still attached:\n%s", dev, out)
	}
}

// A tmpfs needs none, and says so; another file system is refused.
func TestRefusesWhatItCannotMatch(t *testing.T) {
	if _, err := freshfs.Make("/dev/shm", 1<<20); !errors.Is(err, freshfs.ErrNotNeeded) {
		t.Errorf("/dev/shm: %v, want %v", err, freshfs.ErrNotNeeded)
	}
	if _, err := freshfs.Make("/proc", 1<<20); err == nil || !strings.Contains(err.Error(), "only ext4") {
		t.Errorf("/proc: %v, want a refusal naming ext4", err)
	}
}
