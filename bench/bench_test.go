//go:build linux

// Package bench measures tmpprobe's own cost: the observer effect on each
// arm (traced ÷ untraced ops/s in one run), the probe's cost per syscall,
// and tmpprobe's memory as ops grow. `make bench` runs it as root; every
// figure is a ratio or a per-call cost measured in the same run.
package bench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/sudotest"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/rounds"
)

func TestMain(m *testing.M) {
	arms.ServeIfWorker()
	sudotest.Forget() // root's own runs, in root's temp dirs (make bench's sudo)
	os.Exit(m.Run())
}

func openProbe(b *testing.B) *probe.Probe { return probetest.Open(b, probe.Options{}) }

// needRoot skips a benchmark that runs tmpprobe itself, as root.
func needRoot(b *testing.B) {
	if os.Geteuid() != 0 {
		b.Skip("needs root")
	}
}

// needRootAndPython skips one that runs the Python arms too.
func needRootAndPython(b *testing.B) {
	needRoot(b)
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("needs python3")
	}
}

// buildTmpprobe builds the command into a temp dir. -buildvcs=false: under
// sudo this runs as root in a checkout someone else owns, which git (and
// so the build's VCS stamp) refuses as dubious ownership.
func buildTmpprobe(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "tmpprobe")
	if out, err := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "../cmd/tmpprobe").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// BenchmarkObserverEffect runs the modes arms in rounds, each an
// untraced and a traced batch of every arm, and reports traced ÷ untraced
// ops/s per arm: the median of the per-round ratios and its interval.
func BenchmarkObserverEffect(b *testing.B) {
	p := openProbe(b)
	rts := []arms.Runtime{{Name: "go"}}
	if py, err := exec.LookPath("python3"); err == nil {
		rts = append([]arms.Runtime{{Name: "python", Python: py}}, rts...)
	}
	sel, _ := arms.Select(nil, []string{arms.LabModes})
	plan := &arms.Plan{Arms: sel, Runtimes: rts, Dirs: []string{b.TempDir()}, Payloads: []int{400},
		MinBatch: arms.DefaultMinBatch, Seed: rounds.NewSeed(), Baseline: true, BatchTimeout: 5 * time.Minute}
	r := &arms.Runner{Tracer: p, Cookie: p.Cookie}
	res, err := r.Run(context.Background(), plan)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("\nobserver effect (traced ÷ untraced ops/s: median of %d paired rounds [95%% CI])\n", plan.RoundsFor(""))
	fmt.Printf("%-8s %-24s %10s %10s %18s %9s\n", "RUNTIME", "ARM", "untraced", "traced", "RATIO [95% CI]", "syscalls")
	for _, s := range results.SummarizeAll(&results.Run{Protocol: plan.Describe(), Arms: res}, arms.Knowledge().Baselines) {
		var calls float64
		for _, c := range s.Classes {
			if c.IsSyscall() {
				calls += c.CallsPerOp
			}
		}
		o := s.Observer
		fmt.Printf("%-8s %-24s %10.0f %10.0f %6.2f [%.2f–%.2f] %9.1f\n", s.Runtime, s.Arm, s.OpsPerS.Center, s.TracedOpsPerS,
			o.Center, o.Lo, o.Hi, calls)
		if s.Runtime == "python" && s.Arm == "TemporaryFile" {
			b.ReportMetric(o.Center, "traced/untraced(py-TemporaryFile)")
		}
	}
}

// BenchmarkSyscallCost reports what one syscall costs with the probe
// detached, attached but outside a region, and inside one.
func BenchmarkSyscallCost(b *testing.B) {
	p := openProbe(b)
	c, err := p.Calibrate(200000)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Printf("\ngetppid: detached %v, attached+inactive %v (+%v), active %v (+%v)\n",
		c.Detached, c.Inactive, c.Inactive-c.Detached, c.Active, c.Active-c.Detached)
	b.ReportMetric(float64(c.Inactive-c.Detached), "ns/syscall-inactive")
	b.ReportMetric(float64(c.Active-c.Detached), "ns/syscall-active")
}

// BenchmarkMemory runs tmpprobe at 1e3 and 1e6 ops per batch and compares
// its peak RSS: aggregation stays in the kernel, so it must stay flat, and
// 1000 times the ops may not cost half as much memory again.
func BenchmarkMemory(b *testing.B) {
	needRoot(b)
	bin := buildTmpprobe(b)
	dir := "/dev/shm"
	if _, err := os.Stat(dir); err != nil {
		dir = b.TempDir()
	}
	// VmHWM of tmpprobe itself, sampled until it exits: rusage of a waited
	// child would fold in its worker, which it reaps.
	rss := func(ops int) int64 {
		cmd := exec.Command(bin, "run", "TemporaryFile", "--runtime", "go", "--rounds", "1",
			"--no-baseline", "-q", "--dir", dir, "--ops", fmt.Sprint(ops))
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var hwm int64
		for {
			if v := vmHWM(cmd.Process.Pid); v > hwm {
				hwm = v
			}
			select {
			case err := <-done:
				if err != nil {
					b.Fatalf("%v: %v", cmd.Args, err)
				}
				return hwm
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	small, large := rss(1000), rss(1000000)
	if small == 0 || large == 0 {
		b.Fatalf("no peak RSS sampled (%d KiB at 1e3 ops, %d KiB at 1e6): tmpprobe exited before the first sample", small, large)
	}
	growth := float64(large) / float64(small)
	fmt.Printf("\ntmpprobe peak RSS: %d KiB at 1e3 ops, %d KiB at 1e6 ops (×%.2f)\n", small, large, growth)
	b.ReportMetric(growth, "rss-1e6/1e3")
	if growth > maxRSSGrowth {
		b.Errorf("peak RSS grew ×%.2f from 1e3 to 1e6 ops per batch (%d → %d KiB), more than ×%.1f: something grows with the ops in user space",
			growth, small, large, maxRSSGrowth)
	}
}

// maxRSSGrowth bounds BenchmarkMemory's ratio: the Go runtime's heap
// moves by a few MiB from run to run; a per-op buffer would be ×100.
const maxRSSGrowth = 1.5

// vmHWM is a process's peak resident set in KiB, 0 once it is gone.
func vmHWM(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(v), "%d", &kb)
			return kb
		}
	}
	return 0
}

// BenchmarkNeighbourCost measures what counting neighbours costs: the
// observer effect (traced ÷ untraced ops/s, paired per round, 40 rounds
// in 10 worker generations as a run has them) of the Go modes arms with
// the probe as built, and with its neighbour accounting compiled out by
// the verifier (probe.Options.NoNeighbours), two runs of each,
// alternated. It reports, per arm, the observer effect with and
// without, and their ratio (1.00: free).
func BenchmarkNeighbourCost(b *testing.B) {
	sel, _ := arms.Select(nil, []string{arms.LabModes})
	observer := func(no bool) map[string]results.Estimate {
		p := probetest.Open(b, probe.Options{NoNeighbours: no})
		defer p.Close()
		plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{{Name: "go"}}, Dirs: []string{b.TempDir()}, Payloads: []int{400},
			Rounds: arms.DefaultRounds, WorkerRounds: arms.DefaultWorkerRounds, MinBatch: arms.DefaultMinBatch, Seed: rounds.NewSeed(), Baseline: true,
			BatchTimeout: 5 * time.Minute}
		r := &arms.Runner{Tracer: p, Cookie: p.Cookie}
		res, err := r.Run(context.Background(), plan)
		if err != nil {
			b.Fatal(err)
		}
		out := map[string]results.Estimate{}
		for _, s := range results.SummarizeAll(&results.Run{Protocol: plan.Describe(), Arms: res}, arms.Knowledge().Baselines) {
			out[s.Arm] = s.Observer
		}
		return out
	}
	var with, without []map[string]results.Estimate
	for range 2 {
		without = append(without, observer(true))
		with = append(with, observer(false))
	}
	fmt.Printf("\nneighbour accounting: observer effect (traced ÷ untraced ops/s, median of 40 paired rounds, interval over their 10 worker generations [95%% CI]), two runs each\n")
	fmt.Printf("%-24s %-32s %-32s %-12s %s\n", "ARM", "with neighbours", "without", "with÷without", "HELD")
	var ratios []float64
	heldAll, pairsAll := 0, 0
	for _, a := range sel {
		var w, wo []string
		var sw, swo float64
		held, pairs := 0, 0
		for i := range with {
			e, f := with[i][a.Name], without[i][a.Name]
			w = append(w, fmt.Sprintf("%.2f [%.2f–%.2f]", e.Center, e.Lo, e.Hi))
			wo = append(wo, fmt.Sprintf("%.2f [%.2f–%.2f]", f.Center, f.Lo, f.Hi))
			sw += e.Center
			swo += f.Center
			// The bar: the cost stays within the TRACED
			// figures' interval, i.e. each run with neighbours lands
			// inside each run without's interval.
			for j := range without {
				pairs++
				if without[j][a.Name].Contains(e.Center) {
					held++
				}
			}
		}
		heldAll, pairsAll = heldAll+held, pairsAll+pairs
		ratios = append(ratios, sw/swo)
		fmt.Printf("%-24s %-32s %-32s %-12.3f %d/%d\n", a.Name, strings.Join(w, " "), strings.Join(wo, " "), sw/swo, held, pairs)
	}
	m := results.Median(ratios)
	fmt.Printf("median over arms of with÷without: %.3f [%.3f–%.3f]; a run with neighbours inside a run without's TRACED interval: %d of %d\n",
		m.Center, m.Lo, m.Hi, heldAll, pairsAll)
	b.ReportMetric(m.Center, "observer-with/without-neighbours")
}

// BenchmarkSwitchCost measures what the neighbour accounting adds to
// every context switch on the host, traced or not (one array lookup in
// sched_switch): a pipe ping-pong between two processes, 20000 round
// trips (four switches each), timed with the probe attached with and
// without neighbour accounting, seven pairs, each pair run back to back;
// it reports the median of the pairs' ratios and its interval.
func BenchmarkSwitchCost(b *testing.B) {
	if _, err := exec.LookPath("python3"); err != nil {
		b.Skip("needs python3 for the ping-pong")
	}
	const trips = 20000
	pingPong := `import os, sys, time
r1, w1 = os.pipe(); r2, w2 = os.pipe()
n = int(sys.argv[1])
if os.fork() == 0:
    for _ in range(n):
        os.read(r1, 1); os.write(w2, b"x")
    os._exit(0)
t = time.perf_counter_ns()
for _ in range(n):
    os.write(w1, b"x"); os.read(r2, 1)
print(time.perf_counter_ns() - t)
os.wait()
`
	run := func() float64 {
		cmd := exec.Command("taskset", "-c", "0", "python3", "-c", pingPong, fmt.Sprint(trips))
		out, err := cmd.Output()
		if err != nil {
			b.Fatal(err)
		}
		var ns float64
		fmt.Sscan(string(out), &ns)
		return ns / (4 * trips)
	}
	var with, without, ratios []float64
	for range 7 {
		var pair [2]float64
		for i, no := range []bool{true, false} {
			p := probetest.Open(b, probe.Options{NoNeighbours: no})
			pair[i] = run()
			p.Close()
		}
		without, with = append(without, pair[0]), append(with, pair[1])
		ratios = append(ratios, pair[1]/pair[0])
	}
	w, wo, r := results.Median(with), results.Median(without), results.Median(ratios)
	fmt.Printf("\ncontext switch (pipe ping-pong on one CPU, ns per switch, median of 7): with neighbours %.0f, without %.0f; with÷without per pair %.3f [%.3f–%.3f]\n",
		w.Center, wo.Center, r.Center, r.Lo, r.Hi)
	b.ReportMetric(r.Center, "switch-with/without-neighbours")
}
