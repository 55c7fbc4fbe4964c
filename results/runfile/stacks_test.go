package runfile

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// stackRun is a trace with stacks: fsync's call site and user time in a
// function, both indexing the run's one table.
func stackRun() *results.Run {
	return &results.Run{Schema: results.Schema, Tool: "tmpprobe", Complete: true, Protocol: results.Protocol{Name: results.ProtocolRounds},
		Stacks: &results.Stacks{SamplePeriodNs: 1003009, Every: 16, EveryClass: map[string]uint32{"fsync": 1},
			Frames: []results.Frame{{Function: "persist", File: "/tmp/app.py", Line: 4, Kind: results.FramePython},
				{Function: "main", File: "/tmp/app.py", Line: 10, Kind: results.FramePython},
				{Function: "?", Kind: results.FramePython, Module: "no Python frame"}},
			Table:      []results.Stack{{0, 1}, {2}},
			Unresolved: map[string]uint64{"no Python frame": 1}},
		Arms: []results.ArmResult{{CaseID: results.CaseID{Lab: results.LabTrace, Arm: "python3 app.py", Runtime: "-"}, Ops: 1, Children: true,
			Batches: []results.Batch{{Round: 1, Ops: 1, Phase: 1, Traced: true, WallNs: 1e9,
				Records: []results.ClassRecord{{Class: "fsync", Calls: 5, TotalNs: 5e6}},
				Stacks: []results.StackRecord{{Class: "fsync", Stack: 0, Calls: 5, Ns: 5e6, OffCPUNs: 4e6},
					{Class: results.ClassUser, Stack: 1, Samples: 3, Ns: 3009027}}}}}}}
}

// A run's stacks read back as saved, and so does a trace's following of
// children (its waits for them are in no sum); a stack or a frame that
// is not in the run's table is refused.
func TestStacksReadBack(t *testing.T) {
	read := func(run *results.Run) (*results.Run, error) {
		var buf bytes.Buffer
		if err := WriteRunJSON(&buf, run); err != nil {
			t.Fatal(err)
		}
		return ReadRun(&buf)
	}
	want := stackRun()
	back, err := read(stackRun())
	if err != nil {
		t.Fatal(err)
	}
	if !back.Arms[0].Children {
		t.Errorf("a trace that followed children reads back as one that did not")
	}
	if !reflect.DeepEqual(back.Stacks, want.Stacks) || !reflect.DeepEqual(back.Arms[0].Batches[0].Stacks, want.Arms[0].Batches[0].Stacks) {
		got, _ := json.Marshal(back.Stacks)
		t.Errorf("read back %s", got)
	}
	for _, tc := range []struct {
		name, want string
		spoil      func(*results.Run)
	}{
		{"stack past the table", "stack 2 of the run's 2 stacks", func(r *results.Run) { r.Arms[0].Batches[0].Stacks[0].Stack = 2 }},
		{"negative stack", "stack -1 of the run's 2 stacks", func(r *results.Run) { r.Arms[0].Batches[0].Stacks[0].Stack = -1 }},
		{"stacks without a table", "stack 0 of the run's 0 stacks", func(r *results.Run) { r.Stacks = nil }},
		{"frame past the frames", "stacks.table[1]: frame 3 of 3 frames", func(r *results.Run) { r.Stacks.Table[1] = results.Stack{3} }},
		{"negative line", "line -1", func(r *results.Run) { r.Stacks.Frames[0].Line = -1 }},
		{"more samples than time", "samples", func(r *results.Run) { r.Arms[0].Batches[0].Stacks[1].Samples = 1 << 62 }},
	} {
		run := stackRun()
		tc.spoil(run)
		if _, err := read(run); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it refused saying %q", tc.name, err, tc.want)
		}
	}
}
