//go:build linux

package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"sort"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/rounds"
)

// BenchmarkHookFamilies prices each family of hooks on the labs' own arms
// (#40): the modes lab in rounds, traced and untraced batches paired per
// round as a run's are, once with the syscall hooks alone (markers and
// syscall time: what every traced batch needs) and once with each family
// on top of them, and once with the whole probe, the configurations in a
// random order. A family's price on an arm is what it adds to the traced
// op: (1/TRACED with it − 1/TRACED without) of the untraced op, as a
// share and in ns per op, each from the medians of the paired rounds
// (TRACED's intervals beside them). The expensive family is then named
// by a measurement, not a guess.
func BenchmarkHookFamilies(b *testing.B) {
	type config struct {
		name     string
		families []probe.HookFamily
	}
	configs := []config{{"syscalls alone", []probe.HookFamily{}}}
	for _, f := range probe.HookFamilies {
		configs = append(configs, config{"+ " + string(f), []probe.HookFamily{f}})
	}
	configs = append(configs, config{"the whole probe", nil})
	rts := []arms.Runtime{{Name: "go"}}
	if py, err := exec.LookPath("python3"); err == nil {
		rts = append([]arms.Runtime{{Name: "python", Python: py}}, rts...)
	}
	sel, _ := arms.Select(nil, []string{arms.LabModes})
	dir := b.TempDir()
	got := make([]familyRun, len(configs))
	order := rand.Perm(len(configs))
	for _, i := range order {
		p := probetest.Open(b, probe.Options{Families: configs[i].families})
		plan := &arms.Plan{Arms: sel, Runtimes: rts, Dirs: []string{dir}, Payloads: []int{400},
			MinBatch: arms.DefaultMinBatch, Seed: rounds.NewSeed(), Baseline: true, BatchTimeout: 5 * time.Minute}
		res, err := (&arms.Runner{Tracer: p, Cookie: p.Cookie}).Run(context.Background(), plan)
		p.Close()
		if err != nil {
			b.Fatal(err)
		}
		m := familyRun{observer: map[string]results.Estimate{}, untraced: map[string]float64{}}
		for _, s := range results.SummarizeAll(&results.Run{Protocol: plan.Describe(), Arms: res}, arms.Knowledge().Baselines) {
			k := s.Arm + " (" + s.Runtime + ")"
			m.armsOrder = append(m.armsOrder, k)
			m.observer[k], m.untraced[k] = s.Observer, s.TimePerOp().Center
		}
		got[i] = m
	}
	base := got[0]
	fmt.Printf("\nwhat each family of hooks adds to a traced op, on top of the syscall hooks alone (modes lab, %s)\n", dir)
	fmt.Printf("TRACED of the syscall hooks alone: %s\n", observerRange(base.observer))
	fmt.Printf("%-18s %8s %9s   %-28s %-28s\n", "FAMILY", "MEDIAN", "TRACED", "TemporaryFile (python)", "TemporaryFile (go)")
	for i, c := range configs[1:] {
		m := got[i+1]
		var shares []float64
		for _, k := range base.armsOrder {
			if add, ok := added(base, m, k); ok {
				shares = append(shares, add/base.untraced[k])
			}
		}
		sort.Float64s(shares)
		med := 0.0
		if len(shares) > 0 {
			med = shares[len(shares)/2]
		}
		cell := func(k string) string {
			add, ok := added(base, m, k)
			if !ok {
				return "-"
			}
			o := m.observer[k]
			return fmt.Sprintf("%+6.0f ns %+5.1f%% [%.2f–%.2f]", add, 100*add/base.untraced[k], o.Lo, o.Hi)
		}
		fmt.Printf("%-18s %+7.1f%% %9s   %-28s %-28s\n", c.name, 100*med, observerRange(m.observer),
			cell("TemporaryFile (python)"), cell("TemporaryFile (go)"))
		b.ReportMetric(100*med, "%/op-"+c.name)
	}
}

// familyRun is one configuration's run: each arm's TRACED and untraced
// time per op (ns), by "arm (runtime)", in the run's order.
type familyRun struct {
	observer  map[string]results.Estimate
	untraced  map[string]float64
	armsOrder []string
}

// added is what a configuration m adds to arm k's traced op over base,
// in ns: its untraced time per op × (1/TRACED_m − 1/TRACED_base).
func added(base, m familyRun, k string) (float64, bool) {
	ob, om := base.observer[k], m.observer[k]
	if !ob.Known() || !om.Known() {
		return 0, false
	}
	return base.untraced[k] * (1/om.Center - 1/ob.Center), true
}

// observerRange is the range of the arms' TRACED medians.
func observerRange(o map[string]results.Estimate) string {
	lo, hi := 2.0, 0.0
	for _, e := range o {
		if e.Known() {
			lo, hi = min(lo, e.Center), max(hi, e.Center)
		}
	}
	return fmt.Sprintf("%.2f–%.2f", lo, hi)
}
