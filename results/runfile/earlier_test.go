package runfile

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

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
		if err := saveRunDir(filepath.Join(dir, name), saved(run)); err != nil {
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
	notReplicate := func(r *results.Run) string {
		if r.Meta.KernelRelease != "6.18.0-test" {
			return "kernel " + r.Meta.KernelRelease
		}
		return ""
	}
	names := func(runs []results.EarlierRun) []string {
		var out []string
		for _, r := range runs {
			out = append(out, r.Name)
		}
		return out
	}
	runs, leftOut, unread, err := LoadEarlier(dir, filepath.Join(dir, "now"), notReplicate, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(leftOut) != 1 || leftOut[0] != (results.LeftOut{Name: "other-kernel", Reason: "kernel 6.1.0-test"}) {
		t.Errorf("left out %v, want other-kernel, for its kernel", leftOut)
	}
	if got := names(runs); !slices.Equal(got, []string{"newest", "new", "old"}) {
		t.Errorf("read %v, want [newest new old]", got)
	}
	if len(unread) != 1 || !strings.Contains(unread[0], filepath.Join("broken", "run.json")) {
		t.Errorf("unread %q, want the broken run.json named", unread)
	}
	runs, _, _, _ = LoadEarlier(dir, "", notReplicate, 2)
	if got := names(runs); !slices.Equal(got, []string{"now", "newest"}) {
		t.Errorf("limit 2 read %v, want the two newest, [now newest]", got)
	}
	if _, _, _, err := LoadEarlier(filepath.Join(dir, "missing"), "", notReplicate, 10); !os.IsNotExist(err) {
		t.Errorf("a missing dir: %v, want not-exist", err)
	}
}

// FuzzLoadEarlier plants a history directory from the fuzzer's bytes: run
// directories holding run.json files cut from them (some whole runs, some
// garbage), symlinks, FIFOs, hard links and directories of another user.
// Reading it never panics or hangs, names at most maxUnreadNamed runs it
// passed over (one more line counts the rest), each in one line, and the
// spread it measures is finite and not negative, so the intervals it
// widens stay intervals.
func FuzzLoadEarlier(f *testing.F) {
	good := resultstest.GoldenBytes(f, "old/run.json")
	f.Add([]byte{0, 1, 2, 3, 4, 5}, uint8(6))
	f.Add(append([]byte{0, 0, 0}, good[:200]...), uint8(3))
	f.Add([]byte("{}{\"schema\":1}"), uint8(12))
	f.Fuzz(func(t *testing.T, plan []byte, n uint8) {
		if os.Geteuid() != 0 {
			t.Skip("plants another user's files")
		}
		dir := t.TempDir()
		os.Chmod(dir, 0o755)
		for i := 0; i < int(n%16); i++ {
			kind := byte(i)
			if i < len(plan) {
				kind = plan[i]
			}
			name := filepath.Join(dir, fmt.Sprintf("r%02d", i))
			switch kind % 7 {
			case 0, 1: // a whole run, or one of its copies edited by the plan
				os.Mkdir(name, 0o755)
				body := good
				if kind%7 == 1 && len(plan) > i+1 {
					body = append(bytes.Clone(good[:len(good)/2]), plan[i+1:]...)
				}
				os.WriteFile(filepath.Join(name, "run.json"), body, 0o644)
			case 2: // another user's
				os.Mkdir(name, 0o755)
				os.WriteFile(filepath.Join(name, "run.json"), good, 0o644)
				os.Chown(name, 65534, 65534)
			case 3: // a symlink to a file root may read and nobody should
				os.Mkdir(name, 0o755)
				os.Symlink("/etc/shadow", filepath.Join(name, "run.json"))
			case 4: // a FIFO nobody writes
				os.Mkdir(name, 0o755)
				unix.Mkfifo(filepath.Join(name, "run.json"), 0o644)
			case 5: // a hard link to the first run.json
				os.Mkdir(name, 0o755)
				os.Link(filepath.Join(dir, "r00", "run.json"), filepath.Join(name, "run.json"))
			case 6: // a symlinked run directory
				os.Symlink(filepath.Join(dir, "r00"), name)
			}
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			runs, _, unread, err := LoadEarlier(dir, "", func(*results.Run) string { return "" }, results.MaxEarlierRuns)
			if err != nil {
				return
			}
			if len(unread) > maxUnreadNamed+1 {
				t.Errorf("%d lines of runs not read, want at most %d", len(unread), maxUnreadNamed+1)
			}
			for _, u := range unread {
				if strings.Contains(u, "\n") {
					t.Errorf("not one line: %q", u)
				}
			}
			run := resultstest.FixtureRun(false)
			sums := resultstest.Sums(run)
			b := results.MeasureBetween(run, sums, dir, runs, resultstest.Labs.Baselines)
			for _, c := range b.Cases {
				if c.Ratio < 0 || c.OpsPerS < 0 || math.IsNaN(c.Ratio+c.OpsPerS) || math.IsInf(c.Ratio+c.OpsPerS, 0) {
					t.Errorf("spread %+v", c)
				}
			}
			b.Widen(run, sums)
		}()
		select {
		case <-done:
		case <-time.After(time.Minute): // a guard against a hang, not a timing
			t.Fatal("LoadEarlier hung")
		}
	})
}
