//go:build linux

package follow

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// userOf is the user class's record among recs: its measured time on a
// CPU (TotalNs) and off it (OffCPUNs) outside syscalls.
func userOf(recs []results.ClassRecord) results.ClassRecord {
	for _, r := range recs {
		if r.Class == results.ClassUser && r.Stage == "" {
			return r
		}
	}
	return results.ClassRecord{}
}

// User time is measured per thread: two threads spinning in parallel
// have twice the user time of one, which wall time minus syscall time
// cannot say. The kernel's own account (getrusage, by ticks) is the
// reference.
func TestUserTimeOfParallelThreads(t *testing.T) {
	py := interpreter(t)
	out := filepath.Join(t.TempDir(), "rusage")
	prog := `import resource, sys, threading, time
def spin():
    x = 0
    while time.thread_time() < 0.4:
        for i in range(2000):
            x += i
ts = [threading.Thread(target=spin) for _ in range(2)]
for t in ts: t.start()
for t in ts: t.join()
with open(sys.argv[1], "w") as f:
    f.write(str(int(resource.getrusage(resource.RUSAGE_SELF).ru_utime * 1e9)))
`
	_, arms := traceCommand(t, &Spec{Command: []string{py, "-c", prog, out}}, nil)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rusage, _ := strconv.ParseFloat(string(b), 64)
	user := float64(userOf(arms[0].Batches[0].Records).TotalNs)
	t.Logf("traced user time %.0f ms, getrusage %.0f ms", user/1e6, rusage/1e6)
	if rusage < 0.6e9 || user < 0.8*rusage || user > 1.2*rusage {
		t.Errorf("traced user time %.0f ms, getrusage %.0f ms: want within 20%% (and two threads' 400 ms each)", user/1e6, rusage/1e6)
	}
}

// A process followed while it sleeps in a syscall: the call began before
// the trace, so none of its time is counted, user time least of all, and
// the run notes which call it was.
func TestTracePidInsideASyscall(t *testing.T) {
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleep.Wait()
	defer sleep.Process.Kill()
	pid := sleep.Process.Pid
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/syscall")
		if f := strings.Fields(string(b)); len(f) > 0 && f[0] != "running" && f[0] != "-1" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sleep never blocked in a syscall (%q)", b)
		}
	}
	p := openTrace(t)
	spec := &Spec{PIDs: []int{pid}, Duration: 2 * time.Second}
	res, err := Run(context.Background(), p, p.Cookie, spec, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	user := userOf(res.Arms(spec.Label())[0].Batches[0].Records)
	if limit := uint64(res.Wall.Nanoseconds() / 20); user.TotalNs > limit || user.OffCPUNs > limit {
		t.Errorf("user time %d ns on the CPU, %d off it, in a %v trace of a sleep: want under 5%% of it", user.TotalNs, user.OffCPUNs, res.Wall)
	}
	if len(res.InFlight) != 1 {
		t.Fatalf("notes %+v: want the sleep's one call in flight", res.InFlight)
	}
	n := res.InFlight[0]
	if n.Kind != results.NoteInFlight || (n.Syscall != "nanosleep" && n.Syscall != "clock_nanosleep") ||
		n.What != "tid "+strconv.Itoa(pid)+" (sleep)" {
		t.Errorf("note %+v: want tid %d (sleep) inside nanosleep or clock_nanosleep", n, pid)
	}
}

// The target's threads and children are the target: one taking the CPU
// from another is no neighbour of it, however often (three threads and
// a child spinning on two CPUs preempt each other all the time).
func TestTargetIsNoNeighbourOfItself(t *testing.T) {
	py := interpreter(t)
	pids := filepath.Join(t.TempDir(), "pids")
	prog := `import os, subprocess, sys, threading, time
def spin():
    end = time.thread_time() + 0.3
    while time.thread_time() < end:
        pass
child = subprocess.Popen([sys.executable, "-c", "import time\nend = time.thread_time() + 0.3\nwhile time.thread_time() < end: pass"])
with open(sys.argv[1], "w") as f:
    f.write("%d %d" % (os.getpid(), child.pid))
ts = [threading.Thread(target=spin) for _ in range(3)]
for t in ts: t.start()
for t in ts: t.join()
child.wait()
`
	res, _ := traceCommand(t, &Spec{Command: []string{py, "-c", prog, pids}, Follow: true}, nil)
	b, err := os.ReadFile(pids)
	if err != nil {
		t.Fatal(err)
	}
	own := map[uint32]bool{}
	for _, f := range strings.Fields(string(b)) {
		pid, _ := strconv.Atoi(f)
		own[uint32(pid)] = true
	}
	var preemptions uint64
	for _, n := range res.Neighbours {
		if own[n.PID] {
			t.Errorf("neighbour %+v: the target's own process (%q)", n, b)
		}
		preemptions += n.Count
	}
	if len(own) != 2 {
		t.Fatalf("the target said its pids %q", b)
	}
	t.Logf("%d preemptions by %d neighbours", preemptions, len(res.Neighbours))
}
