//go:build linux

package bench

import (
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/loopext4"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// repeatRuns is how many separate processes each configuration runs: the
// issue's test of a ratio that repeats is independent runs, not the spread
// inside one.
const repeatRuns = 5

// BenchmarkRepeatability runs `tmpprobe all` — both labs, both runtimes,
// as a user runs it — five times for each work dir, as separate processes
// one after another, and prints, per lab and runtime, every ratio's
// min–max across the runs and its spread, (max − min) ÷ median, beside
// the targets: 10% for the modes arms that do not sync, 20% for the
// syncing ones and for SpooledTemporaryFile ÷ BytesIO below max_size.
// Beside the spread it prints how often the intervals hold (#18): for
// every ordered pair of runs (A, B) and every arm, whether B's median ratio
// lies inside A's 95% interval — for honest intervals of two independent
// estimates about 83% of pairs (a difference of two such estimates has √2
// times the spread of one) — and the median interval width in percent of
// the ratio, for A's own interval and for the one tmpprobe prints with
// earlier runs saved beside it (see repeatability). It does so in /tmp (the default), in /tmp with --fresh-fs,
// in /dev/shm and in a journaled ext4 of its own: on an ext4 without a
// journal, as /tmp is here, a create skips every inode deleted in the last
// minute, so each run inherits the last one's deletions, and that is part
// of what /tmp shows. The labs' seed protocol (python only) runs beside
// the rounds, one lab at a time; its ratios have no interval.
func BenchmarkRepeatability(b *testing.B) {
	needRootAndPython(b)
	bin := buildTmpprobe(b)
	worst := map[string]float64{}
	type setting struct {
		name, dir, protocol string
		flags               []string
	}
	var settings []setting
	for _, dir := range []string{os.TempDir(), "/dev/shm", loopext4.Journaled(b, "1G")} {
		settings = append(settings, setting{dir, dir, results.ProtocolRounds, nil})
		if dir == os.TempDir() {
			settings = append(settings, setting{dir + " --fresh-fs", dir, results.ProtocolRounds, []string{"--fresh-fs"}})
		}
		if dir != "/dev/shm" {
			settings = append(settings, setting{dir, dir, results.ProtocolSeed, []string{"--runtime", "python"}})
		}
	}
	var coverage []string
	for _, st := range settings {
		if _, err := os.Stat(st.dir); err != nil {
			continue
		}
		// The seed protocol runs one lab a process, as the labs did.
		labSets := [][]string{arms.Labs}
		if st.protocol == results.ProtocolSeed {
			labSets = [][]string{{arms.LabModes}, {arms.LabBuffers}}
		}
		// Each run in a directory of its own, and --history none: every
		// run is measured alone, and the spread between runs is added
		// below, from the other runs but the one each is held against.
		parent := b.TempDir()
		var runs []results.EarlierRun
		for i := 0; i < repeatRuns; i++ {
			for _, labs := range labSets {
				name := fmt.Sprintf("%d-%s", i+1, strings.Join(labs, "-"))
				out := filepath.Join(parent, name)
				args := append([]string{"all", "--lab", strings.Join(labs, ","), "--protocol", st.protocol, "-q", "--dir", st.dir,
					"--history", "none", "--out", out}, st.flags...)
				cmd := exec.Command(bin, args...)
				if msg, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %v\n%s", cmd.Args, err, msg)
				}
				run, err := runfile.LoadRun(out)
				if err != nil {
					b.Fatal(err)
				}
				runs = append(runs, results.EarlierRun{Name: name, Run: run})
			}
		}
		lines, w := repeatability(fmt.Sprintf("--protocol %s, --dir %s", st.protocol, st.name), runs)
		coverage = append(coverage, lines...)
		for k, v := range w {
			worst[st.protocol+"-"+k+"-"+filepath.Base(st.name)] = v
		}
	}
	printCoverage(coverage)
	for k, v := range worst {
		b.ReportMetric(v, "spread/target-"+k)
	}
}

// savedRuns names directories of saved runs, one setting each, for
// BenchmarkSavedRepeatability.
var savedRuns = flag.String("saved", "", "comma-separated directories, each holding the saved runs (--out dirs) of one setting")

// BenchmarkSavedRepeatability prints BenchmarkRepeatability's tables for
// runs saved earlier (go test -bench SavedRepeatability ./bench/ -args
// -saved runs/shm,runs/tmp): a user's own runs, or runs that took longer
// to collect than one bench.
func BenchmarkSavedRepeatability(b *testing.B) {
	if *savedRuns == "" {
		b.Skip("no -saved directories")
	}
	var coverage []string
	for _, dir := range strings.Split(*savedRuns, ",") {
		runs, _, unread, err := runfile.LoadEarlier(dir, "", func(*results.Run) string { return "" }, math.MaxInt)
		if err != nil || len(unread) > 0 {
			b.Fatal(err, unread)
		}
		lines, _ := repeatability(dir, runs)
		coverage = append(coverage, lines...)
	}
	printCoverage(coverage)
}

// repeatability prints, per lab and runtime, every ratio's min–max across
// the runs, its spread beside its target, and how often the intervals
// hold; it returns the coverage lines and each group's worst spread ÷
// target. Coverage is counted twice: for the run's own interval, and for
// the interval tmpprobe prints with earlier runs in --history — the own
// one widened by the spread between runs (results.MeasureBetween)
// measured over the other runs but the one it is held against.
func repeatability(setting string, runs []results.EarlierRun) (coverage []string, worst map[string]float64) {
	baselines := arms.Knowledge().Baselines
	worst = map[string]float64{}
	own := make([][]*results.Summary, len(runs))
	for i, r := range runs {
		alone := *r.Run
		alone.Derived.Between = nil
		own[i] = results.SummarizeAll(&alone, baselines)
	}
	c := &coverageOf{runs: runs, widened: widenedWithoutEach(runs, own, baselines)}
	c.next, c.rank = widenedByEarlier(runs, own, baselines)
	groups, byGroup, protocol := ratioArms(runs, own)
	for _, g := range groups {
		if line := c.group(g, setting, byGroup[g], worst); protocol == results.ProtocolRounds {
			fmt.Println("  coverage: " + line)
			coverage = append(coverage, line)
		}
	}
	return coverage, worst
}

// summariesByCase keys a run's summaries, with the spread between runs
// measured over others, by case.
func summariesByCase(r *results.Run, own []*results.Summary, others []results.EarlierRun, baselines map[string]string) map[results.CaseID]*results.Summary {
	run := *r
	run.Derived.Between = results.MeasureBetween(&run, own, "", others, baselines)
	out := map[results.CaseID]*results.Summary{}
	for _, s := range results.SummarizeAll(&run, baselines) {
		out[run.CaseKey(s.CaseID)] = s
	}
	return out
}

// widenedWithoutEach are, for [a][b], run a's summaries with the spread
// between runs measured without run b.
func widenedWithoutEach(runs []results.EarlierRun, own [][]*results.Summary, baselines map[string]string) [][]map[results.CaseID]*results.Summary {
	widened := make([][]map[results.CaseID]*results.Summary, len(runs))
	for a := range runs {
		widened[a] = make([]map[results.CaseID]*results.Summary, len(runs))
		for bi := range runs {
			if a == bi {
				continue
			}
			var others []results.EarlierRun
			for k, r := range runs {
				if k != a && k != bi {
					others = append(others, r)
				}
			}
			widened[a][bi] = summariesByCase(runs[a].Run, own[a], others, baselines)
		}
	}
	return widened
}

// widenedByEarlier are run a's summaries as a run saved beside the runs
// before it prints them (#29): widened by the spread between runs
// measured over those runs, to be held against the runs after it only.
// Runs are taken in the order they started; rank is each run's place.
func widenedByEarlier(runs []results.EarlierRun, own [][]*results.Summary, baselines map[string]string) (next []map[results.CaseID]*results.Summary, rank []int) {
	order := make([]int, len(runs))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return runs[order[x]].Run.Started.Before(runs[order[y]].Run.Started) })
	rank = make([]int, len(runs))
	next = make([]map[results.CaseID]*results.Summary, len(runs))
	for pos, a := range order {
		rank[a] = pos
		var before []results.EarlierRun
		for _, k := range order[:pos] {
			before = append(before, runs[k])
		}
		next[a] = summariesByCase(runs[a].Run, own[a], before, baselines)
	}
	return next, rank
}

// ratioArm is one case with a ratio, over the runs that have it.
type ratioArm struct {
	key   results.CaseID // CaseKey
	label string
	own   []results.Estimate
	runs  []int
}

// ratioArms groups the cases with a ratio by lab and runtime, in the
// order the runs have them.
func ratioArms(runs []results.EarlierRun, own [][]*results.Summary) (groups []string, byGroup map[string][]*ratioArm, protocol string) {
	byGroup = map[string][]*ratioArm{}
	byKey := map[results.CaseID]*ratioArm{}
	for i, sums := range own {
		protocol = runs[i].Run.Protocol.Name
		for _, s := range sums {
			if s.Arm == arms.Baseline(s.Lab) || !s.Ratio.Known() {
				continue
			}
			k := runs[i].Run.CaseKey(s.CaseID)
			if byKey[k] == nil {
				g := s.Lab + " lab, " + s.Runtime
				if byGroup[g] == nil {
					groups = append(groups, g)
				}
				byKey[k] = &ratioArm{key: k, label: s.Arm + " " + s.Param()}
				byGroup[g] = append(byGroup[g], byKey[k])
			}
			byKey[k].own = append(byKey[k].own, s.Ratio)
			byKey[k].runs = append(byKey[k].runs, i)
		}
	}
	return groups, byGroup, protocol
}

// coverageOf holds a setting's runs and their summaries widened two ways.
type coverageOf struct {
	runs    []results.EarlierRun
	widened [][]map[results.CaseID]*results.Summary
	next    []map[results.CaseID]*results.Summary
	rank    []int
}

// group prints a group's table, arm by arm, and returns its coverage line;
// worst gets the group's largest spread over its target.
func (c *coverageOf) group(g, setting string, as []*ratioArm, worst map[string]float64) string {
	lab, _, _ := strings.Cut(g, " ")
	name := fmt.Sprintf("%s, %s", g, setting)
	fmt.Printf("\n%s: ratio to %s over %d runs\n", name, arms.Baseline(lab), len(c.runs))
	fmt.Printf("  %-40s %15s %7s %7s %7s %7s %7s %7s\n", "ARM", "MIN–MAX", "SPREAD", "TARGET", "HELD", "CI", "HELD+", "CI+")
	var ownAll, widenedAll, nextAll []results.Estimate
	var held, heldW, pairs, heldN, pairsN int
	for _, a := range as {
		var v []float64
		for _, e := range a.own {
			v = append(v, e.Center)
		}
		sort.Float64s(v)
		spread := (v[len(v)-1] - v[0]) / results.Median(v).Center
		target := spreadTarget(lab, a.label)
		mark, tstr := "", "-"
		if target > 0 {
			tstr = fmt.Sprintf("%.0f%%", 100*target)
			if spread > target {
				mark = " over"
			}
			w := strings.ReplaceAll(g, " ", "")
			worst[w] = math.Max(worst[w], spread/target)
		}
		// Over ordered pairs of runs (A, B): is B's median inside A's
		// interval, own and widened without B?
		var armHeld, armHeldW, armPairs int
		var armWidened []results.Estimate
		for i, ea := range a.own {
			for j, eb := range a.own {
				if i == j {
					continue
				}
				armPairs++
				if ea.Contains(eb.Center) {
					armHeld++
				}
				w := c.widened[a.runs[i]][a.runs[j]][a.key].Ratio
				armWidened = append(armWidened, w)
				if w.Contains(eb.Center) {
					armHeldW++
				}
			}
		}
		// Against later runs only, from runs with a spread between runs
		// (at least MinRunsBetween, this one included).
		for i := range a.own {
			w := c.next[a.runs[i]][a.key].Ratio
			if c.rank[a.runs[i]]+1 < results.MinRunsBetween {
				continue
			}
			nextAll = append(nextAll, w)
			for j, eb := range a.own {
				if c.rank[a.runs[j]] > c.rank[a.runs[i]] {
					pairsN++
					if w.Contains(eb.Center) {
						heldN++
					}
				}
			}
		}
		held, heldW, pairs = held+armHeld, heldW+armHeldW, pairs+armPairs
		ownAll, widenedAll = append(ownAll, a.own...), append(widenedAll, armWidened...)
		fmt.Printf("  %-40s %6.2f – %-6.2f %6.1f%% %7s %7s %6.1f%% %7s %6.1f%%%s\n", a.label, v[0], v[len(v)-1], 100*spread, tstr,
			fmt.Sprintf("%d/%d", armHeld, armPairs), 100*medianWidth(a.own),
			fmt.Sprintf("%d/%d", armHeldW, armPairs), 100*medianWidth(armWidened), mark)
	}
	return fmt.Sprintf("%-58s own %3.0f%% (%3d/%3d) CI %5.1f%% · +between runs %3.0f%% CI %5.1f%% · next runs %3.0f%% (%3d/%3d) CI %5.1f%%", name,
		100*float64(held)/float64(max(pairs, 1)), held, pairs, 100*medianWidth(ownAll),
		100*float64(heldW)/float64(max(pairs, 1)), 100*medianWidth(widenedAll),
		100*float64(heldN)/float64(max(pairsN, 1)), heldN, pairsN, 100*medianWidth(nextAll))
}

// printCoverage prints the coverage lines of every setting together.
func printCoverage(coverage []string) {
	fmt.Printf("\nIntervals (95%% CI of each run's ratio) holding another run's median, target ≥ 80%%:\n")
	fmt.Printf("own: the run's own interval; +between runs: widened by the spread between the other runs (as --history prints it)\n")
	fmt.Printf("next runs: each run widened by the spread of the runs before it (saved beside them), held against the runs after it\n")
	for _, c := range coverage {
		fmt.Println("  " + c)
	}
}

// spreadTarget is docs/rounds.md's bound on a ratio's spread across runs, 0
// where it sets none (SpooledTemporaryFile above max_size, NamedTemporaryFile
// in the buffers lab).
func spreadTarget(lab, key string) float64 {
	arm, param, _ := strings.Cut(key, " ")
	if lab == arms.LabModes {
		for _, a := range arms.Catalog {
			if a.Lab == lab && a.Name == arm && a.Syncs {
				return 0.20
			}
		}
		return 0.10
	}
	if arm == "SpooledTemporaryFile" && (param == "size=256K" || param == "size=1M") {
		return 0.20
	}
	return 0
}

// medianWidth is the median width of the intervals, (hi − lo) ÷ median;
// an unbounded one is infinitely wide.
func medianWidth(est []results.Estimate) float64 {
	var w []float64
	for _, e := range est {
		if e.Bounded() && e.Center != 0 {
			w = append(w, (e.Hi-e.Lo)/e.Center)
		} else {
			w = append(w, math.Inf(1))
		}
	}
	if len(w) == 0 {
		return math.NaN()
	}
	return results.Median(w).Center
}
