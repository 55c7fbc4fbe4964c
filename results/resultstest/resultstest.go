// Package resultstest holds what the tests of the results packages share:
// a fixture run with every kind of arm, the catalogue's lab knowledge as
// far as the fixture needs it, and golden files under results/testdata.
// Only tests import it.
package resultstest

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/pprof/profile"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

var update = flag.Bool("update", false, "rewrite the golden files under results/testdata/")

// Testdata is results/testdata as the tests of the packages under results/
// see it from their own directory. cmd/tmpprobe's tests read it too.
var Testdata = filepath.Join("..", "testdata")

// Golden compares got with the golden file name under Testdata, or
// rewrites it with -update.
func Golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join(Testdata, name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run 'go test ./results/... -update' to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// GoldenBytes is the golden file name under Testdata.
func GoldenBytes(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(Testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Render is what write writes.
func Render(t *testing.T, write func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// ReadProfile parses the pprof profile at path.
func ReadProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Hist builds a histogram from single-call latencies.
func Hist(ns ...uint64) []results.HistBucket {
	counts := map[int]uint64{}
	var order []int
	for _, v := range ns {
		s := results.HistSlot(v)
		if counts[s] == 0 {
			order = append(order, s)
		}
		counts[s]++
	}
	var out []results.HistBucket
	for _, s := range order {
		out = append(out, results.HistBucket{Slot: s, Count: counts[s]})
	}
	return out
}

// Rec is a record of calls calls of perCall ns each (perCallOff of it off
// the CPU, all under one label).
func Rec(class string, calls, perCall, perCallOff uint64, label string) results.ClassRecord {
	r := results.ClassRecord{Class: class, Calls: calls, TotalNs: calls * perCall, OffCPUNs: calls * perCallOff,
		Hist: Hist(perCall, perCall, perCall*2)}
	if label != "" {
		r.OffNs = map[string]uint64{label: calls * perCallOff}
	}
	return r
}

// Batches makes one measured round per wall time: an untraced batch of
// ops ops lasting wall, and a traced one 5% slower with records. Each
// round is a worker generation of its own (--worker-rounds 1), so every
// round is a unit of the intervals.
func Batches(ops int, walls []int64, traced func(i int) []results.ClassRecord) []results.Batch {
	out := []results.Batch{{Kind: results.BatchCalibrate, Ops: 1, WallNs: walls[0] / int64(ops)}, {Kind: results.BatchWarmup, Ops: ops, WallNs: walls[0]}}
	phase := uint32(0)
	for i, w := range walls {
		out = append(out, results.Batch{Round: i + 1, Generation: i + 1, Ops: ops, WallNs: w})
		phase++
		out = append(out, results.Batch{Round: i + 1, Generation: i + 1, Ops: ops, Phase: phase, Traced: true, WallNs: w + w/20, Records: traced(i)})
	}
	return out
}

// Variants are the fixture's two runs, each with the directory of its
// golden files: old, and new with the slow fsync (FixtureRun(true)).
var Variants = []struct {
	Name string
	Slow bool
}{{"old", false}, {"new", true}}

// FixtureRun is a small run with every kind of arm: a baseline, an fsync
// arm with off-CPU labels, a buffers arm, and a failed arm. slowFsync
// makes fsync wait for the journal as well, three times as long, with a
// flush stage, on another kernel: a known regression with a known cause.
func FixtureRun(slowFsync bool) *results.Run {
	kernel, fsyncNs, fsyncOff := "6.18.0-test", uint64(200_000), uint64(150_000)
	if slowFsync {
		kernel, fsyncNs, fsyncOff = "6.18.1-test", 600_000, 550_000
	}
	run := &results.Run{
		Schema: results.Schema, Tool: "tmpprobe", Complete: true,
		Protocol: results.Protocol{Name: results.ProtocolRounds, Seed: 42, Rounds: 6, MinBatchNs: 20_000_000},
		Started:  time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
		Finished: time.Date(2025, 3, 1, 12, 0, 30, 0, time.UTC),
		Args:     []string{"run", "TemporaryFile", "mkstemp-fsync", "mkstemp-fdatasync", "NamedTemporaryFile", "--runtime", "go", "--out", "x"},
		Meta: results.Meta{KernelRelease: kernel, Machine: "x86_64", CPU: "Test CPU", CPUs: 2,
			Backend: "tracepoint", BackendDetail: "tp_btf", MissingHooks: []string{"page_fault_user: not in this kernel"}},
		Drops: map[string]uint64{"map_full": 0},
	}
	tmpfile := results.ArmResult{CaseID: results.CaseID{Lab: "modes", Arm: "TemporaryFile", Runtime: "go", Dir: "/tmp", PayloadBytes: 400}, Ops: 100}
	tmpfile.Batches = Batches(100, []int64{8_000_000, 8_200_000, 7_900_000, 8_100_000, 9_000_000, 7_950_000}, func(int) []results.ClassRecord {
		return []results.ClassRecord{Rec("openat[tmpfile]", 100, 54_000, 0, ""), Rec("write", 100, 9_000, 0, ""), Rec("close", 100, 12_000, 0, "")}
	})
	fsync := results.ArmResult{CaseID: results.CaseID{Lab: "modes", Arm: "mkstemp-fsync", Runtime: "go", Dir: "/tmp", PayloadBytes: 400}, Ops: 100}
	walls := []int64{30_000_000, 31_000_000, 29_500_000, 30_500_000, 33_000_000, 29_900_000}
	if slowFsync {
		walls = []int64{70_000_000, 71_000_000, 69_500_000, 70_500_000, 77_000_000, 69_800_000}
	}
	fsync.Batches = Batches(100, walls, func(int) []results.ClassRecord {
		f := Rec("fsync", 100, fsyncNs, fsyncOff, "blocked/irq")
		out := []results.ClassRecord{Rec("openat[create]", 100, 60_000, 0, ""), Rec("write", 100, 13_000, 0, ""), f,
			Rec("close", 100, 4_000, 0, ""), Rec("unlink", 100, 20_000, 5_000, "preempted")}
		if slowFsync {
			f.OffNs = map[string]uint64{"blocked/irq": 100 * 150_000, "blocked/jbd2": 100 * 400_000}
			out[2] = f
			out = append(out, results.ClassRecord{Class: "fsync", Stage: results.StageDevFlush, Calls: 100, TotalNs: 100 * 380_000})
		}
		return out
	})
	failed := results.ArmResult{
		CaseID: results.CaseID{Lab: "modes", Arm: "mkstemp-fdatasync", Runtime: "go", Dir: "/tmp", PayloadBytes: 400},
		Ops:    100,
		Error:  "worker exit: exit status 1\nTraceback: boom",
		Stderr: "boom",
	}
	spill := results.ArmResult{CaseID: results.CaseID{Lab: "buffers", Arm: "NamedTemporaryFile", Runtime: "go", Dir: "/tmp", SizeBytes: 1 << 20}, Ops: 1}
	spill.Batches = Batches(1, []int64{900_000, 950_000, 880_000, 910_000, 990_000, 870_000}, func(int) []results.ClassRecord {
		return []results.ClassRecord{Rec("write", 16, 20_000, 0, ""), Rec("read", 17, 12_000, 0, ""), Rec("openat[create]", 1, 60_000, 0, ""),
			Rec("unlink", 1, 40_000, 0, ""), {Class: results.ClassUser, Stage: results.StagePageFault, Calls: 256, TotalNs: 256 * 400}}
	})
	run.Arms = []results.ArmResult{tmpfile, fsync, failed, spill}
	return run
}

// Labs is the arms catalogue's lab knowledge as far as the fixture's arms
// need it (results cannot import arms; cmd/tmpprobe's report tests render
// the same golden files from the catalogue itself).
var Labs = explain.LabKnowledge{
	Baselines: map[string]string{"modes": "TemporaryFile", "buffers": "BytesIO"},
	Pairs: []explain.Pair{{Lab: "modes", A: "mkstemp-fsync", B: "TemporaryFile"}, {Lab: "modes", A: "mkstemp-fdatasync", B: "TemporaryFile"},
		{Lab: "buffers", A: "SpooledTemporaryFile", B: "BytesIO"}, {Lab: "buffers", A: "NamedTemporaryFile", B: "SpooledTemporaryFile"}},
	Spills: []explain.Spill{{Lab: "buffers", Arm: "SpooledTemporaryFile", Versus: "NamedTemporaryFile"}},
}

// Sums summarizes run with the fixture's baselines.
func Sums(run *results.Run) []*results.Summary { return results.SummarizeAll(run, Labs.Baselines) }

// Scaled is run on a machine k times slower: every batch takes k times as
// long, so every ratio stays as it was.
func Scaled(run *results.Run, k float64) *results.Run {
	for i := range run.Arms {
		for j := range run.Arms[i].Batches {
			b := &run.Arms[i].Batches[j]
			b.WallNs = int64(float64(b.WallNs) * k)
		}
	}
	run.Meta.LoadAvg = 1.5
	return run
}

// StateRun is a modes run of twelve worker generations whose
// NamedTemporaryFile ÷ TemporaryFile ratio steps with the cost of an ext4
// inode allocation: half the generations allocate in 5 µs and run at
// 0.90 of the baseline, half in 150 µs and run at 0.40 (the baseline
// allocates nothing: it opens O_TMPFILE). Its report has a state link
// in WHY, and the warning a live run adds for it.
func StateRun() *results.Run {
	const ops = 100
	run := &results.Run{
		Schema: results.Schema, Tool: "tmpprobe", Complete: true,
		Protocol: results.Protocol{Name: results.ProtocolRounds, Seed: 7, Rounds: 12, MinBatchNs: 20_000_000, WorkerRounds: 1},
		Started:  time.Date(2025, 3, 2, 12, 0, 0, 0, time.UTC),
		Finished: time.Date(2025, 3, 2, 12, 1, 0, 0, time.UTC),
		Args:     []string{"run", "TemporaryFile", "NamedTemporaryFile", "--runtime", "go", "--rounds", "12", "--worker-rounds", "1"},
		Meta:     results.Meta{KernelRelease: "6.18.1-test", Machine: "x86_64", CPUs: 2, Backend: "tracepoint"},
	}
	base := results.ArmResult{CaseID: results.CaseID{Lab: "modes", Arm: "TemporaryFile", Runtime: "go", Dir: "/tmp", PayloadBytes: 400}, Ops: ops}
	named := results.ArmResult{CaseID: results.CaseID{Lab: "modes", Arm: "NamedTemporaryFile", Runtime: "go", Dir: "/tmp", PayloadBytes: 400}, Ops: ops}
	baseWalls, namedWalls := make([]int64, 12), make([]int64, 12)
	inodeNs := make([]uint64, 12)
	for i := range 12 {
		baseWalls[i] = 8_000_000 + int64(i%3)*40_000
		slow := i%2 == 1 // alternate, so the state is not the order of the run
		namedWalls[i], inodeNs[i] = 8_900_000+int64(i%3)*40_000, 5_000
		if slow {
			namedWalls[i], inodeNs[i] = 20_000_000+int64(i%3)*100_000, 150_000+uint64(i)*1_000
		}
	}
	base.Batches = Batches(ops, baseWalls, func(int) []results.ClassRecord {
		return []results.ClassRecord{Rec(results.ClassOpenatTmpfile, ops, 50_000, 0, ""), Rec("close", ops, 10_000, 0, "")}
	})
	named.Batches = Batches(ops, namedWalls, func(i int) []results.ClassRecord {
		return []results.ClassRecord{Rec(results.ClassOpenatCreate, ops, inodeNs[i]+20_000, 0, ""),
			{Class: results.ClassOpenatCreate, Stage: results.StageExt4NewInode, Calls: ops, TotalNs: ops * inodeNs[i]},
			Rec("unlink", ops, 15_000, 0, ""), Rec("close", ops, 5_000, 0, "")}
	})
	run.Arms = []results.ArmResult{base, named}
	run.Derived.Warnings = explain.StateWarnings(Sums(run), Labs.Baselines)
	return run
}

// CommandsRun is a compare run of two commands over six rounds: "sync"
// calls fsync and takes twice as long as "nosync".
func CommandsRun() *results.Run {
	run := &results.Run{Schema: results.Schema, Tool: "tmpprobe", Kind: results.KindCompare, Complete: true,
		Protocol: results.Protocol{Name: results.ProtocolRounds, Seed: 3, Rounds: 6},
		Started:  time.Date(2025, 3, 3, 12, 0, 0, 0, time.UTC),
		Args:     []string{"compare", "nosync", "sync"},
		Meta: results.Meta{KernelRelease: "6.18.1-test", Machine: "x86_64", CPUs: 2, Backend: "tracepoint",
			Notes: []results.Note{{Kind: results.NoteRanAs, What: "tester (uid 1000)"}, {Kind: results.NoteBackendSkipped,
				Backend: "fentry", Verdict: "permission refused", Reason: "load program: operation not permitted"}}},
	}
	command := func(name string, wall int64, recs ...results.ClassRecord) results.ArmResult {
		a := results.ArmResult{CaseID: results.CaseID{Lab: results.LabCompare, Arm: name, Runtime: "-"}, Ops: 1}
		walls := []int64{wall, wall + wall/50, wall - wall/40, wall + wall/30, wall, wall - wall/60}
		a.Batches = Batches(1, walls, func(int) []results.ClassRecord { return recs })
		return a
	}
	run.Arms = []results.ArmResult{
		command("nosync", 10_000_000, Rec("write", 100, 20_000, 0, ""), Rec("openat[create]", 10, 60_000, 0, "")),
		command("sync", 20_000_000, Rec("write", 100, 20_000, 0, ""), Rec("openat[create]", 10, 60_000, 0, ""),
			Rec("fsync", 10, 1_000_000, 900_000, "blocked/irq")),
	}
	return run
}

// TraceRun is a trace of one command and a region it marked.
func TraceRun() *results.Run {
	run := &results.Run{Schema: results.Schema, Tool: "tmpprobe", Kind: results.KindTrace, Complete: true,
		Started: time.Date(2025, 3, 4, 12, 0, 0, 0, time.UTC), Args: []string{"trace", "--", "./app"},
		Meta: results.Meta{KernelRelease: "6.18.1-test", Machine: "x86_64", CPUs: 2, Backend: "tracepoint",
			Notes: []results.Note{{Kind: results.NoteUncontained, Reason: "no cgroup2 mount"}}},
	}
	arm := func(name string, ops int, wall int64, recs ...results.ClassRecord) results.ArmResult {
		return results.ArmResult{CaseID: results.CaseID{Lab: results.LabTrace, Arm: name, Runtime: "-"}, Ops: ops,
			Batches: []results.Batch{{Round: 1, Ops: ops, Traced: true, WallNs: wall, Records: recs}}}
	}
	run.Arms = []results.ArmResult{
		arm("./app", 1, 50_000_000, Rec("fsync", 20, 1_500_000, 1_400_000, "blocked/jbd2"), Rec("write", 200, 30_000, 0, "")),
		arm(results.RegionArm(1), 20, 40_000_000, Rec("fsync", 20, 1_500_000, 1_400_000, "blocked/jbd2")),
	}
	return run
}
