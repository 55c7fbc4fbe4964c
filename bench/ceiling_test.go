//go:build linux

package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
)

// ceilingStates price a lab op's syscall hooks in the parts TracingFloor
// prices a getppid in, on the op itself: the programs at sys_enter and
// sys_exit returning at once, then finding the thread at each end, then
// reading the clock there too (what any design that times every syscall
// with these hooks pays: ceilingState), then the syscall hooks whole, then
// the probe whole.
var ceilingStates = []struct {
	name string
	cut  probe.Cut
	all  bool // every family, not the syscall hooks alone
	none bool
}{
	{name: "plain (no probe)", none: true},
	{name: "syscall hooks returning at once", cut: probe.CutAll},
	{name: "+ finding the thread at each end", cut: probe.CutAfterThread},
	{name: "+ and reading the clock", cut: probe.CutAfterClock},
	{name: "syscall hooks whole", cut: probe.CutNone},
	{name: "the whole probe", cut: probe.CutNone, all: true},
}

const ceilingState = 3

// BenchmarkTracedCeiling answers how high TRACED can go on this machine
// for a lab's cheapest Python ops, TemporaryFile and NamedTemporaryFile in
// /tmp and /dev/shm (#40): chunks of the op in cycles, each state of
// ceilingStates once a cycle in a fresh order, each chunk's wall ns per op
// less the same cycle's plain chunk's; for each state the median added
// time and the TRACED it leaves, plain ÷ (plain + added). ceilingState's
// is the highest TRACED of any design that times every syscall with
// programs at sys_enter and sys_exit, however little else they do.
func BenchmarkTracedCeiling(b *testing.B) {
	const cycles = 25
	probes := make([]*probe.Probe, len(ceilingStates))
	for i, st := range ceilingStates {
		if st.none {
			continue
		}
		opts := probe.Options{Cut: st.cut}
		if !st.all {
			opts.Families = []probe.HookFamily{}
		}
		probes[i] = probetest.Open(b, opts)
		probes[i].Detach()
	}
	fmt.Printf("\nthe TRACED each state leaves a lab op from Python, %d cycles of a chunk each, interleaved: wall ns per op added to plain (median of the cycles [95%% CI]) and plain ÷ (plain + added)\n", cycles)
	for _, parent := range []string{"/tmp", "/dev/shm"} {
		dir, err := os.MkdirTemp(parent, "tmpprobe-ceiling-")
		if err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(dir)
		loop := startLoop(b, labOpsLoop, dir)
		for _, op := range familyOps[:2] {
			loop.run(op.n, 0, op.name) // warm the interpreter and the dir
			plain, added := interleaved(b, probes, cycles, func(cookie uint64) float64 { return loop.run(op.n, cookie, op.name) })
			base := results.Median(plain).Center
			fmt.Printf("  %s in %s: plain %.0f ns\n", op.name, parent, base)
			for i := 1; i < len(ceilingStates); i++ {
				e := results.Median(added[i])
				fmt.Printf("    %-34s %+7.0f ns [%+.0f – %+.0f]   TRACED %.3f [%.3f – %.3f]\n", ceilingStates[i].name,
					e.Center, e.Lo, e.Hi, base/(base+e.Center), base/(base+e.Hi), base/(base+e.Lo))
			}
			e := results.Median(added[ceilingState])
			b.ReportMetric(base/(base+e.Center), "traced-ceiling-"+op.name+"-"+filepath.Base(parent))
		}
		loop.close()
	}
}
