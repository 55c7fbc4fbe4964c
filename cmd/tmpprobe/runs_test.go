//go:build linux

package main

// Helpers of the tests that run the labs and save runs.

import (
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"golang.org/x/sys/unix"
	"os"
	"path/filepath"
	"testing"
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
// depending on where the fresh work dir's inodes land). Fresh workers every
// round make the six rounds six units, enough for the diff's U test.
func saveRun(t *testing.T, dir, out string, armNames ...string) {
	t.Helper()
	saveRunWith(t, dir, out, nil, armNames...)
}

// saveRunWith is saveRun with more flags, which override its own.
func saveRunWith(t *testing.T, dir, out string, flags []string, armNames ...string) {
	t.Helper()
	args := append([]string{"run"}, armNames...)
	args = append(args, "--lab", "modes", "--runtime", "go", "--payload", "256K", "--ops", "50", "--rounds", "6",
		"--worker-rounds", "1", "--dir", dir, "--out", out, "-q")
	args = append(args, flags...)
	code, stdout, stderr := inProcess(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, whyFailed(stdout, stderr))
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

func diskDir(t *testing.T) string {
	dir := t.TempDir()
	if isTmpfs(t, dir) {
		t.Skip("needs a disk-backed temp dir")
	}
	return dir
}
