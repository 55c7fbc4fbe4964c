package resultstest

import (
	"fmt"
	"slices"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
)

// Diff is a diff the results tests share: two runs and how to judge
// them.
type Diff struct {
	Name     string
	Old, New *results.Run
	Opt      compare.Options
}

// Judge is the diff's judgement.
func (d Diff) Judge() *compare.DiffReport {
	return compare.DiffWith("old", d.Old, "new", d.New, Labs.Baselines, d.Opt)
}

// withNeighbours gives every traced batch of run the neighbours nbs names.
func withNeighbours(run *results.Run, nbs func(arm string) []results.Neighbour) *results.Run {
	for i := range run.Arms {
		a := &run.Arms[i]
		for j := range a.Batches {
			if a.Batches[j].Traced {
				a.Batches[j].Neighbours = nbs(a.Arm)
			}
		}
	}
	return run
}

// preempted adds extra ns a op of run-queue wait to every batch of run.
func preempted(run *results.Run, extra uint64) *results.Run {
	for i := range run.Arms {
		a := &run.Arms[i]
		for j := range a.Batches {
			b := &a.Batches[j]
			if !b.Traced {
				continue
			}
			b.WallNs += int64(extra * uint64(b.Ops))
			b.Records = append(b.Records, results.ClassRecord{Class: "user", Calls: 0, OffCPUNs: extra * uint64(b.Ops), OffNs: map[string]uint64{"preempted": extra * uint64(b.Ops)}})
		}
		for j := range a.Batches {
			if !a.Batches[j].Traced {
				a.Batches[j].WallNs += int64(extra * uint64(a.Batches[j].Ops))
			}
		}
	}
	return run
}

// Diffs are every kind of diff the fixture's runs make: changes and
// drift, gates of every kind and threshold, too few rounds, runs that
// compare in part, work dirs moved and mount options changed, failed
// arms, neighbours, run-queue waits, traces, compared commands, the
// spread between runs and the runs left out of it.
func Diffs() []Diff {
	F := FixtureRun
	gate := func(th float64) compare.Options {
		return compare.Options{MinEffectPct: compare.DefaultMinEffectPct, Gate: compare.GateOn(compare.GateTime, th)}
	}
	gateWork := func(th float64) compare.Options {
		return compare.Options{MinEffectPct: compare.DefaultMinEffectPct, Gate: compare.GateOn(compare.GateWork, th)}
	}
	nogate := compare.Options{MinEffectPct: compare.DefaultMinEffectPct}
	var out []Diff
	add := func(name string, o, c *results.Run, opt compare.Options) {
		out = append(out, Diff{name, o, c, opt})
	}
	add("oldnew10", F(false), F(true), gate(10))
	add("drift10", F(false), Scaled(F(false), 1.25), gate(10))
	add("improve10", F(true), F(false), gate(10))
	add("oldnew60", F(false), F(true), compare.Options{MinEffectPct: 5, Gate: compare.GateOn("", 60)})
	add("mineffect60", F(false), F(true), compare.Options{MinEffectPct: 60})
	inc := F(false)
	inc.Complete = false
	inc.Arms = inc.Arms[:3]
	add("incomplete5", F(false), inc, gate(5))
	empty := F(false)
	empty.Arms, empty.Complete = nil, false
	add("empty5", F(false), empty, gate(5))
	empty0 := F(false)
	empty0.Arms = nil
	add("empty0", F(false), empty0, gate(0))
	other := F(false)
	other.Arms = other.Arms[3:]
	add("otherlabs", F(false), other, nogate)
	al := F(false)
	for i := range al.Arms {
		al.Arms[i].Dir = "/dev/shm"
	}
	al.Arms = al.Arms[1:]
	al.Meta.Python, al.Meta.CPUs = "3.12.1", 4
	add("alignment", F(false), al, nogate)
	fo, fc := F(false), F(false)
	for _, r := range []*results.Run{fo, fc} {
		r.Arms = r.Arms[:1]
		r.Arms[0].Batches = r.Arms[0].Batches[:8]
	}
	for i := range fc.Arms[0].Batches {
		fc.Arms[0].Batches[i].WallNs = fc.Arms[0].Batches[i].WallNs * 110 / 100
	}
	add("toofew5", fo, fc, gate(5))
	bm := F(false)
	for j := range bm.Arms[0].Batches {
		b := &bm.Arms[0].Batches[j]
		b.WallNs = b.WallNs * 5 / 4
	}
	add("basemoved5", F(false), bm, gate(5))
	add("thr0", F(false), F(true), gate(0))
	cut := F(false)
	cut.Complete = false
	cut.Arms = cut.Arms[1:]
	add("cut0", F(false), cut, gate(0))
	trace := func(wall int64) *results.Run {
		run := F(false)
		a := results.ArmResult{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "./app", Runtime: "-"}, Ops: 1}
		if wall > 0 {
			a.Batches = Batches(1, []int64{wall}, func(int) []results.ClassRecord {
				return []results.ClassRecord{Rec("write", 10, 1_000, 0, "")}
			})
		}
		run.Kind, run.Arms = results.KindTrace, []results.ArmResult{a}
		return run
	}
	add("trace-same", trace(4_464_000), trace(4_464_000), gate(10))
	add("trace-fell", trace(4_464_000), trace(9_000_000), gate(10))
	add("trace-fell0", trace(4_464_000), trace(4_700_000), gate(0))
	add("trace-gone", trace(4_464_000), trace(0), gate(10))
	add("trace-work", trace(4_464_000), trace(9_000_000), gateWork(10))
	tmpfs := results.DirFacts{Dir: "/tmp", FSType: "tmpfs", Source: "tmpfs", Options: "rw,relatime"}
	ext4 := results.DirFacts{Dir: "/tmp", FSType: "ext4", Source: "/dev/vda", Options: "rw,relatime,discard", Journal: "no", Disk: "vda",
		FSOptions: "rw,discard,delalloc,commit=5", Queues: []results.BlockQueue{{Device: "vda", Scheduler: "mq-deadline", NrRequests: "256"}}}
	mo, mc := F(false), F(true)
	mo.Meta.Dirs, mc.Meta.Dirs = []results.DirFacts{tmpfs}, []results.DirFacts{ext4}
	mc.Meta.KernelRelease = mo.Meta.KernelRelease
	add("dirmove", mo, mc, nogate)
	add("dirmove5", mo, mc, gate(5))
	mw := F(true)
	for i := range mw.Arms {
		mw.Arms[i].Dir = "/mnt"
	}
	mw.Meta.Dirs = []results.DirFacts{ext4}
	mw.Meta.Dirs[0].Dir = "/mnt"
	mw.Meta.KernelRelease = mo.Meta.KernelRelease
	add("dirmove-otherdir", mo, mw, gate(5))
	loop := func(dev string, opts string) results.DirFacts {
		return results.DirFacts{Dir: "/mnt", FSType: "ext4", Source: "/dev/" + dev, Options: opts, Journal: "yes", Disk: dev,
			Queues: []results.BlockQueue{{Device: dev, BackingFile: "/tmp/" + dev + ".img"}, {Device: "vda"}}}
	}
	lo, lc := F(false), F(true)
	lo.Meta.Dirs, lc.Meta.Dirs = []results.DirFacts{loop("loop1", "rw")}, []results.DirFacts{loop("loop2", "rw,nobarrier")}
	lc.Meta.KernelRelease = lo.Meta.KernelRelease
	add("loopopts", lo, lc, nogate)
	add("loopopts-rev", lc, lo, gate(5))
	add("gatework-new", F(false), F(true), gateWork(5))
	add("gatework-slow", F(false), Scaled(F(false), 1.25), gateWork(5))
	worker, command := WorkerFailed(), CommandFailed()
	add("failed-worker-time", F(false), worker, gate(5))
	add("failed-worker-work", F(false), worker, gateWork(5))
	add("failed-command-time", F(false), command, gate(5))
	add("failed-command-work", F(false), command, gateWork(5))
	add("aa", F(false), F(false), gate(5))
	withDir := func(r *results.Run, options string) *results.Run {
		r.Meta.Dirs = []results.DirFacts{{Dir: "/tmp", FSType: "ext4", Options: options, Journal: "yes"}}
		return r
	}
	add("env-drifted", withDir(F(false), "rw,relatime"), withDir(Scaled(F(false), 1.25), "rw,relatime"), gate(5))
	add("env-journaled", withDir(F(false), "rw,relatime"), withDir(Scaled(F(false), 1.25), "rw,relatime,data=journal"), gate(5))
	add("env-nobarrier", withDir(F(true), "rw,relatime"), withDir(F(false), "rw,relatime,nobarrier"), gate(5))
	add("env-discard", withDir(F(false), "rw,relatime"), withDir(F(true), "rw,relatime,discard"), gateWork(5))
	nb := func(comm string, pid uint32, kind string, ns uint64) results.Neighbour {
		return results.Neighbour{Kind: kind, Comm: comm, PID: pid, Count: 3, Ns: ns, Bytes: 4096}
	}
	oldNb := withNeighbours(F(false), func(string) []results.Neighbour {
		return []results.Neighbour{nb("dd", 77, results.NeighbourDisk, 3_000_000), nb("kworker/0:1", 9, results.NeighbourCPU, 10_000)}
	})
	newNb := withNeighbours(preempted(F(true), 40_000), func(string) []results.Neighbour {
		return []results.Neighbour{nb("cpuhog", 4123, results.NeighbourCPU, 3_900_000), nb("cc", 88, results.NeighbourDisk, 2_000_000), nb("cc", 89, results.NeighbourDisk, 1_000_000)}
	})
	add("neighbours5", oldNb, newNb, gate(5))
	add("neighbours-rev", newNb, oldNb, gate(5))
	rq := withNeighbours(preempted(F(false), 30_000), func(string) []results.Neighbour {
		return []results.Neighbour{nb("cpuhog", 4123, results.NeighbourCPU, 3_000_000)}
	})
	add("runqueue", F(false), rq, nogate)
	add("compare", CommandsRun(), Scaled(CommandsRun(), 1.3), gate(5))
	add("tracerun", TraceRun(), Scaled(TraceRun(), 1.3), gate(5))
	hist := gate(5)
	for i := 1; i <= 3; i++ {
		e := F(false)
		e.Started = e.Started.Add(-time.Duration(i) * time.Hour)
		hist.History = append(hist.History, results.EarlierRun{Name: fmt.Sprintf("run%d", i), Run: e})
	}
	hist.HistoryFrom = "/runs"
	hist.LeftOut = []results.LeftOut{{Name: "a", Reason: "mounted nobarrier"}, {Name: "b", Reason: "mounted nobarrier"}, {Name: "c", Reason: "kernel release 6.1"}}
	add("history", F(false), F(true), hist)
	bw := F(true)
	bw.Derived.Between = &results.BetweenRuns{From: "/runs", Runs: []string{"r1", "r2"}, Cases: []results.CaseSpread{{Case: bw.CaseKey(bw.Arms[1].CaseID).Name(), Runs: 3, OpsPerS: 0.05, Ratio: 0.04}}}
	add("between", F(false), bw, gate(5))
	slowdev := func(k uint64) *results.Run {
		run := F(true)
		run.Meta.Dirs = []results.DirFacts{{Dir: "/tmp", FSType: "ext4", Journal: "yes", Disk: "vda", Queues: []results.BlockQueue{{Device: "vda"}}}}
		for i := range run.Arms {
			for j := range run.Arms[i].Batches {
				b := &run.Arms[i].Batches[j]
				for r := range b.Records {
					if b.Records[r].Stage == results.StageDevFlush {
						b.Records[r].TotalNs *= k
					}
				}
				if run.Arms[i].Arm == "mkstemp-fsync" {
					b.WallNs += int64(k-1) * 38_000_00
				}
			}
		}
		return run
	}
	add("devslower", slowdev(1), slowdev(2), gate(5))
	add("storage", StorageSlower(1, "rw"), StorageSlower(2, "rw"), gate(5))
	// Where in the code (#39): a function whose user time grew, and a
	// function that started to fsync.
	add("code-names", CodeRun(), CodeRunSlowNames(), gate(5))
	add("code-fsync", AppTrace(false), AppTrace(true), gateWork(5))
	return out
}

// WorkerFailed is FixtureRun(false) whose TemporaryFile's worker failed
// after its rounds.
func WorkerFailed() *results.Run {
	return withTemporaryFile(func(a *results.ArmResult) { a.Error = "worker exit: signal: killed\nmore" })
}

// CommandFailed is FixtureRun(false) whose TemporaryFile exited non-zero
// in every other measured batch, as a command under compare
// --ignore-failure does.
func CommandFailed() *results.Run {
	return withTemporaryFile(func(a *results.ArmResult) {
		for i := range a.Batches {
			if a.Batches[i].Kind == results.BatchMeasured && a.Batches[i].Round%2 == 0 {
				a.Batches[i].ExitStatus = 1
			}
		}
	})
}

// withTemporaryFile is FixtureRun(false) with its modes lab's
// TemporaryFile edited.
func withTemporaryFile(edit func(*results.ArmResult)) *results.Run {
	run := FixtureRun(false)
	for i := range run.Arms {
		if run.Arms[i].Arm == "TemporaryFile" && run.Arms[i].Lab == "modes" {
			edit(&run.Arms[i])
		}
	}
	return run
}

// StorageSlower is FixtureRun(true) with a second flushing arm
// (atomic-replace, mkstemp-fsync's records) whose device flushes both
// take k times as long, their wall time with them, on an ext4 mounted
// with options: k 2 against 1 is a shared disk that got slower between
// two runs of the same setting and work.
func StorageSlower(k uint64, options string) *results.Run {
	r := FixtureRun(true)
	r.Meta.KernelRelease = "6.18.0-test"
	r.Meta.Dirs = []results.DirFacts{{Dir: "/tmp", FSType: "ext4", Options: options, Journal: "yes", Disk: "vda", Queues: []results.BlockQueue{{Device: "vda"}}}}
	second := r.Arms[1]
	second.Arm = "atomic-replace"
	second.Batches = slices.Clone(second.Batches)
	r.Arms = append(r.Arms, second)
	for i := range r.Arms {
		if r.Arms[i].Arm != "mkstemp-fsync" && r.Arms[i].Arm != "atomic-replace" {
			continue
		}
		for j := range r.Arms[i].Batches {
			b := &r.Arms[i].Batches[j]
			b.Records = slices.Clone(b.Records)
			for n := range b.Records {
				if b.Records[n].Stage == results.StageDevFlush {
					b.Records[n].TotalNs *= k
				}
			}
			b.WallNs += int64(k-1) * 38_000_000
		}
	}
	return r
}
