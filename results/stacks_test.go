package results

import (
	"reflect"
	"testing"
)

// Two snapshots' difference is what each stack took between them; a
// stack that took nothing more is left out, and a total that read less
// than before is none.
func TestSubtractStackRecords(t *testing.T) {
	prev := []StackRecord{{Class: "fsync", Stack: 0, Calls: 2, Ns: 200, OffCPUNs: 100}, {Class: ClassUser, Stack: 1, Samples: 5, Ns: 5000}}
	cur := []StackRecord{{Class: "fsync", Stack: 0, Calls: 5, Ns: 500, OffCPUNs: 250}, {Class: ClassUser, Stack: 1, Samples: 5, Ns: 5000},
		{Class: ClassUser, Stack: 2, Samples: 1, Ns: 1000}, {Class: "fsync", Stack: 1, Calls: 1, Ns: 10}}
	want := []StackRecord{{Class: "fsync", Stack: 0, Calls: 3, Ns: 300, OffCPUNs: 150}, {Class: ClassUser, Stack: 2, Samples: 1, Ns: 1000},
		{Class: "fsync", Stack: 1, Calls: 1, Ns: 10}}
	if got := SubtractStackRecords(cur, prev); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := SubtractStackRecords(prev[:1], cur[:1]); got != nil {
		t.Errorf("a total that went down: %+v, want nothing", got)
	}
	if got := MergeStackRecords(append([]StackRecord(nil), want...), want[:1]); got[0].Calls != 6 || len(got) != 3 {
		t.Errorf("merged %+v", got)
	}
}

// A class's rate is its own where the run names one, else the run's.
func TestEveryOf(t *testing.T) {
	s := &Stacks{Every: 16, EveryClass: map[string]uint32{"fsync": 1}}
	if s.EveryOf("fsync") != 1 || s.EveryOf("read") != 16 {
		t.Errorf("fsync 1 in %d, read 1 in %d: want 1 and 16", s.EveryOf("fsync"), s.EveryOf("read"))
	}
}
