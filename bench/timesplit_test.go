//go:build linux

package bench

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// timedRun is one tmpprobe process: its saved run and its wall time.
type timedRun struct {
	run  *results.Run
	wall time.Duration
}

// runTimed runs tmpprobe with args, saving the run to out.
func runTimed(b *testing.B, bin, out string, args ...string) timedRun {
	cmd := exec.Command(bin, append(args, "-q", "--history", "none", "--out", out)...)
	t0 := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%v: %v\n%s", cmd.Args, err, msg)
	}
	wall := time.Since(t0)
	run, err := runfile.LoadRun(out)
	if err != nil {
		b.Fatal(err)
	}
	return timedRun{run, wall}
}

// split is where one run's wall time went, in seconds: run.json's timing,
// what the run spent outside its stages (between), and the process's
// time outside Started–Finished (after: Python's probing before, the
// report and the files after).
type split struct {
	wall, setup, start, calibrate, warmup, switches, between, measured, after float64
}

func splitOf(r timedRun) split {
	t := r.run.Timing
	if t == nil {
		t = &results.Timing{}
	}
	s := func(ns int64) float64 { return float64(ns) / 1e9 }
	inside := r.run.Finished.Sub(r.run.Started).Seconds()
	out := split{wall: r.wall.Seconds(), setup: s(t.SetupNs), start: s(t.StartNs), calibrate: s(t.CalibrateNs), warmup: s(t.WarmupNs),
		switches: s(t.SwitchNs), after: r.wall.Seconds() - inside}
	var measured int64
	for _, a := range r.run.Arms {
		for _, bt := range a.Batches {
			if bt.Measured() {
				measured += bt.WallNs
			}
		}
	}
	out.measured = s(measured)
	out.between = inside - out.setup - out.start - out.calibrate - out.warmup - out.switches - out.measured
	return out
}

// BenchmarkTimeSplit runs `tmpprobe all` for each lab × runtime alone,
// five times each in /tmp as a user runs it, and prints where each one's
// wall time went (medians of the five): setup (preflight, the probe's
// load and attach), starting and ending workers, calibration, warm-ups,
// the probe's attach and detach between halves, the measured batches,
// what went between them (handing out batches, reading the probe's maps),
// and after (Python's probing, the report and the files); the measured
// batches' share of the wall time (the target is 80%), and the coverage
// and width of the intervals over those five runs (BenchmarkRepeatability's
// measure), so that no time is bought with worse intervals.
func BenchmarkTimeSplit(b *testing.B) {
	needRootAndPython(b)
	bin := buildTmpprobe(b)
	type config struct{ lab, runtime string }
	var configs []config
	for _, lab := range arms.Labs {
		for _, rt := range []string{"python", "go"} {
			configs = append(configs, config{lab, rt})
		}
	}
	parent := b.TempDir()
	timed := map[config][]timedRun{}
	// Alternate the configurations, so that a slow minute of the machine
	// lands on each of them.
	for i := range repeatRuns {
		for _, c := range configs {
			out := filepath.Join(parent, fmt.Sprintf("%s-%s-%d", c.lab, c.runtime, i+1))
			timed[c] = append(timed[c], runTimed(b, bin, out, "all", "--lab", c.lab, "--runtime", c.runtime))
		}
	}
	fmt.Printf("\nwhere `tmpprobe all --lab LAB --runtime RT` spends its wall time (/tmp, medians of %d runs, s)\n", repeatRuns)
	fmt.Printf("  %-15s %6s %6s %6s %6s %6s %6s %7s %8s %6s %9s\n", "LAB RUNTIME", "WALL", "setup", "start", "calib", "warmup", "switch", "between", "measured", "after", "MEASURED%")
	var coverage []string
	worst := 1.0
	for _, c := range configs {
		var splits []split
		var runs []results.EarlierRun
		for i, r := range timed[c] {
			splits = append(splits, splitOf(r))
			runs = append(runs, results.EarlierRun{Name: fmt.Sprint(i + 1), Run: r.run})
		}
		med := func(f func(split) float64) float64 {
			var v []float64
			for _, s := range splits {
				v = append(v, f(s))
			}
			return results.Median(v).Center
		}
		share := med(func(s split) float64 { return s.measured / s.wall })
		worst = math.Min(worst, share)
		fmt.Printf("  %-15s %6.1f %6.2f %6.2f %6.2f %6.2f %6.2f %7.2f %8.2f %6.2f %8.0f%%\n", c.lab+" "+c.runtime,
			med(func(s split) float64 { return s.wall }), med(func(s split) float64 { return s.setup }),
			med(func(s split) float64 { return s.start }), med(func(s split) float64 { return s.calibrate }),
			med(func(s split) float64 { return s.warmup }), med(func(s split) float64 { return s.switches }),
			med(func(s split) float64 { return s.between }), med(func(s split) float64 { return s.measured }),
			med(func(s split) float64 { return s.after }), 100*share)
		lines, _ := repeatability(fmt.Sprintf("--lab %s --runtime %s, --dir /tmp", c.lab, c.runtime), runs)
		coverage = append(coverage, lines...)
	}
	printCoverage(coverage)
	b.ReportMetric(worst, "min-measured/wall")
}

// untilRuns is how many runs BenchmarkUntil makes of each kind: the
// issue's six.
const untilRuns = 6

// BenchmarkUntil runs the modes lab on /dev/shm six times with --until
// 10% and six times without, alternating, and prints each run's wall time
// and its widest headline interval (ratio or TRACED, (hi − lo) ÷ median),
// the rounds each case ran, and the coverage of both kinds over their six
// runs: a run that stops once its intervals are narrow must still hold
// the next run's median (#18's measure, at least 80%).
func BenchmarkUntil(b *testing.B) {
	needRoot(b)
	if _, err := os.Stat("/dev/shm"); err != nil {
		b.Skip("no /dev/shm")
	}
	bin := buildTmpprobe(b)
	parent := b.TempDir()
	kinds := []struct {
		name string
		args []string
	}{
		{"--until 10%", []string{"--until", "10%"}},
		{"default", nil},
	}
	timed := make([][]timedRun, len(kinds))
	for i := range untilRuns {
		for k, kind := range kinds {
			out := filepath.Join(parent, fmt.Sprintf("%d-%d", k, i+1))
			args := append([]string{"all", "--lab", arms.LabModes, "--dir", "/dev/shm"}, kind.args...)
			timed[k] = append(timed[k], runTimed(b, bin, out, args...))
		}
	}
	fmt.Printf("\n`tmpprobe all --lab modes --dir /dev/shm`, with --until 10%% and without, %d runs each, alternating\n", untilRuns)
	var coverage []string
	for k, kind := range kinds {
		var walls []float64
		var runs []results.EarlierRun
		fmt.Printf("  %s:\n", kind.name)
		for i, r := range timed[k] {
			walls = append(walls, r.wall.Seconds())
			runs = append(runs, results.EarlierRun{Name: fmt.Sprint(i + 1), Run: r.run})
			widest, wide, minR, maxR := widestInterval(r.run)
			fmt.Printf("    run %d: %5.1fs, widest interval %5.1f%%, %d of its intervals wider than 10%%, rounds per case %d–%d\n",
				i+1, r.wall.Seconds(), 100*widest, wide, minR, maxR)
		}
		fmt.Printf("    median wall %.1fs\n", results.Median(walls).Center)
		lines, _ := repeatability(kind.name+", --dir /dev/shm", runs)
		coverage = append(coverage, lines...)
	}
	printCoverage(coverage)
}

// widestInterval is a run's widest headline interval ((hi − lo) ÷
// median; +Inf unbounded), how many are wider than 10%, and the fewest
// and most measured rounds its cases ran.
func widestInterval(run *results.Run) (widest float64, wide, minRounds, maxRounds int) {
	minRounds = math.MaxInt
	width := func(e results.Estimate) float64 {
		if !e.Bounded() {
			return math.Inf(1)
		}
		return (e.Hi - e.Lo) / e.Center
	}
	for i, s := range results.SummarizeAll(run, arms.Knowledge().Baselines) {
		for _, e := range []results.Estimate{s.Ratio, s.Observer} {
			if !e.Known() {
				continue
			}
			w := width(e)
			widest = math.Max(widest, w)
			if w > 0.10 {
				wide++
			}
		}
		rounds := map[int]bool{}
		for _, bt := range run.Arms[i].Batches {
			if bt.Measured() {
				rounds[bt.Round] = true
			}
		}
		minRounds, maxRounds = min(minRounds, len(rounds)), max(maxRounds, len(rounds))
	}
	return widest, wide, minRounds, maxRounds
}
