//go:build linux

package main

// Diffs of real runs: known causes, A/A, a program changed, tmpfs against a disk.

import (
	"encoding/json"
	"fmt"
	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/session"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// diffJSON diffs two saved runs and returns the report and the arm named arm.
func diffJSON(t *testing.T, old, cur, arm string, wantCode int) (*render.DiffJSON, *render.DiffArmJSON) {
	t.Helper()
	code, stdout, stderr := inProcess("diff", old, cur, "--format", "json", "--threshold", "20")
	if code != wantCode {
		t.Errorf("diff --threshold 20: exit %d (%s), want %d", code, stderr, wantCode)
	}
	var rep render.DiffJSON
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	for i := range rep.Arms {
		if rep.Arms[i].Arm == arm {
			d := &rep.Arms[i]
			if d.Status != compare.StatusRegressed || len(d.Terms) == 0 {
				t.Fatalf("%s: %s with %d terms, want regressed", arm, d.Status, len(d.Terms))
			}
			t.Log(d.Sentence)
			return &rep, d
		}
	}
	t.Fatalf("no %s in the diff", arm)
	return nil, nil
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
	saved, err := session.Load(before)
	if err != nil {
		t.Fatal(err)
	}
	saved.Run.Arms[0].Arm = "mkstemp-fsync"
	if err := saved.SaveRunDir(before); err != nil {
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

// A change to a Python program, seen through the region it marks: the
// same loop traced before and after each op sleeps 50 µs more. The
// region's samples (one per 250 ms of the trace) are its rounds; the diff
// must call it regressed with clock_nanosleep (time.sleep) the top term.
func TestDiffRealPythonChange(t *testing.T) {
	needBPF(t)
	py, dir, out := realPython(t), t.TempDir(), t.TempDir()
	prog := `import os, tempfile, time
cookie = int(os.environ["TMPPROBE_COOKIE"])
slow = os.environ["SLOW"] == "1"
def marker(phase, begin):
    try:
        os.lseek(-1, cookie, phase << 1 | begin)
    except OSError:
        pass
end = time.monotonic() + 2.5
while time.monotonic() < end:
    marker(7, 1)
    with tempfile.NamedTemporaryFile(dir=os.environ["DIR"]) as f:
        f.write(b"x" * 400)
    if slow:
        time.sleep(50e-6)
    marker(7, 0)
`
	for _, v := range []string{"0", "1"} {
		cmd := tmpprobe("trace", "--out", filepath.Join(out, v), "--", py, "-c", prog)
		cmd.Env = append(cmd.Env, "SLOW="+v, "DIR="+dir)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("trace SLOW=%s: %v\n%s", v, err, b)
		}
	}
	rep, d := diffJSON(t, filepath.Join(out, "0"), filepath.Join(out, "1"), "region 7", exitRegressed)
	if top := d.Terms[0]; top.Name != "clock_nanosleep" || top.Old != 0 || top.New < 50_000 {
		t.Errorf("top term %s (%v → %v ns/op), want clock_nanosleep from 0 to 50 µs or more", top.Name, top.Old, top.New)
	}
	if d.OpsPerS.Old.N < 6 || d.OpsPerS.New.N < 6 {
		t.Errorf("rounds %d and %d: want a sample every 250 ms of a 2.5 s trace", d.OpsPerS.Old.N, d.OpsPerS.New.N)
	}
	for _, a := range rep.Arms {
		if a.Unit == "run" && a.Status != compare.StatusTooFew {
			t.Errorf("the whole trace %s: %s, want one sample, not judged", a.Arm, a.Status)
		}
	}
}

// A/A (#29): the same runs back to back, saved side by side as a user
// saves them, and each diffed with the one before. Nothing changed, so
// every flagged arm is a false alarm: at most 5% of the arm comparisons
// over twelve pairs, in /tmp (ext4 without a journal, on this VM's shared
// disk), for the modes lab in Go and in Python and the buffers lab in
// Python; and no arm's work per op changed, so `--gate work` passes
// every pair. The runs move between each other here — the disk's flush
// latency by the minute, inode allocation with what the run before
// deleted — which one run's generations cannot see (an arm whose change
// is the storage's time per request, moved alike in every arm, with the
// same work, moved with the storage, and is no alarm): from its third run
// on, a setting's runs record the spread between them, and the diff's
// test counts it, as their intervals do. The first pair of each setting
// has none yet, and is judged by its generations alone.
func TestDiffAA(t *testing.T) {
	needBPF(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 for both runtimes")
	}
	diskDir(t)
	type setting struct{ lab, runtime string }
	settings := []setting{{arms.LabModes, "go"}, {arms.LabModes, "python"}, {arms.LabBuffers, "python"}}
	const runs = 5 // four pairs a setting
	out := t.TempDir()
	path := func(s setting, i int) string {
		return filepath.Join(out, s.lab+"-"+s.runtime, fmt.Sprintf("r%d", i))
	}
	// The settings take turns, so each setting's runs are minutes apart,
	// as a user's are.
	for i := 1; i <= runs; i++ {
		for _, s := range settings {
			args := []string{"all", "--lab", s.lab, "--runtime", s.runtime, "-q", "--dir", os.TempDir(), "--out", path(s, i)}
			if code, stdout, stderr := inProcess(args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, whyFailed(stdout, stderr))
			}
		}
	}
	compared, flagged, pairs, counted := 0, 0, 0, 0
	var alarms, storage []string
	for _, s := range settings {
		for i := 1; i < runs; i++ {
			old, cur := path(s, i), path(s, i+1)
			rep := quietDiff(t, old, cur)
			pairs++
			name := fmt.Sprintf("%s %s r%d→r%d", s.lab, s.runtime, i, i+1)
			if rep.BetweenRuns != "" {
				counted++
			}
			for _, a := range rep.Arms {
				switch a.Status {
				case compare.StatusOnlyOld, compare.StatusOnlyNew, compare.StatusFailed, compare.StatusTooFew:
					t.Errorf("%s: %s", name, a.Sentence)
					continue
				case compare.StatusRegressed, compare.StatusImproved:
					flagged++
					alarms = append(alarms, name+": "+a.Sentence)
				case compare.StatusWithStorage:
					storage = append(storage, name+": "+a.Sentence)
				}
				if a.Work == nil || a.Work.Verdict != explain.WorkSame {
					t.Errorf("%s: %s (%s): work %+v, want the same work judged", name, a.Arm, a.Param, a.Work)
				}
				compared++
			}
			if code, _, stderr := inProcess("diff", old, cur, "--gate", "work", "--threshold", "5"); code != 0 {
				t.Errorf("%s: diff --gate work --threshold 5: exit %d: %s", name, code, stderr)
			}
		}
	}
	rate := float64(flagged) / float64(compared)
	t.Logf("A/A: %d of %d arm comparisons flagged (%.1f%%) over %d pairs, %d of them counting the spread between runs", flagged, compared, 100*rate, pairs, counted)
	for _, a := range alarms {
		t.Log(a)
	}
	t.Logf("%d moved with the storage (not counted as changes)", len(storage))
	for _, a := range storage {
		t.Log(a)
	}
	if rate > 0.05 {
		t.Errorf("A/A flagged %.1f%% of arm comparisons, want ≤ 5%%", 100*rate)
	}
	if counted < pairs-len(settings) {
		t.Errorf("%d of %d pairs counted the spread between runs; every pair after a setting's first should", counted, pairs)
	}
}
