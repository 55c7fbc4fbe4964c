//go:build linux

package follow

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/internal/pythons"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
)

// A launched command starts as this test binary re-executed as the
// launcher, as tmpprobe re-executes itself.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == LaunchArg {
		fmt.Fprintln(os.Stderr, "launcher:", RunLauncher(os.Args[2:]))
		os.Exit(127)
	}
	os.Exit(m.Run())
}

// openTrace opens the probe as 'tmpprobe trace' does for a command.
func openTrace(t *testing.T) *probe.Probe {
	return probetest.Open(t, probe.Options{TracePhase: Phase, LaunchPhase: LaunchPhase, AnyDevice: true})
}

// interpreter is python3's binary itself: a pyenv shim forks and execs,
// and the trace would rightly count the shim's syscalls too.
func interpreter(t *testing.T) string {
	t.Helper()
	exe, err := pythons.Python3()
	if err != nil {
		t.Skipf("no python3: %v", err)
	}
	return exe
}

// callsOf counts a syscall's calls among records (its own time, no stage).
func callsOf(recs []results.ClassRecord, class string) uint64 {
	var n uint64
	for _, r := range recs {
		if r.Class == class && r.Stage == "" {
			n += r.Calls
		}
	}
	return n
}

// traceCommand runs argv under a fresh probe and returns the result and
// its arms.
func traceCommand(t *testing.T, spec *Spec, every func(Interval)) (*Result, []results.ArmResult) {
	t.Helper()
	p := openTrace(t)
	res, err := Run(context.Background(), p, p.Cookie, spec, nil, every)
	if err != nil {
		t.Fatalf("%v: %v", spec.Command, err)
	}
	return res, res.Arms(spec.Label())
}

func loop(n int) string { return "import os\nfor _ in range(" + strconv.Itoa(n) + "): os.getppid()\n" }

// A launched command is traced from its execve on, and every call of it
// counts: the launcher's own Go start-up (sigaltstack, clone3, futex)
// does not, and its status comes back as a shell reports it.
func TestRunCommandFromItsExec(t *testing.T) {
	py := interpreter(t)
	res, arms := traceCommand(t, &Spec{Command: []string{py, "-c", loop(1000)}}, nil)
	if n := callsOf(arms[0].Batches[0].Records, "getppid"); n != 1000 || res.ExitCode != 0 || res.Wall <= 0 {
		t.Errorf("getppid %d, exit %d, wall %v: want 1000, 0, some time", n, res.ExitCode, res.Wall)
	}
	_, arms = traceCommand(t, &Spec{Command: []string{"/bin/true"}}, nil)
	recs := arms[0].Batches[0].Records
	if n := callsOf(recs, "execve"); n != 1 {
		t.Errorf("execve %d, want the command's one", n)
	}
	for _, launcher := range []string{"sigaltstack", "clone3", "futex", "rt_sigprocmask"} {
		if n := callsOf(recs, launcher); n != 0 {
			t.Errorf("%s %d: the launcher's own calls counted", launcher, n)
		}
	}
	for script, want := range map[string]int{"exit 3": 3, "kill -TERM $$": 128 + 15} {
		if res, _ := traceCommand(t, &Spec{Command: []string{"sh", "-c", script}}, nil); res.ExitCode != want {
			t.Errorf("sh -c %q: exit %d, want %d", script, res.ExitCode, want)
		}
	}
}

// With Follow, a child's calls are the command's; without, they are not.
func TestRunFollowsChildren(t *testing.T) {
	py := interpreter(t)
	parent := "import subprocess, sys\nsubprocess.run([sys.executable, '-c', " + strconv.Quote(loop(500)) + "], check=True)\n"
	for follow, want := range map[bool]uint64{true: 500, false: 0} {
		_, arms := traceCommand(t, &Spec{Command: []string{py, "-c", parent}, Follow: follow}, nil)
		if n := callsOf(arms[0].Batches[0].Records, "getppid"); n != want {
			t.Errorf("follow %v: getppid %d, want %d", follow, n, want)
		}
	}
}

// A region the command marks is an arm of its own, per entry: its calls,
// not the markers, and samples that add up to it; the whole target has
// every call.
func TestRunMarkedRegion(t *testing.T) {
	py := interpreter(t)
	prog := `import contextlib, os, time
cookie = int(os.environ["TMPPROBE_COOKIE"])
def mark(begin):
    with contextlib.suppress(OSError):
        os.lseek(-1, cookie, 5 << 1 | begin)
for entry in range(3):
    mark(1)
    [os.getppid() for _ in range(100)]
    mark(0)
    time.sleep(0.6 if entry == 0 else 0)
[os.getppid() for _ in range(50)]
`
	res, arms := traceCommand(t, &Spec{Command: []string{py, "-c", prog}}, nil)
	if len(arms) != 2 {
		t.Fatalf("%d arms, want the command and region 5", len(arms))
	}
	whole, region := arms[0], arms[1]
	if n := callsOf(whole.Batches[0].Records, "getppid"); n != 350 || whole.IsRegion() {
		t.Errorf("whole command: getppid %d, region %v; want 350, none", n, whole.Region)
	}
	if !region.IsRegion() || *region.Region != 5 || region.Arm != results.RegionArm(5) || region.Ops != 3 {
		t.Fatalf("region arm %+v: want region 5, three entries", region)
	}
	var entries int
	var getppid, lseek uint64
	for _, b := range region.Batches {
		entries += b.Ops
		getppid += callsOf(b.Records, "getppid")
		lseek += callsOf(b.Records, "lseek")
	}
	// The sleep after the first entry puts it in a sample of its own.
	if entries != 3 || getppid != 300 || lseek != 0 || len(region.Batches) < 2 || len(res.Samples) < 2 {
		t.Errorf("region's rounds: %d entries, getppid %d, lseek %d in %d rounds of %d samples; want 3, 300, 0 in two or more",
			entries, getppid, lseek, len(region.Batches), len(res.Samples))
	}
}

// Intervals are differences of the running totals: they add up to the
// whole, the last one (cut short by the end) included.
func TestRunIntervalsAddUp(t *testing.T) {
	py := interpreter(t)
	var intervals int
	var sum uint64
	_, arms := traceCommand(t, &Spec{Command: []string{py, "-c", loop(300000)}, Interval: 5 * time.Millisecond}, func(iv Interval) {
		intervals++
		sum += callsOf(iv.Records[Phase], "getppid")
		if iv.Length <= 0 || iv.Elapsed < iv.Length {
			t.Errorf("interval %d: length %v at %v", intervals, iv.Length, iv.Elapsed)
		}
	})
	if n := callsOf(arms[0].Batches[0].Records, "getppid"); n != 300000 || sum != n || intervals < 2 {
		t.Errorf("getppid %d, %d over %d intervals: want 300000 in both, over two or more", n, sum, intervals)
	}
}
