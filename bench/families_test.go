//go:build linux

package bench

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/session"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
)

// labOpsLoop runs chunks of a lab arm's op in one Python process, each
// between the markers of the cookie it is handed ("OP N COOKIE" a line),
// and answers each with its wall time in ns: the observer's cost includes
// what it adds off the CPU (a hook in the block layer delays the I/O the
// op waits for), so wall, not CPU, time.
const labOpsLoop = `import os, sys, tempfile, time
ls, clock, payload = os.lseek, time.perf_counter_ns, b"x" * 400
d = sys.argv[1]
def tf():
    f = tempfile.TemporaryFile(dir=d); f.write(payload); f.close()
def ntf():
    f = tempfile.NamedTemporaryFile(dir=d); f.write(payload); f.close()
def fsync():
    fd, p = tempfile.mkstemp(dir=d); os.write(fd, payload); os.fsync(fd); os.close(fd); os.unlink(p)
ops = {"TemporaryFile": tf, "NamedTemporaryFile": ntf, "mkstemp-fsync": fsync}
def mark(cookie, begin):
    try: ls(-1, cookie, (7 << 1) | begin)
    except OSError: pass
for line in sys.stdin:
    name, n, cookie = line.split()
    op, n, cookie = ops[name], int(n), int(cookie)
    mark(cookie, 1)
    t = clock()
    for _ in range(n): op()
    t = clock() - t
    mark(cookie, 0)
    sys.stdout.write("%d\n" % t); sys.stdout.flush()
`

// labStacks are the stacks a lab takes (session's labStacks) of the
// interpreter python3 runs: its call sites at one call in
// session.LabStackEvery of the costly classes and its user time sampled
// at session.StackSampleHz, in the traced batches that take stacks.
func labStacks(b *testing.B) *probe.StackOptions {
	out, err := exec.Command("python3", "-I", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Fatal(err)
	}
	so := &probe.StackOptions{SampleHz: session.StackSampleHz, Every: session.LabStackEvery,
		Interpreters: []string{strings.TrimSpace(string(out))}}
	for _, c := range arms.StackClasses {
		if probe.KnownClass(c) {
			so.Sampled = append(so.Sampled, c)
		}
	}
	return so
}

// familyOps are the ops the families are priced on, with ops a chunk: a
// chunk lasts 20–60 ms here.
var familyOps = []struct {
	name string
	n    int
}{{"TemporaryFile", 1000}, {"NamedTemporaryFile", 600}, {"mkstemp-fsync", 40}}

// BenchmarkHookFamilies prices each family of hooks on the labs' own ops
// (#40), as BenchmarkTracingFloor prices the parts of a syscall: chunks
// of an op from Python, in cycles, each cycle a chunk plain (no probe),
// one traced by the syscall hooks alone (markers and syscall time: what
// every traced batch needs), one with each family on top of them, and
// one by the whole probe, in a fresh random order; a configuration's
// added time per op is its chunk's minus the same cycle's plain chunk's,
// and the median over the cycles with its interval is printed, beside
// the plain op's time, so the expensive family is named by a
// measurement, not a guess.
func BenchmarkHookFamilies(b *testing.B) {
	const cycles = 25
	type config struct {
		name     string
		families []probe.HookFamily // nil: the whole probe
		stacks   bool
		none     bool
	}
	configs := []config{{name: "plain (no probe)", none: true}, {name: "syscalls alone", families: []probe.HookFamily{}}}
	for _, f := range probe.HookFamilies {
		configs = append(configs, config{name: "syscalls + " + string(f), families: []probe.HookFamily{f}})
	}
	configs = append(configs, config{name: "syscalls + stacks", families: []probe.HookFamily{}, stacks: true},
		config{name: "the whole probe"})
	probes := make([]*probe.Probe, len(configs))
	for i, c := range configs {
		if c.none {
			continue
		}
		opts := probe.Options{Families: c.families}
		if c.stacks {
			opts.Stacks = labStacks(b)
		}
		probes[i] = probetest.Open(b, opts)
		probes[i].Detach()
	}
	dir := b.TempDir()
	loop := startLoop(b, labOpsLoop, dir)
	defer loop.close()
	for _, op := range familyOps {
		loop.run(op.n, 0, op.name) // warm the interpreter and the dir
	}
	fmt.Printf("\nwhat each family of hooks adds to a lab op, from Python, %d cycles of a chunk each, interleaved: wall ns per op added to plain (median of the cycles [95%% CI]) and its share of the plain op\n", cycles)
	for _, op := range familyOps {
		plain, added := interleaved(b, probes, cycles, func(cookie uint64) float64 { return loop.run(op.n, cookie, op.name) })
		base := results.Median(plain).Center
		fmt.Printf("  %s: plain %.0f ns\n", op.name, base)
		syscalls := results.Median(added[1])
		for i := 1; i < len(configs); i++ {
			e := results.Median(added[i])
			line := fmt.Sprintf("    %-24s %+8.0f ns [%+.0f – %+.0f] %+6.1f%%", configs[i].name, e.Center, e.Lo, e.Hi, 100*e.Center/base)
			if i > 1 && i < len(configs)-1 {
				line += fmt.Sprintf("   family alone %+6.0f ns", e.Center-syscalls.Center)
			}
			fmt.Println(line)
		}
		whole := results.Median(added[len(configs)-1]).Center
		b.ReportMetric(100*whole/base, "%added-"+op.name)
	}
}
