package results_test

import (
	"math"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// A function's user time is the arm's user time (its median over the
// traced rounds, as every time is) times the function's share of the
// samples, with an interval; the functions and the samples no function
// was named for add up to user space.
func TestFunctionsAreSharesOfUserTime(t *testing.T) {
	run := resultstest.CodeRun()
	sums := results.SummarizeAll(run, resultstest.CodeLabs.Baselines)
	named := sums[1]
	if named.Arm != "NamedTemporaryFile" || len(named.Functions) != 9 {
		t.Fatalf("%s: %d functions, want NamedTemporaryFile's 9", named.Arm, len(named.Functions))
	}
	top := named.Functions[0]
	if top.Frame.Function != "_TemporaryFileWrapper.__getattr__" || top.Frame.Line != 478 {
		t.Errorf("the most user time in %s, want _TemporaryFileWrapper.__getattr__ at line 478", top.Frame.Label())
	}
	var all uint64
	for _, r := range named.Traced.Stacks {
		if r.Class == results.ClassUser {
			all += r.Samples
		}
	}
	want := named.UserNsPerOp * float64(top.Samples) / float64(all)
	if math.Abs(top.NsPerOp.Center-want) > 1e-6 || !top.NsPerOp.Bounded() || !top.NsPerOp.Contains(want) {
		t.Errorf("%s: %.1f ns/op %v, want user space × its share of the samples, %.1f, with an interval", top.Frame.Function, top.NsPerOp.Center, top.NsPerOp, want)
	}
	if want := top.NsPerOp.Center / named.UserNsPerOp; top.Share != want {
		t.Errorf("share %.3f, want %.3f of user space", top.Share, want)
	}
	var shares float64
	for _, f := range named.Functions {
		shares += f.Share
	}
	if total := shares + named.UnsampledNsPerOp/named.UserNsPerOp; math.Abs(total-1) > 1e-9 {
		t.Errorf("the functions' shares and the part not named add up to %.3f of user space", total)
	}
}

// A sample goes to its innermost Python frame's function: a native leaf
// (the eval loop, a dict lookup) is what CPython did, not which of the
// program's functions made it; a stack of native frames alone (a Go
// program) goes to its leaf.
func TestSampleGoesToInnermostPythonFrame(t *testing.T) {
	st := &results.Stacks{Frames: []results.Frame{
		{Function: "_PyEval_EvalFrameDefault", Kind: results.FrameNative, Module: "python3.11"},
		{Function: "checksum", File: "app.py", Line: 15, Kind: results.FramePython},
		{Function: "main.persist", File: "main.go", Line: 40, Kind: results.FrameNative},
	}, Table: []results.Stack{{0, 1}, {2}}}
	run := &results.Run{Stacks: st, Arms: []results.ArmResult{{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "app"}, Ops: 1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Traced: true, WallNs: 1e9,
			Records: []results.ClassRecord{{Class: results.ClassUser, TotalNs: 5e8}},
			Stacks: []results.StackRecord{{Class: results.ClassUser, Stack: 0, Samples: 30, Ns: 3e8},
				{Class: results.ClassUser, Stack: 1, Samples: 10, Ns: 1e8}}}}}}}
	s := results.SummarizeAll(run, nil)[0]
	if len(s.Functions) != 2 || s.Functions[0].Frame.Function != "checksum" || s.Functions[1].Frame.Function != "main.persist" {
		t.Fatalf("functions %+v, want checksum then main.persist", s.Functions)
	}
	// 30 of the 40 samples: three quarters of the 5e8 ns measured.
	if s.Functions[0].NsPerOp.Center != 3.75e8 || s.UnsampledNsPerOp != 0 {
		t.Errorf("checksum %.0f ns, not named %.0f ns: want 3.75e8 and 0", s.Functions[0].NsPerOp.Center, s.UnsampledNsPerOp)
	}
}

// A call site's part of its class's row is its share of the calls whose
// stacks were taken: with one call in four taken, the sites split the
// class's exact calls, time and off-CPU time each by their own shares.
func TestSitesSplitTheirClassBySampledShares(t *testing.T) {
	st := &results.Stacks{Every: 4, Frames: []results.Frame{
		{Function: "persist", File: "app.py", Line: 4, Kind: results.FramePython},
		{Function: "flush", File: "app.py", Line: 20, Kind: results.FramePython},
	}, Table: []results.Stack{{0}, {1}}}
	run := &results.Run{Stacks: st, Arms: []results.ArmResult{{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "app"}, Ops: 1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Traced: true, WallNs: 1e9,
			Records: []results.ClassRecord{{Class: "fsync", Calls: 40, TotalNs: 4e8, OffCPUNs: 3e8}},
			Stacks: []results.StackRecord{{Class: "fsync", Stack: 0, Calls: 6, Ns: 9e7, OffCPUNs: 6e7},
				{Class: "fsync", Stack: 1, Calls: 4, Ns: 1e7, OffCPUNs: 0}}}}}}}
	s := results.SummarizeAll(run, nil)[0]
	sites := s.SitesOf("fsync")
	if len(sites) != 2 || sites[0].Stack[0].Function != "persist" {
		t.Fatalf("sites %+v, want persist's first", sites)
	}
	p := sites[0]
	if p.Calls != 6 || p.CallsPerOp != 24 || p.NsPerOp != 3.6e8 || p.OffNsPerOp != 3e8 {
		t.Errorf("persist: %d sampled calls, %.1f calls, %.0f ns, %.0f ns off-CPU: want 6, 24, 3.6e8, 3e8", p.Calls, p.CallsPerOp, p.NsPerOp, p.OffNsPerOp)
	}
	if p.CallShare != 0.6 || p.TimeShare != 0.9 || p.OffShare != 1 {
		t.Errorf("persist's shares %.2f, %.2f, %.2f: want 0.6 of calls, 0.9 of time, all of the off-CPU time", p.CallShare, p.TimeShare, p.OffShare)
	}
}

// Where the stacks were taken in traced batches of their own, a site's
// part of its class's row is its share there of the row the other
// batches measured: the stack batch's fsync took twice the time, which
// per round would put persist at 180% of its row.
func TestSitesOfStackBatchesApart(t *testing.T) {
	st := &results.Stacks{Every: 4, Frames: []results.Frame{
		{Function: "persist", File: "app.py", Line: 4, Kind: results.FramePython},
		{Function: "flush", File: "app.py", Line: 20, Kind: results.FramePython},
	}, Table: []results.Stack{{0}, {1}}}
	run := &results.Run{Stacks: st, Arms: []results.ArmResult{{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "app"}, Ops: 1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Traced: true, StacksTaken: true, WallNs: 2e9,
			Records: []results.ClassRecord{{Class: "fsync", Calls: 40, TotalNs: 8e8, OffCPUNs: 6e8}},
			Stacks: []results.StackRecord{{Class: "fsync", Stack: 0, Calls: 6, Ns: 9e7, OffCPUNs: 6e7},
				{Class: "fsync", Stack: 1, Calls: 4, Ns: 1e7, OffCPUNs: 0}}},
			{Round: 2, Ops: 1, Traced: true, WallNs: 1e9,
				Records: []results.ClassRecord{{Class: "fsync", Calls: 40, TotalNs: 4e8, OffCPUNs: 3e8}}}}}}}
	s := results.SummarizeAll(run, nil)[0]
	sites := s.SitesOf("fsync")
	if len(sites) != 2 || sites[0].Stack[0].Function != "persist" {
		t.Fatalf("sites %+v, want persist's first", sites)
	}
	if p := sites[0]; p.CallsPerOp != 24 || p.NsPerOp != 3.6e8 || p.TimeShare != 0.9 || p.OffShare != 1 {
		t.Errorf("persist: %.1f calls, %.0f ns (%.2f of the row), off-CPU share %.2f: want 24, 3.6e8 (0.9), 1", p.CallsPerOp, p.NsPerOp, p.TimeShare, p.OffShare)
	}
}
