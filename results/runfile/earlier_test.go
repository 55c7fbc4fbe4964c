package runfile

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// LoadEarlier reads the complete runs of a directory, newest first, up to
// its limit, and passes over what is not a run: a dir without run.json, a
// staging dir, the run being written now, an incomplete run, one want
// refuses; a run.json it cannot read is named, not fatal.
func TestLoadEarlier(t *testing.T) {
	dir := t.TempDir()
	save := func(name string, age time.Duration, edit func(*results.Run)) {
		t.Helper()
		run := resultstest.FixtureRun(false)
		edit(run)
		if err := WriteRunDir(filepath.Join(dir, name), run, resultstest.Sums(run), resultstest.Labs); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		if err := os.Chtimes(filepath.Join(dir, name, "run.json"), when, when); err != nil {
			t.Fatal(err)
		}
	}
	keep := func(*results.Run) {}
	save("old", 3*time.Hour, keep)
	save("new", time.Hour, keep)
	save("newest", time.Minute, keep)
	save("now", 0, keep) // the run being saved
	save("incomplete", time.Hour, func(r *results.Run) { r.Complete = false })
	save("other-kernel", time.Hour, func(r *results.Run) { r.Meta.KernelRelease = "6.1.0-test" })
	save(".staging", time.Hour, keep)
	for _, d := range []string{"empty", "broken"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "broken", "run.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := func(r *results.Run) bool { return r.Meta.KernelRelease == "6.18.0-test" }
	names := func(runs []results.EarlierRun) []string {
		var out []string
		for _, r := range runs {
			out = append(out, r.Name)
		}
		return out
	}
	runs, unread, err := LoadEarlier(dir, filepath.Join(dir, "now"), want, 10)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(runs); !slices.Equal(got, []string{"newest", "new", "old"}) {
		t.Errorf("read %v, want [newest new old]", got)
	}
	if len(unread) != 1 || !strings.Contains(unread[0], filepath.Join("broken", "run.json")) {
		t.Errorf("unread %q, want the broken run.json named", unread)
	}
	runs, _, _ = LoadEarlier(dir, "", want, 2)
	if got := names(runs); !slices.Equal(got, []string{"now", "newest"}) {
		t.Errorf("limit 2 read %v, want the two newest, [now newest]", got)
	}
	if _, _, err := LoadEarlier(filepath.Join(dir, "missing"), "", want, 10); !os.IsNotExist(err) {
		t.Errorf("a missing dir: %v, want not-exist", err)
	}
}
