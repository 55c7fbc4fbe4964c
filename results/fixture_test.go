package results

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
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
		t.Fatalf("%v (run 'go test ./results -update' to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from the golden file (run with -update if the change is intended)\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// hist builds a histogram from single-call latencies.
func hist(ns ...uint64) []HistBucket {
	counts := map[int]uint64{}
	var order []int
	for _, v := range ns {
		s := HistSlot(v)
		if counts[s] == 0 {
			order = append(order, s)
		}
		counts[s]++
	}
	var out []HistBucket
	for _, s := range order {
		out = append(out, HistBucket{Slot: s, Count: counts[s]})
	}
	return out
}

// rec is a record of calls calls of perCall ns each (perCallOff of it off
// the CPU, all under one label).
func rec(class string, calls, perCall, perCallOff uint64, label string) ClassRecord {
	r := ClassRecord{Class: class, Calls: calls, TotalNs: calls * perCall, OffCPUNs: calls * perCallOff,
		Hist: hist(perCall, perCall, perCall*2)}
	if label != "" {
		r.OffNs = map[string]uint64{label: calls * perCallOff}
	}
	return r
}

// batches makes one measured round per wall time: an untraced batch of
// ops ops lasting wall, and a traced one 5% slower with records.
func batches(ops int, walls []int64, traced func(i int) []ClassRecord) []Batch {
	out := []Batch{{Kind: BatchCalibrate, Ops: 1, WallNs: walls[0] / int64(ops)}, {Kind: BatchWarmup, Ops: ops, WallNs: walls[0]}}
	phase := uint32(0)
	for i, w := range walls {
		out = append(out, Batch{Round: i + 1, Ops: ops, WallNs: w})
		phase++
		out = append(out, Batch{Round: i + 1, Ops: ops, Phase: phase, Traced: true, WallNs: w + w/20, Records: traced(i)})
	}
	return out
}

// fixtureRun is a small run with every kind of arm: a baseline, an fsync
// arm with off-CPU labels, a buffers arm, and a failed arm. slowFsync
// makes fsync wait for the journal as well, three times as long, with a
// flush stage, on another kernel: a known regression with a known cause.
func fixtureRun(slowFsync bool) *Run {
	kernel, fsyncNs, fsyncOff := "6.18.0-test", uint64(200_000), uint64(150_000)
	if slowFsync {
		kernel, fsyncNs, fsyncOff = "6.18.1-test", 600_000, 550_000
	}
	run := &Run{
		Schema: Schema, Tool: "tmpprobe", Complete: true,
		Protocol: Protocol{Name: ProtocolRounds, Seed: 42, Rounds: 6, MinBatchNs: 20_000_000},
		Started:  time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
		Finished: time.Date(2025, 3, 1, 12, 0, 30, 0, time.UTC),
		Args:     []string{"run", "TemporaryFile", "mkstemp-fsync", "mkstemp-fdatasync", "NamedTemporaryFile", "--runtime", "go", "--out", "x"},
		Meta: Meta{KernelRelease: kernel, Machine: "x86_64", CPU: "Test CPU", CPUs: 2,
			Backend: "tracepoint", BackendDetail: "tp_btf", MissingHooks: []string{"page_fault_user: not in this kernel"}},
		Drops: map[string]uint64{"map_full": 0},
	}
	tmpfile := ArmResult{Lab: "modes", Arm: "TemporaryFile", Runtime: "go", Dir: "/tmp", PayloadBytes: 400, Ops: 100}
	tmpfile.Batches = batches(100, []int64{8_000_000, 8_200_000, 7_900_000, 8_100_000, 9_000_000, 7_950_000}, func(int) []ClassRecord {
		return []ClassRecord{rec("openat[tmpfile]", 100, 54_000, 0, ""), rec("write", 100, 9_000, 0, ""), rec("close", 100, 12_000, 0, "")}
	})
	fsync := ArmResult{Lab: "modes", Arm: "mkstemp-fsync", Runtime: "go", Dir: "/tmp", PayloadBytes: 400, Ops: 100}
	walls := []int64{30_000_000, 31_000_000, 29_500_000, 30_500_000, 33_000_000, 29_900_000}
	if slowFsync {
		walls = []int64{70_000_000, 71_000_000, 69_500_000, 70_500_000, 77_000_000, 69_800_000}
	}
	fsync.Batches = batches(100, walls, func(int) []ClassRecord {
		f := rec("fsync", 100, fsyncNs, fsyncOff, "blocked/irq")
		out := []ClassRecord{rec("openat[create]", 100, 60_000, 0, ""), rec("write", 100, 13_000, 0, ""), f,
			rec("close", 100, 4_000, 0, ""), rec("unlink", 100, 20_000, 5_000, "preempted")}
		if slowFsync {
			f.OffNs = map[string]uint64{"blocked/irq": 100 * 150_000, "blocked/jbd2": 100 * 400_000}
			out[2] = f
			out = append(out, ClassRecord{Class: "fsync", Stage: "dev_flush", Calls: 100, TotalNs: 100 * 380_000})
		}
		return out
	})
	failed := ArmResult{Lab: "modes", Arm: "mkstemp-fdatasync", Runtime: "go", Dir: "/tmp", PayloadBytes: 400, Ops: 100,
		Error: "worker exit: exit status 1\nTraceback: boom", Stderr: "boom"}
	spill := ArmResult{Lab: "buffers", Arm: "NamedTemporaryFile", Runtime: "go", Dir: "/tmp", SizeBytes: 1 << 20, Ops: 1}
	spill.Batches = batches(1, []int64{900_000, 950_000, 880_000, 910_000, 990_000, 870_000}, func(int) []ClassRecord {
		return []ClassRecord{rec("write", 16, 20_000, 0, ""), rec("read", 17, 12_000, 0, ""), rec("openat[create]", 1, 60_000, 0, ""),
			rec("unlink", 1, 40_000, 0, ""), {Class: "user", Stage: "page_fault", Calls: 256, TotalNs: 256 * 400}}
	})
	run.Arms = []ArmResult{tmpfile, fsync, failed, spill}
	return run
}

// fixtureLabs is the arms catalogue's lab knowledge as far as the fixture's
// arms need it (results cannot import arms; cmd/tmpprobe's report tests
// render the same golden files from the catalogue itself).
var fixtureLabs = LabKnowledge{
	Baselines: map[string]string{"modes": "TemporaryFile", "buffers": "BytesIO"},
	Pairs: []Pair{{"modes", "mkstemp-fsync", "TemporaryFile"}, {"modes", "mkstemp-fdatasync", "TemporaryFile"},
		{"buffers", "SpooledTemporaryFile", "BytesIO"}, {"buffers", "NamedTemporaryFile", "SpooledTemporaryFile"}},
	Spills: []Spill{{"buffers", "SpooledTemporaryFile", "NamedTemporaryFile"}},
}

func fixtureSums(run *Run) []*Summary { return SummarizeAll(run, fixtureLabs.Baselines) }
