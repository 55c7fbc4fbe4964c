package resultstest

import (
	"math"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// The fixtures of #39: runs whose user space was measured (the user
// record carries on-CPU time) and whose batches carry the user stacks
// behind their user time and syscalls, as the probe records them: the
// labs' NamedTemporaryFile against TemporaryFile in CPython 3.11 (the
// functions and lines are tempfile.py's), and traces of a Python program
// whose one function fsyncs and renames.

// Where CPython 3.11 keeps tempfile.py, and what the labs' driver is
// called: the worker runs it with python -c, so its code's file is
// "<string>".
const (
	tempfilePy = "/usr/lib/python3.11/tempfile.py"
	driverPy   = "<string>"
	appPy      = "/home/user/app.py"
)

// py is a CPython frame.
func py(function, file string, line int) results.Frame {
	return results.Frame{Function: function, File: file, Line: line, Kind: results.FramePython}
}

// stackTable interns frames and stacks into a run's table, as the probe
// symbolizes each once a run.
type stackTable struct {
	st     *results.Stacks
	frames map[results.Frame]int
	stacks map[string]int
}

func newStackTable(st *results.Stacks) *stackTable {
	return &stackTable{st: st, frames: map[results.Frame]int{}, stacks: map[string]int{}}
}

// stack is the index of a stack of frames, leaf first.
func (t *stackTable) stack(frames ...results.Frame) int {
	var ids results.Stack
	key := ""
	for _, f := range frames {
		i, ok := t.frames[f]
		if !ok {
			i = len(t.st.Frames)
			t.st.Frames = append(t.st.Frames, f)
			t.frames[f] = i
		}
		ids = append(ids, i)
		key += string(rune(i + 1))
	}
	i, ok := t.stacks[key]
	if !ok {
		i = len(t.st.Table)
		t.st.Table = append(t.st.Table, ids)
		t.stacks[key] = i
	}
	return i
}

// userFn is a function's user time per op and the stack it was sampled
// in.
type userFn struct {
	nsPerOp float64
	stack   []results.Frame
}

// site is a syscall class's calls from one stack: its share of the
// class's calls.
type site struct {
	class string
	share float64
	stack []results.Frame
}

// measuredArm is an arm as a probe that measures user space records it:
// per op, its syscalls' records, its user CPU time, its off-CPU time
// between calls by label, and what no term accounts for; the functions
// its user time was sampled in and the sites its syscalls came from.
type measuredArm struct {
	id      results.CaseID
	ops     int
	recs    func(k float64) []results.ClassRecord // per op times k, for the batch's ops
	userNs  float64
	offNs   map[string]float64
	restNs  float64
	faults  float64 // page faults per op
	funcs   []userFn
	sites   []site
	factors []float64 // each round's times × this
}

// sampleNs is the fixtures' user-time sampler's period: 10 kHz.
const sampleNs = 100_000

// arm makes the arm's batches: per round a traced batch whose times are
// the arm's × the round's factor, and an untraced one 5% faster.
func (m measuredArm) arm(t *stackTable) results.ArmResult {
	a := results.ArmResult{CaseID: m.id, Ops: m.ops}
	ops := float64(m.ops)
	a.Batches = []results.Batch{{Kind: results.BatchCalibrate, Ops: 1, WallNs: 1}, {Kind: results.BatchWarmup, Ops: m.ops, WallNs: 1}}
	for i, k := range m.factors {
		recs := m.recs(k)
		var wall float64
		for j := range recs {
			if recs[j].Stage == "" {
				wall += float64(recs[j].TotalNs)
			}
		}
		user := results.ClassRecord{Class: results.ClassUser, TotalNs: uint64(math.Round(m.userNs * k * ops)), OffNs: map[string]uint64{}}
		for l, v := range m.offNs {
			user.OffNs[l] = uint64(math.Round(v * k * ops))
			user.OffCPUNs += user.OffNs[l]
		}
		wall += float64(user.TotalNs+user.OffCPUNs) + m.restNs*k*ops
		recs = append(recs, user)
		if m.faults > 0 {
			recs = append(recs, results.ClassRecord{Class: results.ClassUser, Stage: results.StagePageFault,
				Calls: uint64(m.faults * ops), TotalNs: uint64(m.faults * ops * 400)})
		}
		b := results.Batch{Round: i + 1, Generation: i + 1, Ops: m.ops, Phase: uint32(i + 1), Traced: true,
			WallNs: int64(math.Round(wall)), Records: recs}
		for j, f := range m.funcs {
			// A sample more or less by round, as a sampler finds them.
			n := uint64(math.Round(f.nsPerOp*k*ops/sampleNs) + float64((i+j)%3) - 1)
			b.Stacks = append(b.Stacks, results.StackRecord{Class: results.ClassUser, Stack: t.stack(f.stack...),
				Samples: n, Ns: n * sampleNs})
		}
		for _, s := range m.sites {
			r := recordOf(recs, s.class)
			b.Stacks = append(b.Stacks, results.StackRecord{Class: s.class, Stack: t.stack(s.stack...),
				Calls: uint64(math.Round(s.share * float64(r.Calls))), Ns: uint64(math.Round(s.share * float64(r.TotalNs))),
				OffCPUNs: uint64(math.Round(s.share * float64(r.OffCPUNs)))})
		}
		a.Batches = append(a.Batches, results.Batch{Round: i + 1, Generation: i + 1, Ops: m.ops, WallNs: b.WallNs * 20 / 21}, b)
	}
	return a
}

func recordOf(recs []results.ClassRecord, class string) results.ClassRecord {
	for _, r := range recs {
		if r.Class == class && r.Stage == "" {
			return r
		}
	}
	return results.ClassRecord{}
}

// perOp is a class's record of calls per op, each of ns (off of it off
// the CPU, under label), for a batch of ops, its times × k.
func perOp(class string, ops int, callsPerOp, ns, off float64, label string, k float64) results.ClassRecord {
	calls := uint64(callsPerOp * float64(ops))
	each := uint64(math.Round(ns * k))
	r := results.ClassRecord{Class: class, Calls: calls, TotalNs: calls * each, OffCPUNs: calls * uint64(math.Round(off*k)),
		Hist: Hist(each, each, each*2)}
	if label != "" && off > 0 {
		r.OffNs = map[string]uint64{label: r.OffCPUNs}
	}
	return r
}

// CodeRun is the modes lab in Python with user space measured and
// stacks taken: NamedTemporaryFile against TemporaryFile over six worker
// generations, its gap mostly user space, which the tempfile module's
// functions split (__getattr__ wrapping the file's methods, the random
// name, _mkstemp_inner), every syscall from its stack in tempfile.py.
func CodeRun() *results.Run { return codeRun(0) }

// CodeRunSlowNames is CodeRun where each random name takes 7.9 µs more
// (_RandomNameSequence.__next__, as a slower random module would): a
// diff names the function.
func CodeRunSlowNames() *results.Run { return codeRun(7_900) }

// codeRun is CodeRun with nameNs more user time per op in
// _RandomNameSequence.__next__.
func codeRun(nameNs float64) *results.Run {
	run := &results.Run{
		Schema: results.Schema, Tool: "tmpprobe", Complete: true,
		Protocol: results.Protocol{Name: results.ProtocolRounds, Seed: 39, Rounds: 6, MinBatchNs: 20_000_000, WorkerRounds: 1},
		Started:  time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC),
		Finished: time.Date(2026, 12, 5, 12, 0, 40, 0, time.UTC),
		Args:     []string{"run", "TemporaryFile", "NamedTemporaryFile", "--runtime", "python"},
		Meta:     results.Meta{KernelRelease: "6.18.1-test", Machine: "x86_64", CPUs: 2, Backend: "tracepoint", Python: "3.11.7"},
		Stacks:   &results.Stacks{SamplePeriodNs: sampleNs, Every: 1},
	}
	t := newStackTable(run.Stacks)
	const ops = 400
	id := func(arm string) results.CaseID {
		return results.CaseID{Lab: "modes", Arm: arm, Runtime: "python", Dir: "/tmp", PayloadBytes: 400}
	}
	tmpOp := py("temporary_file", driverPy, 74)
	tmpOpener := py("TemporaryFile.<locals>.opener", tempfilePy, 629)
	tmpFn := py("TemporaryFile", tempfilePy, 631)
	base := measuredArm{id: id("TemporaryFile"), ops: ops, userNs: 18_500, restNs: 300,
		offNs: map[string]float64{results.OffPreempted: 400, results.OffBlockedIRQ: 200},
		recs: func(k float64) []results.ClassRecord {
			return []results.ClassRecord{perOp(results.ClassOpenatTmpfile, ops, 1, 12_000, 0, "", k), perOp("close", ops, 1, 4_400, 300, results.OffPreempted, k),
				perOp(results.ClassWrite, ops, 1, 3_100, 0, "", k)}
		},
		funcs: []userFn{
			{5_200, []results.Frame{tmpFn, tmpOp}},
			{4_800, []results.Frame{tmpOp}},
			{3_000, []results.Frame{py("_sanitize_params", tempfilePy, 126), tmpFn, tmpOp}},
			{2_100, []results.Frame{tmpOpener, tmpFn, tmpOp}},
			{1_400, []results.Frame{py("_infer_return_type", tempfilePy, 88), py("_sanitize_params", tempfilePy, 116), tmpFn, tmpOp}},
		},
		sites: []site{
			{results.ClassOpenatTmpfile, 1, []results.Frame{tmpOpener, tmpFn, tmpOp}},
			{results.ClassWrite, 1, []results.Frame{py("temporary_file", driverPy, 76)}},
			{"close", 1, []results.Frame{tmpOp}},
		},
		factors: []float64{1.00, 1.02, 0.99, 1.01, 1.06, 0.98},
	}
	namedOp := py("named_temporary_file", driverPy, 81)
	namedFn := py("NamedTemporaryFile", tempfilePy, 563)
	opener := py("NamedTemporaryFile.<locals>.opener", tempfilePy, 560)
	exit := py("_TemporaryFileWrapper.__exit__", tempfilePy, 503)
	named := measuredArm{id: id("NamedTemporaryFile"), ops: ops, userNs: 35_900 + nameNs, restNs: 400,
		offNs: map[string]float64{results.OffPreempted: 500, results.OffBlockedIRQ: 200},
		recs: func(k float64) []results.ClassRecord {
			unlink := perOp("unlink", ops, 1, 9_600, 0, "", k)
			return []results.ClassRecord{perOp(results.ClassOpenatCreate, ops, 1, 14_200, 0, "", k), unlink,
				{Class: "unlink", Stage: results.StageExt4FreeInode, Calls: ops}, {Class: "unlink", Stage: results.StageExt4EvictInode, Calls: ops},
				perOp(results.ClassWrite, ops, 1, 3_100, 0, "", k), perOp("close", ops, 1, 2_000, 0, "", k)}
		},
		funcs: []userFn{
			{7_900, []results.Frame{py("_TemporaryFileWrapper.__getattr__", tempfilePy, 478), py("named_temporary_file", driverPy, 82)}},
			{6_100 + nameNs, []results.Frame{py("_RandomNameSequence.__next__", tempfilePy, 154), py("_mkstemp_inner", tempfilePy, 250), opener, namedFn, namedOp}},
			{4_700, []results.Frame{py("_mkstemp_inner", tempfilePy, 251), opener, namedFn, namedOp}},
			{4_000, []results.Frame{namedFn, namedOp}},
			{3_100, []results.Frame{py("_sanitize_params", tempfilePy, 126), py("NamedTemporaryFile", tempfilePy, 544), namedOp}},
			{2_300, []results.Frame{py("_TemporaryFileCloser.close", tempfilePy, 446), exit, namedOp}},
			{2_000, []results.Frame{namedOp}},
			{1_600, []results.Frame{py("_TemporaryFileWrapper.__init__", tempfilePy, 471), namedFn, namedOp}},
			{1_200, []results.Frame{exit, namedOp}},
		},
		sites: []site{
			{results.ClassOpenatCreate, 1, []results.Frame{py("_mkstemp_inner", tempfilePy, 256), opener, namedFn, namedOp}},
			{"unlink", 1, []results.Frame{py("_TemporaryFileCloser.close", tempfilePy, 446), exit, namedOp}},
			{results.ClassWrite, 1, []results.Frame{py("_TemporaryFileWrapper.__getattr__.<locals>.func_wrapper", tempfilePy, 481), py("named_temporary_file", driverPy, 83)}},
			{"close", 1, []results.Frame{py("_TemporaryFileCloser.close", tempfilePy, 444), exit, namedOp}},
		},
		factors: []float64{1.01, 0.99, 1.03, 1.00, 1.05, 0.97},
	}
	run.Arms = []results.ArmResult{base.arm(t), named.arm(t)}
	return run
}

// AppTrace is 'tmpprobe trace -- python3 app.py' of a program whose
// persist() writes a file and renames it into place, and fsyncs it
// before the rename when fsync is set (the change a diff of the two
// names), and whose make() makes temporary files, over one run.
func AppTrace(fsync bool) *results.Run {
	run := &results.Run{Schema: results.Schema, Tool: "tmpprobe", Kind: results.KindTrace, Complete: true,
		Started: time.Date(2026, 12, 5, 13, 0, 0, 0, time.UTC), Args: []string{"trace", "--", "python3", "app.py"},
		Meta:   results.Meta{KernelRelease: "6.18.1-test", Machine: "x86_64", CPUs: 2, Backend: "tracepoint", Python: "3.11.7"},
		Stacks: &results.Stacks{SamplePeriodNs: sampleNs, Every: 1},
	}
	t := newStackTable(run.Stacks)
	main10, main11 := py("main", appPy, 10), py("main", appPy, 11)
	persist := func(line int) []results.Frame { return []results.Frame{py("persist", appPy, line), main10} }
	mk := []results.Frame{py("TemporaryFile.<locals>.opener", tempfilePy, 629), py("TemporaryFile", tempfilePy, 631), py("make", appPy, 8), main11}
	recs := []results.ClassRecord{
		Rec(results.ClassOpenatTmpfile, 40, 600_000, 0, ""), Rec(results.ClassOpenatCreate, 20, 90_000, 0, ""),
		Rec("rename", 20, 3_450_000, 3_000_000, results.OffBlockedJBD2), Rec(results.ClassWrite, 60, 30_000, 0, ""),
		Rec("close", 60, 10_000, 0, ""),
	}
	stacks := []results.StackRecord{
		{Class: results.ClassOpenatTmpfile, Stack: t.stack(mk...), Calls: 40, Ns: 40 * 600_000},
		{Class: results.ClassOpenatCreate, Stack: t.stack(persist(3)...), Calls: 20, Ns: 20 * 90_000},
		{Class: "rename", Stack: t.stack(persist(5)...), Calls: 20, Ns: 20 * 3_450_000, OffCPUNs: 20 * 3_000_000},
		{Class: results.ClassWrite, Stack: t.stack(py("make", appPy, 9), main11), Calls: 40, Ns: 40 * 30_000},
		{Class: results.ClassWrite, Stack: t.stack(persist(4)...), Calls: 20, Ns: 20 * 30_000},
		{Class: "close", Stack: t.stack(py("make", appPy, 8), main11), Calls: 40, Ns: 40 * 10_000},
		{Class: "close", Stack: t.stack(persist(3)...), Calls: 20, Ns: 20 * 10_000},
	}
	wall := int64(165_000_000)
	if fsync {
		recs = append(recs, Rec("fsync", 20, 6_350_000, 5_800_000, results.OffBlockedJBD2))
		stacks = append(stacks, results.StackRecord{Class: "fsync", Stack: t.stack(persist(4)...), Calls: 20, Ns: 20 * 6_350_000, OffCPUNs: 20 * 5_800_000})
		wall += 127_000_000
	}
	recs = append(recs, results.ClassRecord{Class: results.ClassUser, TotalNs: 62_000_000, OffCPUNs: 3_000_000,
		OffNs: map[string]uint64{results.OffPreempted: 3_000_000}})
	for _, f := range []struct {
		samples uint64
		stack   []results.Frame
	}{
		{400, []results.Frame{py("checksum", appPy, 15), py("main", appPy, 12)}},
		{90, []results.Frame{py("make", appPy, 8), main11}},
		{50, []results.Frame{py("TemporaryFile", tempfilePy, 631), py("make", appPy, 8), main11}},
		{40, []results.Frame{py("persist", appPy, 4), main10}},
		{20, []results.Frame{py("<module>", appPy, 18)}},
	} {
		stacks = append(stacks, results.StackRecord{Class: results.ClassUser, Stack: t.stack(f.stack...), Samples: f.samples, Ns: f.samples * sampleNs})
	}
	run.Arms = []results.ArmResult{{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "python3 app.py", Runtime: "-"}, Ops: 1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Traced: true, WallNs: wall, Records: recs, Stacks: stacks}}}}
	return run
}

// SpinTrace is a trace of a Python program whose two threads spin for
// 0.1 s: 0.21 s of user CPU in 0.10 s of wall time, which the wall time
// less the syscalls made −0.09 s of user space before it was measured.
func SpinTrace() *results.Run {
	run := &results.Run{Schema: results.Schema, Tool: "tmpprobe", Kind: results.KindTrace, Complete: true,
		Started: time.Date(2026, 12, 5, 14, 0, 0, 0, time.UTC), Args: []string{"trace", "--", "python3", "spin.py"},
		Meta:   results.Meta{KernelRelease: "6.18.1-test", Machine: "x86_64", CPUs: 2, Backend: "tracepoint", Python: "3.11.7"},
		Stacks: &results.Stacks{SamplePeriodNs: sampleNs, Every: 1},
	}
	t := newStackTable(run.Stacks)
	spin := py("spin", "/home/user/spin.py", 5)
	recs := []results.ClassRecord{
		Rec("futex", 2, 49_000_000, 48_500_000, results.OffSleepOther), Rec("clone3", 2, 150_000, 0, ""),
		{Class: results.ClassUser, TotalNs: 210_000_000, OffCPUNs: 2_000_000, OffNs: map[string]uint64{results.OffPreempted: 2_000_000}},
	}
	stacks := []results.StackRecord{
		{Class: results.ClassUser, Stack: t.stack(spin, py("Thread.run", "/usr/lib/python3.11/threading.py", 975)), Samples: 2_050, Ns: 2_050 * sampleNs},
		{Class: "futex", Stack: t.stack(py("Thread.join", "/usr/lib/python3.11/threading.py", 1119), py("<module>", "/home/user/spin.py", 12)), Calls: 2,
			Ns: 2 * 49_000_000, OffCPUNs: 2 * 48_500_000},
		{Class: "clone3", Stack: t.stack(py("Thread.start", "/usr/lib/python3.11/threading.py", 957), py("<module>", "/home/user/spin.py", 10)), Calls: 2, Ns: 2 * 150_000},
	}
	run.Arms = []results.ArmResult{{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "python3 spin.py", Runtime: "-"}, Ops: 1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Traced: true, WallNs: 100_000_000, Records: recs, Stacks: stacks}}}}
	return run
}

// CodeLabs is the catalogue's knowledge of CodeRun's lab: the headline
// question of the modes lab, NamedTemporaryFile against TemporaryFile.
var CodeLabs = explain.LabKnowledge{
	Baselines: Labs.Baselines,
	Pairs:     []explain.Pair{{Lab: "modes", A: "NamedTemporaryFile", B: "TemporaryFile", Headline: true}},
}
