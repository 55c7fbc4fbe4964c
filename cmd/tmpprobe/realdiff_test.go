//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
)

// needBPF skips only when the kernel or privileges rule BPF out.
func needBPF(t *testing.T) { probetest.Open(t, probe.Options{}) }

func isTmpfs(t *testing.T, dir string) bool {
	t.Helper()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return st.Type == unix.TMPFS_MAGIC
}

// saveRun runs arms of the modes lab (go runtime) in dir, saves the run
// to out, and checks that 'report' re-renders it exactly as the run
// printed it and as its report.md says. The payload is 256 KiB: fsync
// then writes it to the device (~2 ms here), well above the run-to-run
// swings of openat(O_CREAT) on ext4 (25 µs or ~600 µs per op, on the CPU,
// depending on where the fresh work dir's inodes land).
func saveRun(t *testing.T, dir, out string, armNames ...string) {
	t.Helper()
	args := append([]string{"run"}, armNames...)
	args = append(args, "--lab", "modes", "--runtime", "go", "--payload", "256K", "--ops", "50", "--repeats", "3",
		"--dir", dir, "--out", out, "-q")
	code, stdout, stderr := inProcess(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	if code, again, stderr := inProcess("report", out); code != 0 || again != stdout {
		t.Errorf("report %s: exit %d (%s), output differs from the run's:\n%s\n---\n%s", out, code, stderr, again, stdout)
	}
	md, err := os.ReadFile(filepath.Join(out, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if _, again, _ := inProcess("report", out, "--format", "markdown"); again != string(md) {
		t.Errorf("report %s --format markdown differs from its report.md", out)
	}
}

// diffJSON diffs two saved runs and returns the report and the arm named arm.
func diffJSON(t *testing.T, old, cur, arm string, wantCode int) (*results.DiffReport, *results.ArmDiff) {
	t.Helper()
	code, stdout, stderr := inProcess("diff", old, cur, "--format", "json", "--threshold", "20")
	if code != wantCode {
		t.Errorf("diff --threshold 20: exit %d (%s), want %d", code, stderr, wantCode)
	}
	var rep results.DiffReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for i := range rep.Arms {
		if rep.Arms[i].Arm == arm {
			d := &rep.Arms[i]
			if d.Status != results.StatusRegressed || len(d.Terms) == 0 {
				t.Fatalf("%s: %s with %d terms, want regressed", arm, d.Status, len(d.Terms))
			}
			t.Log(d.Sentence)
			return &rep, d
		}
	}
	t.Fatalf("no %s in the diff", arm)
	return nil, nil
}

func diskDir(t *testing.T) string {
	dir := t.TempDir()
	if isTmpfs(t, dir) {
		t.Skip("needs a disk-backed temp dir")
	}
	return dir
}

// A known cause: the same service before and after someone added an
// fsync. The "before" run is mkstemp-close-unlink saved under the name
// mkstemp-fsync; the "after" run is mkstemp-fsync; both real, in the same
// disk dir. The diff must rank fsync first.
func TestDiffRealAddedFsync(t *testing.T) {
	needBPF(t)
	disk, out := diskDir(t), t.TempDir()
	before, after := filepath.Join(out, "before"), filepath.Join(out, "after")
	saveRun(t, disk, before, "mkstemp-close-unlink")
	saveRun(t, disk, after, "mkstemp-fsync")
	run, err := results.LoadRun(before)
	if err != nil {
		t.Fatal(err)
	}
	run.Arms[0].Arm = "mkstemp-fsync"
	if err := results.WriteRunDir(before, run, results.SummarizeAll(run, arms.Baseline)); err != nil {
		t.Fatal(err)
	}
	_, d := diffJSON(t, before, after, "mkstemp-fsync", exitRegressed)
	if top := d.Terms[0]; top.Name != "fsync" || top.Old != 0 {
		t.Errorf("top term %s (%v → %v ns/op), want fsync from 0", top.Name, top.Old, top.New)
	}
}

// tmpfs against a disk file system: fsync has nothing to write on tmpfs.
// Every arm is slower on disk; the diff must say the work dirs differ and
// rank fsync first for mkstemp-fsync.
func TestDiffRealTmpfsVsDisk(t *testing.T) {
	needBPF(t)
	disk, out := diskDir(t), t.TempDir()
	if !isTmpfs(t, "/dev/shm") {
		t.Skip("needs /dev/shm on tmpfs")
	}
	shm, ext := filepath.Join(out, "tmpfs"), filepath.Join(out, "disk")
	saveRun(t, "/dev/shm", shm, "TemporaryFile", "mkstemp-fsync")
	saveRun(t, disk, ext, "TemporaryFile", "mkstemp-fsync")
	rep, d := diffJSON(t, shm, ext, "mkstemp-fsync", exitRegressed)
	if top := d.Terms[0]; top.Name != "fsync" {
		t.Errorf("top term %s (%v → %v ns/op), want fsync", top.Name, top.Old, top.New)
	}
	if len(rep.Preflight) == 0 || rep.Preflight[0].Name != "work dirs" {
		t.Errorf("preflight %v: want the work dirs", rep.Preflight)
	}
}
