//go:build linux

package arms_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/results"
)

// pythons lists the Python processes below this test: each fork server
// (a child of the test, "serve" its argument) with the workers it forked,
// and the workers the test exec'd itself.
func pythons(t *testing.T) (servers map[int][]int, execd []int) {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	parent := map[int]int{}
	argv := map[int][]string{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		proc, err := follow.ReadProc(pid)
		cmdline, err2 := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || err2 != nil || proc.State == 'Z' {
			continue
		}
		parent[pid], argv[pid] = proc.PPID, strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	}
	servers = map[int][]int{}
	for pid, ppid := range parent {
		if ppid == os.Getpid() && slices.Contains(argv[pid], "serve") {
			servers[pid] = servers[pid][:0:0]
		}
	}
	for pid, ppid := range parent {
		if _, ok := servers[ppid]; ok {
			servers[ppid] = append(servers[ppid], pid)
		} else if ppid == os.Getpid() && len(argv[pid]) > 1 && argv[pid][1] == "-I" && !slices.Contains(argv[pid], "serve") {
			execd = append(execd, pid)
		}
	}
	return servers, execd
}

// Every generation's Python workers are forked from one fork server of
// its own, a fresh interpreter: each round (a generation here) runs in
// workers no other round ran in, each worker the child of that
// generation's server, and beside it only the next generation's server,
// with no worker yet.
func TestPythonWorkersForkedPerGeneration(t *testing.T) {
	p := openProbe(t)
	sel, _ := arms.Select([]string{"TemporaryFile", "mkstemp-close-unlink"}, nil)
	plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{python(t)}, Dirs: []string{t.TempDir()},
		Payloads: []int{400}, Chunk: chunk, SpoolMax: spoolMax, Ops: 5,
		Rounds: 3, Seed: 3, Baseline: true, BatchTimeout: time.Minute, WorkerRounds: 1}
	type generation struct {
		server  int
		workers []int
		idle    int // servers without workers
		execd   int
	}
	var gens []generation
	res := runPlanWatched(t, p, plan, func(pr arms.Progress) {
		if pr.Stage != arms.StageRound || pr.Done != 1 {
			return
		}
		servers, execd := pythons(t)
		g := generation{execd: len(execd)}
		for s, w := range servers {
			if len(w) == 0 {
				g.idle++
				continue
			}
			if g.server != 0 {
				t.Errorf("round %d: two servers with workers, %d and %d", pr.Round, g.server, s)
			}
			g.server, g.workers = s, w
		}
		gens = append(gens, g)
	})
	for _, a := range res {
		if a.Error != "" {
			t.Fatalf("%s: %s (%s)", a.Arm, a.Error, a.Stderr)
		}
	}
	if len(gens) != plan.Rounds {
		t.Fatalf("%d generations seen, want %d", len(gens), plan.Rounds)
	}
	seen := map[int]bool{}
	for i, g := range gens {
		if g.server == 0 || len(g.workers) != 2 || g.execd != 0 || g.idle > 1 {
			t.Errorf("generation %d: server %d with workers %v, %d idle servers, %d workers exec'd; want one server with both workers, at most the next one idle, none exec'd",
				i+1, g.server, g.workers, g.idle, g.execd)
		}
		for _, pid := range append([]int{g.server}, g.workers...) {
			if seen[pid] {
				t.Errorf("generation %d: process %d ran in an earlier generation", i+1, pid)
			}
			seen[pid] = true
		}
	}
	if servers, execd := pythons(t); len(servers)+len(execd) > 0 {
		t.Errorf("after the run: servers %v, workers %v still running", servers, execd)
	}
}

// oldPython finds an interpreter before Python 3.9, which has no
// os.pidfd_open and cannot run a fork server.
func oldPython(t *testing.T) arms.Runtime {
	t.Helper()
	candidates := []string{"python3.8", "python3.7", "python3.6"}
	root := os.Getenv("PYENV_ROOT")
	if root == "" {
		root = filepath.Join(os.Getenv("HOME"), ".pyenv")
	}
	for _, v := range []string{"3.8", "3.7", "3.6"} {
		found, _ := filepath.Glob(filepath.Join(root, "versions", v+".*", "bin", "python"+v))
		candidates = append(candidates, found...)
	}
	for _, c := range candidates {
		if rt, err := arms.FindPython(context.Background(), c, time.Minute); err == nil && rt.Version < "3.9" {
			return rt
		}
	}
	t.Skip("no Python before 3.9 found")
	return arms.Runtime{}
}

// An interpreter that cannot run a fork server runs its workers as
// before: each its own interpreter, exec'd by tmpprobe, and the run is
// complete.
func TestOldPythonExecsItsWorkers(t *testing.T) {
	rt := oldPython(t)
	p := openProbe(t)
	sel, _ := arms.Select([]string{"TemporaryFile", "mkstemp-close-unlink"}, nil)
	plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{rt}, Dirs: []string{t.TempDir()},
		Payloads: []int{400}, Chunk: chunk, SpoolMax: spoolMax, Ops: 5,
		Rounds: 2, Seed: 3, Baseline: true, BatchTimeout: time.Minute, WorkerRounds: 1}
	execd := 0
	res := runPlanWatched(t, p, plan, func(pr arms.Progress) {
		if pr.Stage == arms.StageRound && pr.Done == 1 {
			_, e := pythons(t)
			execd = max(execd, len(e))
		}
	})
	for _, a := range res {
		untraced, traced := measured(a)
		if a.Error != "" || len(untraced) != 2 || len(traced) != 2 {
			t.Errorf("Python %s, %s: %d untraced and %d traced rounds, error %q (%s)", rt.Version, a.Arm, len(untraced), len(traced), a.Error, a.Stderr)
		}
	}
	if execd != 2 {
		t.Errorf("Python %s: %d workers exec'd by the test, want 2", rt.Version, execd)
	}
}

// --until: with every interval allowed to be ten times its median, a run
// stops as soon as its intervals are bounded, at six generations (six
// rounds in generations of one), not at the 40 rounds of its cap; each
// case ran those six, and the protocol records the width.
func TestUntilStopsOnceTheIntervalsAreNarrow(t *testing.T) {
	p := openProbe(t)
	sel, _ := arms.Select([]string{"TemporaryFile", "mkstemp-close-unlink"}, nil)
	plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{{Name: "go"}}, Dirs: []string{t.TempDir()},
		Payloads: []int{400}, Chunk: chunk, SpoolMax: spoolMax, Ops: 20,
		Rounds: 40, Seed: 3, Baseline: true, BatchTimeout: time.Minute, WorkerRounds: 1, Until: 10}
	if d := plan.Describe(); d.Until != 10 || d.Rounds != 40 || d.FreshWarmup != arms.FreshWarmup {
		t.Errorf("protocol %+v, want until 10 of 40 rounds, fresh warm-ups of %v", d, arms.FreshWarmup)
	}
	for _, a := range runPlan(t, p, plan) {
		untraced, traced := measured(a)
		if a.Error != "" || len(untraced) != results.MinRoundsForCI || len(traced) != results.MinRoundsForCI {
			t.Errorf("%s: %d untraced and %d traced rounds (%s), want %d each", a.Arm, len(untraced), len(traced), a.Error, results.MinRoundsForCI)
		}
	}
}

// #37: a fork server that stops answering (SIGSTOP here: it reports no
// worker's exit, forks nothing, never exits) hung the run past
// --arm-timeout, and the first Ctrl-C did nothing. Every wait on it is
// bounded: with a 2 s --arm-timeout the run ends by itself, and with a
// 5-minute one the run ends within 5 s of its context's end; either way
// nothing is left running or stopped.
func TestStoppedForkServerEndsTheRun(t *testing.T) {
	rt := python(t)
	for _, c := range []struct {
		name    string
		timeout time.Duration
		cancel  bool
	}{{"--arm-timeout 2s", 2 * time.Second, false}, {"first Ctrl-C", 5 * time.Minute, true}} {
		sel, _ := arms.Select([]string{"TemporaryFile"}, nil)
		plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{rt}, Dirs: []string{t.TempDir()},
			Payloads: []int{400}, Chunk: chunk, SpoolMax: spoolMax, Ops: 5,
			Rounds: 4, Seed: 3, Baseline: true, BatchTimeout: c.timeout, WorkerRounds: 1}
		ctx, cancel := context.WithCancel(context.Background())
		var stopped []int
		var cancelled time.Time
		r := &arms.Runner{Progress: func(pr arms.Progress) {
			if pr.Stage != arms.StageRound || pr.Round != 1 || pr.Done != 1 || stopped != nil {
				return
			}
			servers, _ := pythons(t)
			for pid := range servers {
				syscall.Kill(pid, syscall.SIGSTOP)
				stopped = append(stopped, pid)
			}
			if c.cancel {
				cancelled = time.Now()
				cancel()
			}
		}}
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.Run(ctx, plan)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			t.Fatalf("%s: the run still waits on its stopped fork servers %v after 2 minutes", c.name, stopped)
		}
		cancel()
		if len(stopped) == 0 {
			t.Fatalf("%s: no fork server was running to stop", c.name)
		}
		if c.cancel && time.Since(cancelled) > 5*time.Second {
			t.Errorf("%s: the run ended %v after its context did, want within 5 s", c.name, time.Since(cancelled).Round(time.Millisecond))
		}
		for _, pid := range stopped {
			if alive(pid) {
				t.Errorf("%s: the stopped fork server %d is still there", c.name, pid)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if servers, execd := pythons(t); len(servers)+len(execd) > 0 {
			t.Errorf("%s: after the run: servers %v, workers %v still running", c.name, servers, execd)
		}
	}
}

// alive: the process exists and has not been reaped.
func alive(pid int) bool {
	p, err := follow.ReadProc(pid)
	return err == nil && p.State != 'Z'
}
