//go:build linux

package bench

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
)

// getppidLoop runs chunks of getppid calls in one Python process, each
// between the markers of the cookie it is handed ("N COOKIE" a line), and
// answers each with its thread's CPU time in ns: preemption by the
// host's other work is left out, the syscalls' kernel time and the
// probe's programs are in.
const getppidLoop = `import os, sys, time
g, ls, clock = os.getppid, os.lseek, time.thread_time_ns
def mark(cookie, begin):
    try: ls(-1, cookie, (7 << 1) | begin)
    except OSError: pass
for line in sys.stdin:
    n, cookie = map(int, line.split())
    mark(cookie, 1)
    r = range(n)
    t = clock()
    for _ in r: g()
    t = clock() - t
    mark(cookie, 0)
    sys.stdout.write("%d\n" % t); sys.stdout.flush()
`

// floorStates are what the loop runs beside, cheapest first: nothing, the
// probe's programs returning at once (the floor), finding the traced
// thread, that and reading the clock, and the probe whole.
var floorStates = []struct {
	name string
	cut  probe.Cut
	none bool
}{
	{"plain (no program attached)", 0, true},
	{"floor: the hooks return at once", probe.CutAll, false},
	{"+ sys_enter/exit find the thread", probe.CutAfterThread, false},
	{"+ and read the clock", probe.CutAfterClock, false},
	{"tmpprobe (the whole probe)", probe.CutNone, false},
}

// BenchmarkTracingFloor measures what tmpprobe adds to each syscall of a
// traced thread against the floor of its own hooks: the same programs at
// the same attach points, returning at once (probe.CutAll). A Python loop
// of 300k getppid per state, in chunks of 10k, each state once a cycle in
// a fresh random order, the probe of the state attached and the loop
// inside its markers; each chunk's added ns per call is its CPU time per
// call minus the same cycle's plain chunk's. It prints the median over
// cycles with its interval for every state, the parts of the cost
// between the floor and the whole, and the ratio of tmpprobe's added
// cost to the floor's. Beside them, bpftrace's raw_syscalls latency map
// (a hist of every syscall's time) is timed in chunks of its own between
// plain ones, for scale.
func BenchmarkTracingFloor(b *testing.B) {
	const chunk, cycles = 10000, 30
	probes := make([]*probe.Probe, len(floorStates))
	for i, st := range floorStates {
		if !st.none {
			probes[i] = probetest.Open(b, probe.Options{Cut: st.cut})
			probes[i].Detach()
		}
	}
	loop := startLoop(b, getppidLoop)
	defer loop.close()
	loop.run(chunk, 0) // the interpreter's first chunk warms it
	plain, added := interleaved(b, probes, cycles, func(cookie uint64) float64 { return loop.run(chunk, cookie) })
	fmt.Printf("\n%dk getppid per state from Python, %d chunks each, interleaved: thread CPU ns per call, added to plain (median of the cycles [95%% CI])\n",
		chunk*cycles/1000, cycles)
	fmt.Printf("  %-36s %7.0f ns\n", floorStates[0].name, results.Median(plain).Center)
	est := make([]results.Estimate, len(floorStates))
	for i := 1; i < len(floorStates); i++ {
		est[i] = results.Median(added[i])
		fmt.Printf("  %-36s %+7.0f ns [%+.0f – %+.0f]\n", floorStates[i].name, est[i].Center, est[i].Lo, est[i].Hi)
	}
	floor, whole := est[1], est[len(est)-1]
	ratio := whole.Center / floor.Center
	fmt.Printf("  tmpprobe ÷ floor: %.2f [%.2f – %.2f] (the worst ends of the two intervals); the parts above the floor: thread %+.0f, clock %+.0f, the rest %+.0f ns\n",
		ratio, whole.Lo/floor.Hi, whole.Hi/floor.Lo, est[2].Center-est[1].Center, est[3].Center-est[2].Center, est[4].Center-est[3].Center)
	b.ReportMetric(ratio, "tmpprobe/floor")
	if bt, err := bpftraceAdded(loop, chunk); err != nil {
		fmt.Printf("  bpftrace raw_syscalls latency map: not measured: %v\n", err)
	} else {
		fmt.Printf("  bpftrace raw_syscalls latency map    %+7.0f ns (its %d chunks beside %d plain ones; ÷ floor %.2f)\n", bt, bpftraceChunks, 2*bpftraceChunks, bt/floor.Center)
	}
}

// interleaved runs cycles of one chunk under each probe of probes, in a
// fresh random order every cycle, the probe attached for its chunk only;
// probes[0] is nil, the plain chunk. It returns the plain chunks and each
// state's chunk less the same cycle's plain one: a pair inside one cycle
// sees the same load on a noisy machine, a pair across cycles may not.
func interleaved(b *testing.B, probes []*probe.Probe, cycles int, run func(cookie uint64) float64) (plain []float64, added [][]float64) {
	added = make([][]float64, len(probes))
	for range cycles {
		cyc := make([]float64, len(probes))
		for _, i := range rand.Perm(len(probes)) {
			var cookie uint64
			if p := probes[i]; p != nil {
				if err := p.Attach(); err != nil {
					b.Fatal(err)
				}
				cookie = p.Cookie
			}
			cyc[i] = run(cookie)
			if p := probes[i]; p != nil {
				p.Detach()
			}
		}
		plain = append(plain, cyc[0])
		for i := range probes {
			added[i] = append(added[i], cyc[i]-cyc[0])
		}
	}
	return plain, added
}

// pyLoop is a running Python loop (getppidLoop, labOpsLoop): it reads a
// chunk's line, runs the chunk inside the markers of the cookie the line
// ends with, and answers with the chunk's time in ns.
type pyLoop struct {
	b   *testing.B
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startLoop(b *testing.B, script string, args ...string) *pyLoop {
	cmd := exec.Command("python3", append([]string{"-I", "-c", script}, args...)...)
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Skipf("python3: %v", err)
	}
	return &pyLoop{b: b, cmd: cmd, in: in, out: bufio.NewScanner(out)}
}

// run runs n calls inside cookie's markers: ns per call. what, if any,
// comes first on the line (labOpsLoop's op).
func (l *pyLoop) run(n int, cookie uint64, what ...string) float64 {
	fmt.Fprintln(l.in, strings.Join(append(what, strconv.Itoa(n), strconv.FormatUint(cookie, 10)), " "))
	if !l.out.Scan() {
		l.b.Fatal("the Python loop exited")
	}
	ns, err := strconv.ParseFloat(l.out.Text(), 64)
	if err != nil {
		l.b.Fatal(err)
	}
	return ns / float64(n)
}

func (l *pyLoop) pid() int { return l.cmd.Process.Pid }

func (l *pyLoop) close() {
	l.in.Close()
	l.cmd.Wait()
}

const bpftraceChunks = 10

// bpftraceProgram is bpftrace's syscall latency map: every syscall's
// time, a histogram.
const bpftraceProgram = `tracepoint:raw_syscalls:sys_enter { @start[tid] = nsecs; }
tracepoint:raw_syscalls:sys_exit /@start[tid]/ { @ns = hist(nsecs - @start[tid]); delete(@start[tid]); }`

// bpftraceAdded is what bpftraceProgram adds to a getppid: chunks of the
// loop while it runs, against plain chunks just before and after it.
func bpftraceAdded(loop *pyLoop, chunk int) (float64, error) {
	if _, err := exec.LookPath("bpftrace"); err != nil {
		return 0, err
	}
	var plain, traced []float64
	for range bpftraceChunks {
		plain = append(plain, loop.run(chunk, 0))
	}
	cmd := exec.Command("bpftrace", "-e", bpftraceProgram)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	attached := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if !ok && strings.HasPrefix(sc.Text(), "Attaching") {
				ok = true
				attached <- true
			}
		}
		if !ok {
			attached <- false
		}
	}()
	select {
	case ok := <-attached:
		if !ok {
			cmd.Wait()
			return 0, fmt.Errorf("bpftrace did not attach")
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		return 0, fmt.Errorf("bpftrace did not attach in a minute")
	}
	time.Sleep(200 * time.Millisecond) // "Attaching" comes before the last probe is
	for range bpftraceChunks {
		traced = append(traced, loop.run(chunk, 0))
	}
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	for range bpftraceChunks {
		plain = append(plain, loop.run(chunk, 0))
	}
	return results.Median(traced).Center - results.Median(plain).Center, nil
}
