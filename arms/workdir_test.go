//go:build linux

package arms

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Another user renames the private work dir and plants a symlink at its
// name: no group dir is made through the symlink, the run says so, and the
// cleanup empties the real directory (wherever it went) without touching
// the symlink's target.
func TestWorkDirRenamedUnderTheRun(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	w, err := newWorkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.name, workPrefix) {
		t.Fatalf("work dir %s", w.name)
	}
	first, err := w.groupDir()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(first.path, "tmpfile"), nil, 0o600)

	moved := filepath.Join(dir, "moved")
	if err := os.Rename(w.path, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, w.path); err != nil {
		t.Fatal(err)
	}
	if g, err := w.groupDir(); err == nil || !strings.Contains(err.Error(), "moved or replaced") {
		t.Errorf("groupDir after the rename: %q, %v; want an error", g.path, err)
	}
	w.remove()
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 {
		t.Errorf("made %v in the symlink's target", entries)
	}
	if entries, _ := os.ReadDir(moved); len(entries) > 0 {
		t.Errorf("left %v in the moved work dir", entries)
	}
	if st, err := os.Lstat(w.path); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the planted symlink was removed or followed: %v", err)
	}
}

// The private dir carries the run's pid, and the next run in the same
// --dir sweeps one whose run is gone.
func TestWorkDirSweepsStale(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, workPrefix+"999999999-abc") // above pid_max: never running
	os.MkdirAll(filepath.Join(stale, "arm-1"), 0o700)
	os.WriteFile(filepath.Join(stale, "arm-1", "f"), nil, 0o600)
	w, err := newWorkDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.remove()
	if _, err := os.Lstat(stale); err == nil {
		t.Error("the stale work dir was not swept")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != w.name {
		t.Errorf("entries %v, want just %s", entries, w.name)
	}
}
