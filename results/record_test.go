package results

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The slot arithmetic must match bpf/tmpprobe.h: every value lands in a
// slot whose [low, high) range contains it, and slots tile the line.
func TestHistSlots(t *testing.T) {
	for _, v := range []uint64{0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 100, 1000, 4095, 4096, 123456789, 1 << 40} {
		s := HistSlot(v)
		if lo, hi := HistLow(s), HistHigh(s); v < lo || v >= hi {
			t.Errorf("%d in slot %d = [%d, %d)", v, s, lo, hi)
		}
	}
	for s := 0; s < HistSlots-1; s++ {
		if HistHigh(s) != HistLow(s+1) || HistLow(s) >= HistHigh(s) {
			t.Errorf("slot %d = [%d, %d) does not tile", s, HistLow(s), HistHigh(s))
		}
	}
	if HistSlot(1<<62) != HistSlots-1 {
		t.Errorf("huge values must clamp to the last slot")
	}
}

func TestPercentile(t *testing.T) {
	// 90 calls of ~1000 ns and 10 of ~1 ms.
	h := []HistBucket{{Slot: HistSlot(1000), Count: 90}, {Slot: HistSlot(1_000_000), Count: 10}}
	for _, c := range []struct {
		q      float64
		lo, hi uint64
	}{
		{0.5, 896, 1024}, {0.9, 896, 1024}, {0.95, 917504, 1048576}, {0.99, 917504, 1048576},
	} {
		if p := Percentile(h, c.q); p < c.lo || p >= c.hi {
			t.Errorf("p%.0f = %d, want in [%d, %d)", 100*c.q, p, c.lo, c.hi)
		}
	}
	if Percentile(nil, 0.5) != 0 {
		t.Error("empty histogram must give 0")
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 400: "400", 1024: "1K", 65536: "64K", 1 << 20: "1M", 1500: "1500"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// Add and Sub handle every field of ClassRecord: each summed field, set
// alone, adds and subtracts back, so a field added to the struct and not
// to Add and Sub fails here (a kind the test does not know fails too).
func TestRecordAddSubEveryField(t *testing.T) {
	notSummed := map[string]bool{
		"Class": true, "Stage": true, // the key records are matched by
		"Quantiles": true, // of one record only: MergeRecords drops them
	}
	typ := reflect.TypeFor[ClassRecord]()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if notSummed[f.Name] {
			continue
		}
		// values gives the field's a, b and a+b, fresh each call: a map or
		// slice in a copied record is shared, and Add writes into it.
		var values func() (a, b, sum any)
		switch v := reflect.New(f.Type).Elem().Interface().(type) {
		case uint64:
			values = func() (any, any, any) { return uint64(3), uint64(4), uint64(7) }
		case map[string]uint64:
			values = func() (any, any, any) {
				return map[string]uint64{"disk": 3, "lock": 1}, map[string]uint64{"disk": 4, "sleep": 2},
					map[string]uint64{"disk": 7, "lock": 1, "sleep": 2}
			}
		case []HistBucket:
			values = func() (any, any, any) {
				return []HistBucket{{Slot: 5, Count: 3}, {Slot: 9, Count: 1}}, []HistBucket{{Slot: 2, Count: 2}, {Slot: 5, Count: 4}},
					[]HistBucket{{Slot: 2, Count: 2}, {Slot: 5, Count: 7}, {Slot: 9, Count: 1}}
			}
		default:
			t.Fatalf("ClassRecord.%s is a %T: add it to Add and Sub (or to notSummed, saying why), and here", f.Name, v)
		}
		with := func(v any) ClassRecord {
			var r ClassRecord
			reflect.ValueOf(&r).Elem().Field(i).Set(reflect.ValueOf(v))
			return r
		}
		a, b, want := values()
		sum := with(a)
		sum.Add(with(b))
		if got := reflect.ValueOf(sum).Field(i).Interface(); !reflect.DeepEqual(got, want) {
			t.Errorf("Add: %s = %v, want %v", f.Name, got, want)
		}
		a, b, _ = values()
		if got := sum.Sub(with(b)); !reflect.DeepEqual(got, with(a)) {
			t.Errorf("Sub after Add: %s: %+v, want %+v", f.Name, got, with(a))
		}
	}
}

// MergeRecords and SubtractRecords match by class and stage: a key in one
// side only is added or kept as it is; a row that did not grow is dropped.
func TestMergeSubtractRecords(t *testing.T) {
	prev := []ClassRecord{{Class: "write", Calls: 2, TotalNs: 20, Hist: []HistBucket{{Slot: 4, Count: 2}}}}
	more := []ClassRecord{
		{Class: "write", Calls: 3, TotalNs: 30, OffNs: map[string]uint64{"disk": 5}, OffCPUNs: 5, Hist: []HistBucket{{Slot: 4, Count: 3}}},
		{Class: "write", Stage: "ext4", Calls: 1, TotalNs: 7},
	}
	cur := MergeRecords(MergeRecords(nil, prev), more)
	want := []ClassRecord{
		{Class: "write", Calls: 5, TotalNs: 50, OffCPUNs: 5, OffNs: map[string]uint64{"disk": 5}, Hist: []HistBucket{{Slot: 4, Count: 5}}},
		{Class: "write", Stage: "ext4", Calls: 1, TotalNs: 7},
	}
	if !reflect.DeepEqual(cur, want) {
		t.Fatalf("MergeRecords: %+v, want %+v", cur, want)
	}
	if got := SubtractRecords(cur, prev); !reflect.DeepEqual(got, more) {
		t.Errorf("SubtractRecords: %+v, want %+v", got, more)
	}
	if got := SubtractRecords(cur, cur); len(got) != 0 {
		t.Errorf("SubtractRecords of a snapshot from itself: %+v, want none", got)
	}
}

// A run.json's warnings read back typed, and one saved as words by a
// tmpprobe before warnings were typed reads as its words.
func TestWarningsReadBack(t *testing.T) {
	run := Run{Schema: Schema, Derived: Derived{Warnings: []Warning{{Kind: WarningTmpfs, Dir: "/dev/shm"}}}}
	data, err := json.Marshal(run)
	if err != nil {
		t.Fatal(err)
	}
	var back Run
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Derived.Warnings, run.Derived.Warnings) {
		t.Errorf("warnings read back %+v, want %+v", back.Derived.Warnings, run.Derived.Warnings)
	}
	if err := json.Unmarshal([]byte(`{"meta":{"warnings":["/tmp: said as words"]},"arms":[]}`), &back); err != nil {
		t.Fatal(err)
	}
	if want := []Warning{{Kind: WarningText, What: "/tmp: said as words"}}; !reflect.DeepEqual(back.Derived.Warnings, want) {
		t.Errorf("a warning saved as words read back %+v, want %+v", back.Derived.Warnings, want)
	}
}
