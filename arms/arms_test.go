//go:build linux

package arms_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/internal/marker"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
)

// The Go worker is this test binary re-executed with arms.WorkerArg.
func TestMain(m *testing.M) {
	arms.ServeIfWorker()
	if len(os.Args) > 1 && os.Args[1] == "__hammer" {
		hammer(os.Args[2], os.Args[3])
		return
	}
	os.Exit(m.Run())
}

// hammer churns files in dir and issues markers with a cookie that is not
// the run's (but differs from it in one bit), for every phase a run uses.
func hammer(dir, cookie string) {
	c, _ := strconv.ParseUint(cookie, 10, 64)
	path := filepath.Join(dir, "hammer")
	for i := 0; ; i++ {
		fd, err := unix.Open(path, unix.O_CREAT|unix.O_EXCL|unix.O_RDWR, 0o600)
		if err == nil {
			unix.Close(fd)
		}
		unix.Unlink(path)
		phase := uint32(i % 200)
		marker.Begin(c, phase)
		unix.Getppid()
		marker.End(c, phase)
	}
}

func openProbe(t *testing.T) *probe.Probe { return probetest.Open(t, probe.Options{}) }

func python(t *testing.T) arms.Runtime {
	t.Helper()
	path, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	return arms.Runtime{Name: "python", Python: path}
}

// counts are exact calls per op (per round for the buffers lab) by class,
// as strace shows them for the same code (see docs/measuring.md, "Exact counts").
type counts map[string]int

// Classes the allocator of either runtime may or may not call in a given
// batch; they are reported but have no fixed count per op.
var memoryClasses = map[string]bool{"mmap": true, "munmap": true, "mremap": true, "brk": true, "madvise": true}

// goSchedulerFutexes is how many futex calls a Go worker's batch may make
// that are not the arm's: on a loaded machine the Go scheduler now and then
// parks or wakes a thread around sysmon's 10 ms preemption even with one P
// (seen once in a CI run while another tmpprobe ran beside it). They are a
// few a batch, never one per op, so the arm's counts stay exact; more than
// this fails.
const goSchedulerFutexes = 2

// pythonTempfile is what CPython 3.11's tempfile wrapper adds around the fd:
// io.open's fstat, the FIOCLEX and TCGETS ioctls, BufferedRandom's tells.
func pythonWrapped(extra counts, lseeks int) counts {
	c := counts{"ioctl": 2, "newfstatat": 1, "lseek": lseeks, "write": 1, "close": 1}
	for k, v := range extra {
		c[k] = v
	}
	return c
}

// The arms' unlink and rename are os.unlink and os.rename (and the Go
// worker's steps), which make unlinkat and renameat on arm64: the counts
// name the class this architecture makes (arms.UnlinkSyscall).
var modesPython = map[string]counts{
	"TemporaryFile":           pythonWrapped(counts{"openat[tmpfile]": 1}, 4),
	"NamedTemporaryFile":      pythonWrapped(counts{"getpid": 1, "openat[create]": 1, arms.UnlinkSyscall: 1}, 4),
	"NamedTemporaryFile-keep": pythonWrapped(counts{"getpid": 1, "openat[create]": 1, arms.UnlinkSyscall: 1}, 4),
	"mkstemp-unlink-open":     {"getpid": 1, "openat[create]": 1, arms.UnlinkSyscall: 1, "write": 1, "close": 1},
	"mkstemp-close-unlink":    {"getpid": 1, "openat[create]": 1, arms.UnlinkSyscall: 1, "write": 1, "close": 1},
	"mkstemp-fsync":           {"getpid": 1, "openat[create]": 1, arms.UnlinkSyscall: 1, "write": 1, "close": 1, "fsync": 1},
	"mkstemp-fdatasync":       {"getpid": 1, "openat[create]": 1, arms.UnlinkSyscall: 1, "write": 1, "close": 1, "fdatasync": 1},
	"tmpfile-linkat":          {"openat[tmpfile]": 1, "write": 1, "getpid": 1, "linkat": 1, "close": 1, arms.UnlinkSyscall: 1},
	"atomic-replace":          pythonWrapped(counts{"getpid": 1, "openat[create]": 1, "fsync": 1, arms.RenameSyscall: 1}, 4),
}

var modesGo = map[string]counts{
	"TemporaryFile":           {"openat[tmpfile]": 1, "write": 1, "close": 1},
	"NamedTemporaryFile":      {"openat[create]": 1, "write": 1, "close": 1, arms.UnlinkSyscall: 1},
	"NamedTemporaryFile-keep": {"openat[create]": 1, "write": 1, "close": 1, arms.UnlinkSyscall: 1},
	"mkstemp-unlink-open":     {"openat[create]": 1, arms.UnlinkSyscall: 1, "write": 1, "close": 1},
	"mkstemp-close-unlink":    {"openat[create]": 1, "write": 1, "close": 1, arms.UnlinkSyscall: 1},
	"mkstemp-fsync":           {"openat[create]": 1, "write": 1, "fsync": 1, "close": 1, arms.UnlinkSyscall: 1},
	"mkstemp-fdatasync":       {"openat[create]": 1, "write": 1, "fdatasync": 1, "close": 1, arms.UnlinkSyscall: 1},
	"tmpfile-linkat":          {"openat[tmpfile]": 1, "write": 1, "linkat": 1, "close": 1, arms.UnlinkSyscall: 1},
	"atomic-replace":          {"openat[create]": 1, "write": 1, "fsync": 1, "close": 1, arms.RenameSyscall: 1},
}

const (
	chunk    = 64 << 10
	spoolMax = 1 << 20
)

// buffersCounts are per round for size bytes in 64 KiB chunks with a 1 MiB
// spool threshold: n chunks; the spooled file takes the first 17 chunks in
// one write (the rollover) and the other n-17 one each.
func buffersCounts(runtime, arm string, size int) counts {
	n := size / chunk
	spilled := size > spoolMax
	switch runtime + "/" + arm {
	case "python/NamedTemporaryFile":
		return counts{"getpid": 1, "openat[create]": 1, "ioctl": 2, "newfstatat": 1,
			"write": n, "lseek": n + 5, "read": n + 1, "close": 1, arms.UnlinkSyscall: 1}
	case "python/SpooledTemporaryFile":
		if !spilled {
			return counts{}
		}
		return counts{"openat[tmpfile]": 1, "ioctl": 2, "newfstatat": 1,
			"write": n - 16, "lseek": n + 6, "read": n + 1, "close": 1}
	case "go/NamedTemporaryFile":
		return counts{"openat[create]": 1, "write": n, "lseek": 1, "read": n + 1, "close": 1, arms.UnlinkSyscall: 1}
	case "go/SpooledTemporaryFile":
		if !spilled {
			return counts{}
		}
		return counts{"openat[tmpfile]": 1, "write": n - 16, "lseek": 1, "read": n + 1, "close": 1}
	case "python/BytesIO", "go/BytesIO":
		return counts{} // memory only
	}
	return nil
}

// expected is nil for an arm with no expectation.
func expected(rt, lab, arm string, size int) counts {
	switch {
	case lab == arms.LabBuffers:
		return buffersCounts(rt, arm, size)
	case lab == arms.LabModes && rt == "python":
		return modesPython[arm]
	case lab == arms.LabModes && rt == "go":
		return modesGo[arm]
	}
	return nil
}

// An arm added to the catalogue fails here until its counts, checked
// against strace, are written above for both runtimes.
func TestEveryArmHasExpectations(t *testing.T) {
	for _, a := range arms.Catalog {
		for _, rt := range []string{"python", "go"} {
			if expected(rt, a.Lab, a.Name, 0) == nil {
				t.Errorf("%s/%s (%s): no expected counts", a.Lab, a.Name, rt)
			}
		}
	}
}

// allArmsPlan runs every arm for two rounds, each batch calibrated to
// minBatch: the counts per op are exact whatever the batch size.
func allArmsPlan(t *testing.T, rt arms.Runtime, minBatch time.Duration) *arms.Plan {
	return &arms.Plan{
		Arms: arms.Catalog, Runtimes: []arms.Runtime{rt}, Dirs: []string{t.TempDir()},
		Payloads: []int{400}, Sizes: []int{256 << 10, 4 << 20}, Chunk: chunk, SpoolMax: spoolMax,
		Rounds: 2, MinBatch: minBatch, Seed: 1, Baseline: true, BatchTimeout: 2 * time.Minute,
	}
}

// checkExact asserts, for every traced batch, the exact calls of every
// syscall class, that kernel time ≤ wall time, and that nothing failed.
func checkExact(t *testing.T, res []results.ArmResult, wantCases int) {
	t.Helper()
	if len(res) != wantCases {
		t.Fatalf("got %d results, want %d", len(res), wantCases)
	}
	for _, a := range res {
		name := fmt.Sprintf("%s/%s/%s/%s", a.Runtime, a.Lab, a.Arm, a.Param())
		if a.Error != "" {
			t.Errorf("%s failed: %s\n%s", name, a.Error, a.Stderr)
			continue
		}
		want := expected(a.Runtime, a.Lab, a.Arm, a.SizeBytes)
		if want == nil {
			t.Errorf("%s: no expectation", name)
			continue
		}
		traced := 0
		for _, b := range a.Batches {
			if !b.Traced {
				continue
			}
			traced++
			got := map[string]uint64{}
			var kernel uint64
			for _, r := range b.Records {
				if r.Stage != "" || r.Class == "user" {
					continue
				}
				got[r.Class] = r.Calls
				kernel += r.TotalNs
			}
			for class, n := range want {
				if got[class] != uint64(n*b.Ops) {
					t.Errorf("%s batch %d: %s = %d calls, want %d (%d/op)", name, b.Phase, class, got[class], n*b.Ops, n)
				}
			}
			var extra []string
			for class, n := range got {
				if _, ok := want[class]; ok || memoryClasses[class] {
					continue
				}
				if class == "futex" && a.Runtime == "go" && n <= goSchedulerFutexes {
					t.Logf("%s batch %d: the Go scheduler's futex=%d (%d ops)", name, b.Phase, n, b.Ops)
					continue
				}
				extra = append(extra, fmt.Sprintf("%s=%d", class, n))
			}
			if len(extra) > 0 {
				sort.Strings(extra)
				t.Errorf("%s batch %d: unexpected classes %s", name, b.Phase, strings.Join(extra, " "))
			}
			if kernel > uint64(b.WallNs) {
				t.Errorf("%s batch %d: kernel %d ns > wall %d ns", name, b.Phase, kernel, b.WallNs)
			}
		}
		if traced == 0 {
			t.Errorf("%s: no traced batch", name)
		}
	}
}

func runPlan(t *testing.T, p *probe.Probe, plan *arms.Plan) []results.ArmResult {
	t.Helper()
	return runPlanWatched(t, p, plan, nil)
}

// runPlanWatched is runPlan with progress handed to watch.
func runPlanWatched(t *testing.T, p *probe.Probe, plan *arms.Plan, watch func(arms.Progress)) []results.ArmResult {
	t.Helper()
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	r := &arms.Runner{Tracer: p, Cookie: p.Cookie, Progress: watch}
	res, err := r.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	drops, err := p.Drops()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range drops {
		if v != 0 {
			t.Errorf("probe dropped %d events (%s)", v, k)
		}
	}
	return res
}

func TestExactCountsPython(t *testing.T) {
	p := openProbe(t)
	plan := allArmsPlan(t, python(t), 5*time.Millisecond)
	checkExact(t, runPlan(t, p, plan), len(plan.Cases()))
}

func TestExactCountsGo(t *testing.T) {
	p := openProbe(t)
	plan := allArmsPlan(t, arms.Runtime{Name: "go"}, 5*time.Millisecond)
	checkExact(t, runPlan(t, p, plan), len(plan.Cases()))
}

// Another process churning files in the same directory and issuing markers
// with a wrong cookie changes no count.
func TestOtherProcessesDoNotCount(t *testing.T) {
	p := openProbe(t)
	plan := allArmsPlan(t, arms.Runtime{Name: "go"}, 5*time.Millisecond)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var hammers []*exec.Cmd
	for _, wrong := range []uint64{p.Cookie ^ 1, p.Cookie ^ (1 << 40)} {
		h := exec.Command(exe, "__hammer", plan.Dirs[0], strconv.FormatUint(wrong, 10))
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		hammers = append(hammers, h)
	}
	defer func() {
		for _, h := range hammers {
			h.Process.Kill()
			h.Wait()
		}
	}()
	checkExact(t, runPlan(t, p, plan), len(plan.Cases()))
}

// Two runs at once, each with its own probe and cookie, both count exactly:
// neither sees the other's markers or syscalls.
func TestTwoRunsAtOnce(t *testing.T) {
	p1, p2 := openProbe(t), openProbe(t)
	if p1.Cookie == p2.Cookie {
		t.Fatal("two probes got the same cookie")
	}
	plan1 := allArmsPlan(t, arms.Runtime{Name: "go"}, 5*time.Millisecond)
	plan2 := allArmsPlan(t, arms.Runtime{Name: "go"}, 5*time.Millisecond)
	done := make(chan []results.ArmResult)
	go func() { done <- runPlanQuiet(t, p2, plan2) }()
	res1 := runPlan(t, p1, plan1)
	res2 := <-done
	checkExact(t, res1, len(plan1.Cases()))
	checkExact(t, res2, len(plan2.Cases()))
}

// runPlanQuiet is runPlan for a goroutine: errors are reported, not fatal.
func runPlanQuiet(t *testing.T, p *probe.Probe, plan *arms.Plan) []results.ArmResult {
	if err := p.Attach(); err != nil {
		t.Error(err)
		return nil
	}
	res, err := (&arms.Runner{Tracer: p, Cookie: p.Cookie}).Run(context.Background(), plan)
	if err != nil {
		t.Error(err)
	}
	return res
}

// workerPids lists this test process's live worker children.
func workerPids(t *testing.T) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		proc, err := follow.ReadProc(pid)
		cmdline, err2 := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || err2 != nil {
			continue
		}
		if proc.State != 'Z' && proc.PPID == os.Getpid() && strings.Contains(string(cmdline), arms.WorkerArg) {
			out = append(out, pid)
		}
	}
	return out
}

func measured(a results.ArmResult) (untraced, traced map[int]bool) {
	untraced, traced = map[int]bool{}, map[int]bool{}
	for _, b := range a.Batches {
		if b.Kind != results.BatchMeasured {
			continue
		}
		if b.Traced {
			traced[b.Round] = true
		} else {
			untraced[b.Round] = true
		}
	}
	return untraced, traced
}

// Each case calibrates its batch until one lasts at least --min-batch,
// then runs one warm-up batch of that size; every measured batch has it.
func TestCalibration(t *testing.T) {
	p := openProbe(t)
	sel, _ := arms.Select([]string{"TemporaryFile", "mkstemp-fsync", "BytesIO"}, nil)
	min := 30 * time.Millisecond
	plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{{Name: "go"}}, Dirs: []string{t.TempDir()},
		Payloads: []int{400}, Sizes: []int{256 << 10}, Chunk: chunk, SpoolMax: spoolMax,
		Rounds: 2, MinBatch: min, Seed: 3, Baseline: true, BatchTimeout: time.Minute}
	for _, a := range runPlan(t, p, plan) {
		if a.Error != "" {
			t.Fatalf("%s: %s", a.Arm, a.Error)
		}
		var cal []results.Batch
		i := 0
		for ; i < len(a.Batches) && a.Batches[i].Kind == results.BatchCalibrate; i++ {
			cal = append(cal, a.Batches[i])
		}
		if len(cal) < 2 || i == len(a.Batches) {
			t.Fatalf("%s: %d calibration batches of %d, want at least two (the first is cold)", a.Arm, len(cal), len(a.Batches))
		}
		last := cal[len(cal)-1]
		if time.Duration(last.WallNs) < min || last.Ops != a.Ops {
			t.Errorf("%s: calibration ended at %d ops in %v, the run uses %d ops; want ≥ %v at the run's size",
				a.Arm, last.Ops, time.Duration(last.WallNs), a.Ops, min)
		}
		for _, b := range cal[1 : len(cal)-1] {
			if time.Duration(b.WallNs) >= min {
				t.Errorf("%s: calibration went on after %d ops took %v", a.Arm, b.Ops, time.Duration(b.WallNs))
			}
		}
		if w := a.Batches[i]; w.Kind != results.BatchWarmup || w.Ops != a.Ops || w.Traced {
			t.Errorf("%s: after calibration %+v, want an untraced warm-up of %d ops", a.Arm, w, a.Ops)
		}
		for _, b := range a.Batches {
			if b.Kind != results.BatchMeasured && b.Traced {
				t.Errorf("%s: a traced %s batch", a.Arm, b.Kind)
			}
			if b.Kind == results.BatchMeasured && b.Ops != a.Ops {
				t.Errorf("%s round %d: %d ops, want %d", a.Arm, b.Round, b.Ops, a.Ops)
			}
		}
		untraced, traced := measured(a)
		if len(untraced) != 2 || len(traced) != 2 {
			t.Errorf("%s: rounds untraced %v traced %v, want 1 and 2 of each", a.Arm, untraced, traced)
		}
	}
}

// A first batch that already lasts --min-batch does not end calibration
// (the first ops of a case are cold): with a goal every batch meets, the
// case calibrates at one op, then two, and runs two a batch.
func TestCalibrationSkipsTheColdFirstBatch(t *testing.T) {
	p := openProbe(t)
	sel, _ := arms.Select([]string{"TemporaryFile"}, nil)
	plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{{Name: "go"}}, Dirs: []string{t.TempDir()},
		Payloads: []int{400}, Chunk: chunk, SpoolMax: spoolMax,
		Rounds: 1, MinBatch: time.Nanosecond, Seed: 3, Baseline: true, BatchTimeout: time.Minute}
	for _, a := range runPlan(t, p, plan) {
		var cal []int
		for _, b := range a.Batches {
			if b.Kind == results.BatchCalibrate {
				cal = append(cal, b.Ops)
			}
		}
		if fmt.Sprint(cal) != "[1 2]" || a.Ops != 2 {
			t.Errorf("%s: calibration batches of %v ops, run at %d; want [1 2] and 2", a.Arm, cal, a.Ops)
		}
	}
}

// A worker killed mid-round fails its own case; every other case still
// runs every round.
func TestWorkerDiesMidRound(t *testing.T) {
	p := openProbe(t)
	plan := allArmsPlan(t, arms.Runtime{Name: "go"}, 2*time.Millisecond)
	plan.Rounds = 4
	killed := 0
	r := &arms.Runner{Tracer: p, Cookie: p.Cookie, Progress: func(pr arms.Progress) {
		if pr.Stage == arms.StageRound && pr.Round == 2 && pr.Done == 3 && killed == 0 {
			pids := workerPids(t)
			if len(pids) == 0 {
				t.Error("no worker to kill")
				return
			}
			killed = pids[0]
			syscall.Kill(killed, syscall.SIGKILL)
		}
	}}
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, a := range res {
		untraced, traced := measured(a)
		if a.Error != "" {
			failed++
			if len(untraced) >= 4 && len(traced) >= 4 || !strings.Contains(a.Error, "worker exited") {
				t.Errorf("%s failed with %q after rounds %v/%v: want it cut short by the kill", a.Arm, a.Error, untraced, traced)
			}
			continue
		}
		if len(untraced) != 4 || len(traced) != 4 {
			t.Errorf("%s/%s: rounds untraced %v traced %v, want all 4 of each", a.Arm, a.Param(), untraced, traced)
		}
	}
	if killed == 0 || failed != 1 {
		t.Errorf("killed pid %d, %d cases failed: want exactly the killed one", killed, failed)
	}
	if left := workerPids(t); len(left) > 0 {
		t.Errorf("workers %v still running after the run", left)
	}
}

// Cancelled between rounds (Ctrl-C), the run stops, keeps the rounds it
// finished, and leaves no worker and no work dir behind.
func TestInterruptBetweenRounds(t *testing.T) {
	p := openProbe(t)
	plan := allArmsPlan(t, arms.Runtime{Name: "go"}, 2*time.Millisecond)
	plan.Rounds = 5
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &arms.Runner{Tracer: p, Cookie: p.Cookie, Progress: func(pr arms.Progress) {
		if pr.Stage == arms.StageRound && pr.Round == 2 && pr.Done == pr.Total {
			cancel()
		}
	}}
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(ctx, plan)
	if !errors.Is(err, arms.ErrInterrupted) {
		t.Fatalf("Run: %v, want interrupted", err)
	}
	for _, a := range res {
		untraced, traced := measured(a)
		if a.Error != "" || len(untraced) != 2 || len(traced) != 2 {
			t.Errorf("%s/%s: error %q, rounds untraced %v traced %v: want rounds 1–2 kept, no error",
				a.Arm, a.Param(), a.Error, untraced, traced)
		}
	}
	if entries, _ := os.ReadDir(plan.Dirs[0]); len(entries) != 0 {
		t.Errorf("left %d entries in the work dir", len(entries))
	}
	if left := workerPids(t); len(left) > 0 {
		t.Errorf("workers %v still running", left)
	}
}

// Every --worker-rounds rounds fresh workers take over, each with a
// warm-up batch: run.json says which generation ran each measured batch,
// the unit of the intervals, and the warm-ups agree with it.
func TestGenerations(t *testing.T) {
	p := openProbe(t)
	sel, _ := arms.Select([]string{"TemporaryFile", "mkstemp-close-unlink"}, nil)
	plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{{Name: "go"}}, Dirs: []string{t.TempDir()},
		Payloads: []int{400}, Chunk: chunk, SpoolMax: spoolMax, Ops: 20,
		Rounds: 5, Seed: 3, Baseline: true, BatchTimeout: time.Minute, WorkerRounds: 2}
	if d := plan.Describe(); d.WorkerRounds != 2 {
		t.Errorf("protocol %+v, want worker_rounds 2", d)
	}
	for _, a := range runPlan(t, p, plan) {
		if a.Error != "" {
			t.Fatalf("%s: %s", a.Arm, a.Error)
		}
		warmups, rounds := 0, map[int]int{}
		for _, b := range a.Batches {
			if b.Kind == results.BatchWarmup {
				warmups++
			}
			if !b.Measured() {
				continue
			}
			if want := (b.Round-1)/2 + 1; b.Generation != want || b.Generation != warmups {
				t.Errorf("%s round %d: generation %d after %d warm-ups, want %d", a.Arm, b.Round, b.Generation, warmups, want)
			}
			rounds[b.Round]++
		}
		if len(rounds) != 5 || warmups != 3 {
			t.Errorf("%s: %d rounds, %d warm-ups; want 5 rounds in 3 generations", a.Arm, len(rounds), warmups)
		}
	}
}
