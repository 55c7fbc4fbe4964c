package runfile

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

func readErr(t *testing.T, input string) string {
	t.Helper()
	run, err := ReadRun(strings.NewReader(input))
	if err == nil {
		t.Fatalf("read a run (%d arms)", len(run.Arms))
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error is not one line: %q", err)
	}
	return err.Error()
}

// A CSV cut at a line boundary is still CSV: the rows count says rows are
// missing. A CSV from before the count reads as it did.
func TestSyscallCSVRowCount(t *testing.T) {
	good := string(resultstest.GoldenBytes(t, "old/syscalls.csv"))
	lines := strings.SplitAfter(good, "\n")
	for drop := 1; drop < len(lines)-2; drop++ {
		cut := strings.Join(lines[:len(lines)-1-drop], "")
		if msg := readErr(t, cut); !strings.Contains(msg, "truncated CSV") {
			t.Errorf("%d rows cut: %q", drop, msg)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(good)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, r := range rows {
		if r[len(r)-1] == results.RowsColumn || rows[0][len(r)-1] == results.RowsColumn {
			r = r[:len(r)-1]
		}
		w.Write(r)
	}
	w.Flush()
	older, err := ReadRun(&b)
	if err != nil {
		t.Fatalf("a CSV without the rows column: %v", err)
	}
	current, _ := ReadRun(strings.NewReader(good))
	if len(older.Arms) != len(current.Arms) {
		t.Errorf("without the rows column: %d arms, with it %d", len(older.Arms), len(current.Arms))
	}
	mixed := strings.Replace(good, ",13\n", ",12\n", 1)
	if msg := readErr(t, mixed); !strings.Contains(msg, "rows") {
		t.Errorf("rows counts that disagree: %q", msg)
	}
}

// Values no run can have are refused, not printed as numbers.
func TestReadRunRefusesImpossibleValues(t *testing.T) {
	good := string(resultstest.GoldenBytes(t, "old/run.json"))
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"total_ns 2^64-1", `"total_ns": 5400000`, `"total_ns": 18446744073709551615`, "total_ns 18446744073709551615"},
		{"wall_ns max int64", `"wall_ns": 8000000`, `"wall_ns": 9223372036854775807`, "beyond any run"},
		{"wall_ns 0", `"wall_ns": 8400000`, `"wall_ns": 0`, "wall_ns 0"},
		{"kernel above wall", `"wall_ns": 8400000`, `"wall_ns": 840000`, "kernel time 7500000 ns above wall time 840000 ns"},
		{"more errors than calls", `"total_ns": 5400000`, `"errors": 101, "total_ns": 5400000`, "101 errors in 100 calls"},
		{"calls 2^64-1", `"calls": 100`, `"calls": 18446744073709551615`, "calls 18446744073709551615"},
		{"batch ops 1e12", `"ops": 100`, `"ops": 1000000000000`, "ops 1000000000000"},
		{"bytes 2^64-1", `"total_ns": 5400000`, `"bytes": 18446744073709551615, "total_ns": 5400000`, "bytes 18446744073709551615"},
		{"off-CPU label 2^64-1", `"blocked/irq": 15000000`, `"blocked/irq": 18446744073709551615`, "offcpu_by_label_ns blocked/irq 18446744073709551615"},
		{"hist count 2^64-1", `"count": 2`, `"count": 18446744073709551615`, "hist count 18446744073709551615"},
		{"round 2^62", `"round": 1`, `"round": 4611686018427387904`, "round 4611686018427387904"},
	} {
		input := strings.Replace(good, tc.old, tc.new, 1)
		if input == good {
			t.Fatalf("%s: nothing replaced", tc.name)
		}
		if msg := readErr(t, input); !strings.Contains(msg, tc.want) || !strings.HasPrefix(msg, "corrupt run.json") {
			t.Errorf("%s: %q, want %q", tc.name, msg, tc.want)
		}
	}
	csv := string(resultstest.GoldenBytes(t, "old/syscalls.csv"))
	// Traced ten times faster: its syscalls no longer fit in its wall time.
	if msg := readErr(t, strings.Replace(csv, ",11626.21711960471,84525,", ",116262.1711960471,8452,", 1)); !strings.Contains(msg, "above wall time") {
		t.Errorf("CSV kernel above wall: %q", msg)
	}
	if msg := readErr(t, strings.Replace(csv, ",12422.83950617284,", ",0,", 1)); !strings.Contains(msg, "wall_ns 0") {
		t.Errorf("CSV ops_per_s 0: %q", msg)
	}
	// A trace sums kernel time over threads: above its wall time is real.
	trace := &results.Run{Schema: results.Schema, Tool: "tmpprobe", Arms: []results.ArmResult{{
		CaseID:  results.CaseID{Lab: "trace", Arm: "make", Runtime: "-"},
		Ops:     1,
		Batches: []results.Batch{{Traced: true, WallNs: 1_000_000, Records: []results.ClassRecord{{Class: "futex", Calls: 8, TotalNs: 8_000_000}}}},
	}}}
	var b bytes.Buffer
	WriteRunJSON(&b, trace)
	if _, err := ReadRun(&b); err != nil {
		t.Errorf("a multi-thread trace: %v", err)
	}
}

// Every name read from a file is printed as text: control characters,
// DEL, C1 controls, bidi overrides and invalid UTF-8 come back escaped; a
// worker's stderr keeps its lines.
func TestNamesFromFilesEscaped(t *testing.T) {
	run := resultstest.FixtureRun(false)
	run.Arms[0].Arm = "x\n\x1b[31mRED\u202e\x7f\u0085"
	run.Arms[2].Stderr = "line 1\n\tline 2 \x1b[2J"
	run.Meta.Notes = []results.Note{{Kind: results.NoteText, What: "note\r"}}
	run.Drops = map[string]uint64{"key\x1b": 1}
	var b bytes.Buffer
	WriteRunJSON(&b, run)
	back, err := ReadRun(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := back.Arms[0].Arm, `x\n\x1b[31mRED\u202e\x7f\u0085`; got != want {
		t.Errorf("arm name %q, want %q", got, want)
	}
	if got, want := back.Arms[2].Stderr, "line 1\n\tline 2 \\x1b[2J"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	if back.Meta.Notes[0].What != `note\r` || back.Drops[`key\x1b`] != 1 {
		t.Errorf("notes %q, drops %v", back.Meta.Notes, back.Drops)
	}
	sums := resultstest.Sums(back)
	var out bytes.Buffer
	render.WriteTable(&out, sums)
	render.WriteMarkdown(&out, back, sums, resultstest.Labs)
	render.WriteDiffText(&out, report.NewDiff(compare.Diff("a", back, "b", resultstest.FixtureRun(true), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, compare.GateOn(compare.GateTime, 5))))
	if bytes.ContainsAny(out.Bytes(), "\x1b\u202e\x7f") {
		t.Error("a control character reached the output")
	}
}

// A second run saved where the first was replaces it whole; a directory
// holding anything else is refused and left as it was.
func TestWriteRunDirReplacesWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	first, second := resultstest.FixtureRun(false), resultstest.FixtureRun(true)
	if err := saveRunDir(dir, saved(first)); err != nil {
		t.Fatal(err)
	}
	if err := CheckRunDir(dir); err != nil {
		t.Fatalf("a saved run is not replaceable: %v", err)
	}
	if err := saveRunDir(dir, saved(second)); err != nil {
		t.Fatal(err)
	}
	back, err := LoadRun(dir)
	if err != nil || back.Meta.KernelRelease != second.Meta.KernelRelease {
		t.Fatalf("after the second save: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("left beside the run: %v", entries)
	}
	os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("x"), 0o644)
	for _, err := range []error{CheckRunDir(dir), saveRunDir(dir, saved(first))} {
		if err == nil || !strings.Contains(err.Error(), `"mine.txt"`) {
			t.Errorf("a directory with another file: %v", err)
		}
	}
	if back, _ := LoadRun(dir); back.Meta.KernelRelease != second.Meta.KernelRelease {
		t.Error("the refused save changed the run")
	}
}

// A run is never lost to another saved in its place: one saved in --out
// while this one ran (two tmpprobes, one --out) sends this one beside it,
// and a run that is not whole never replaces one that is; in both the
// error says where it went, and --out still holds the run it held.
func TestWriteRunDirSavesAside(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	first, second := resultstest.FixtureRun(false), resultstest.FixtureRun(true)
	// The fixture's failed arm would make it a run that is not whole.
	first.Arms = slices.DeleteFunc(first.Arms, func(a results.ArmResult) bool { return a.Error != "" })
	if !first.Complete || len(first.Arms) == 0 {
		t.Fatal("the fixture has no whole run")
	}
	held := HeldNow(dir)
	if err := saveRunDir(dir, saved(first)); err != nil {
		t.Fatal(err)
	}
	for i, c := range []struct {
		held   Held
		whole  bool
		reason AsideReason
	}{
		{held, true, SavedMeanwhile},
		{heldAt(dir), false, KeptWhole},
	} {
		err := WriteRunDir(dir, c.held, c.whole, saved(second))
		var aside *SavedAside
		want := dir + "." + strconv.Itoa(i+2)
		if !errors.As(err, &aside) || aside.Dir != want || aside.Reason != c.reason {
			t.Fatalf("case %d: %v, want the run saved aside in %s (reason %d)", i, err, want, c.reason)
		}
		if back, err := LoadRun(aside.Dir); err != nil || back.Meta.KernelRelease != second.Meta.KernelRelease {
			t.Errorf("case %d: %s does not hold the run saved aside: %v", i, aside.Dir, err)
		}
		if back, err := LoadRun(dir); err != nil || back.Meta.KernelRelease != first.Meta.KernelRelease {
			t.Errorf("case %d: %s no longer holds the first run: %v", i, dir, err)
		}
	}
	// A whole run replaces a whole run, as before.
	if err := WriteRunDir(dir, heldAt(dir), true, saved(second)); err != nil {
		t.Fatal(err)
	}
}

// A run.json whose stacks point past its tables is refused with what
// points where, never read into a panic of a writer.
func TestStacksOutOfTheirTables(t *testing.T) {
	for _, c := range []struct {
		name string
		mess func(*results.Run)
		want string
	}{
		{"frame", func(r *results.Run) { r.Stacks.Table[0] = results.Stack{len(r.Stacks.Frames)} }, "stacks.table[0]: frame"},
		{"stack", func(r *results.Run) { r.Arms[0].Batches[3].Stacks[0].Stack = -1 }, "stack -1 of"},
		{"class", func(r *results.Run) { r.Arms[0].Batches[3].Stacks[0].Class = "" }, "a stack record of no class"},
		{"no table", func(r *results.Run) { r.Stacks = nil }, "stack 0 of the run's 0 stacks"},
	} {
		run := resultstest.CodeRun()
		c.mess(run)
		var b bytes.Buffer
		if err := WriteRunJSON(&b, run); err != nil {
			t.Fatal(err)
		}
		if msg := readErr(t, b.String()); !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want %q", c.name, msg, c.want)
		}
	}
	var b bytes.Buffer
	if err := WriteRunJSON(&b, resultstest.CodeRun()); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadRun(&b); err != nil {
		t.Errorf("the fixture itself: %v", err)
	}
}
