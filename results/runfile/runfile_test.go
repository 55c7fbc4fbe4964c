package runfile

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// Corrupt, truncated, foreign and schema-mismatched inputs give one line
// that says which, and never a run.
func TestReadRunRefuses(t *testing.T) {
	good := string(resultstest.GoldenBytes(t, "old/run.json"))
	csv := string(resultstest.GoldenBytes(t, "old/syscalls.csv"))
	for _, tc := range []struct {
		name, input, want string
	}{
		{"empty", "", "empty file"},
		{"binary", "\x7fELF\x02\x01", "not a tmpprobe run.json or syscalls.csv"},
		{"truncated", good[:len(good)/2], "truncated JSON"},
		{"corrupt", strings.Replace(good, `"arms": [`, `"arms": [}`, 1), "corrupt JSON"},
		{"foreign JSON", `{"name": "left-pad", "version": "1.3.0"}`, "not a tmpprobe run.json"},
		{"other tool", `{"schema": 1, "tool": "perf"}`, "not a tmpprobe run.json"},
		{"future schema", strings.Replace(good, `"schema": 2`, `"schema": 3`, 1), "schema 3, this tmpprobe reads schema 2"},
		{"schema 1", strings.Replace(good, `"schema": 2`, `"schema": 1`, 1), "schema 1, this tmpprobe reads schema 2"},
		{"wrong type", strings.Replace(good, `"ops_per_batch": 100`, `"ops_per_batch": "many"`, 1), "field arms.ops_per_batch"},
		{"zero ops", strings.Replace(good, `"ops_per_batch": 100`, `"ops_per_batch": 0`, 1), "ops_per_batch 0"},
		{"negative wall", strings.Replace(good, `"wall_ns": 8000000`, `"wall_ns": -1`, 1), "negative wall_ns"},
		{"bad slot", strings.Replace(good, `"slot": `, `"slot": -`, 1), "histogram slot"},
		{"bad time", strings.Replace(good, `"started": "2025`, `"started": "x2025`, 1), "corrupt run.json"},
		{"truncated CSV", csv[:len(csv)-20], "line"},
		{"CSV missing column", strings.Replace(csv, "kernel_ns,", "kernel,", 1), `no "kernel_ns" column`},
		{"CSV NaN", strings.Replace(csv, ",12422.83950617284,", ",NaN,", 1), `ops_per_s "NaN"`},
		{"CSV header only", strings.SplitN(csv, "\n", 2)[0] + "\n", "no rows"},
		{"CSV quote", csv + "modes,\"x\n", "corrupt CSV"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run, err := ReadRun(strings.NewReader(tc.input))
			if err == nil {
				t.Fatalf("read a run (%d arms) from %s input", len(run.Arms), tc.name)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line: %q", msg)
			}
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not say %q", msg, tc.want)
			}
		})
	}
}

func TestLoadRunPaths(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadRun(dir); err == nil || !strings.Contains(err.Error(), "no run.json or syscalls.csv") {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := LoadRun(filepath.Join(dir, "missing")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing path: %v", err)
	}
	// A directory with only a CSV (from --csv) reads as one.
	if err := os.WriteFile(filepath.Join(dir, "syscalls.csv"), resultstest.GoldenBytes(t, "old/syscalls.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	run, err := LoadRun(dir)
	if err != nil || len(run.Arms) != 3 || run.Source != results.SourceCSV {
		t.Errorf("dir with syscalls.csv: %v", err)
	}
}

// FuzzReadRun: whatever the bytes, reading returns a run or an error, and
// a run that reads renders and diffs without a panic.
func FuzzReadRun(f *testing.F) {
	for _, seed := range readRunSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := checkReadRun(data); err != nil {
			t.Fatal(err)
		}
	})
}

func readRunSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, name := range []string{"old/run.json", "new/run.json", "old/syscalls.csv"} {
		data := resultstest.GoldenBytes(t, name)
		out = append(out, data, data[:len(data)/3])
	}
	return append(out,
		[]byte(`{"schema":1,"tool":"tmpprobe","arms":[{"lab":"modes","arm":"a","ops_per_batch":1,"batches":[{"traced":true,"wall_ns":1,"records":[{"class":"x","calls":1,"total_ns":5,"hist":[{"slot":191,"count":1}]}]}]}]}`),
		[]byte("lab,arm,runtime,dir,payload_bytes,size_bytes,ops,ops_per_s,traced_ops_per_s,wall_ns_per_op,user_ns_per_op,syscall,stage,calls,calls_per_op,errors,kernel_ns\nm,a,go,/,0,0,1,1e-300,0,1e14,0,x,,1,1,0,1\n"))
}

// checkReadRun is the fuzzer's property for one input: it reports whether
// the input read as a run, and an error that is more than one line.
func checkReadRun(data []byte) (bool, error) {
	run, err := ReadRun(bytes.NewReader(data))
	if err != nil {
		if strings.Contains(err.Error(), "\n") {
			return false, fmt.Errorf("error is not one line: %q", err)
		}
		return false, nil
	}
	sums := resultstest.Sums(run)
	render.WriteTable(io.Discard, sums)
	render.WriteMarkdown(io.Discard, run, sums, resultstest.Labs)
	render.WriteArmsCSV(io.Discard, sums)
	render.WriteSyscallCSV(io.Discard, run, sums)
	render.WriteSummaryJSON(io.Discard, run, sums, resultstest.Labs)
	rep := report.NewDiff(compare.Diff("a", run, "b", resultstest.FixtureRun(false), resultstest.Labs.Baselines, compare.DefaultMinEffectPct, compare.GateOn(compare.GateTime, 5)))
	render.WriteMatrixText(io.Discard, compare.DiffMany([]string{"a", "b", "c"}, []*results.Run{run, resultstest.FixtureRun(false), run}, resultstest.Labs.Baselines, 5))
	render.WriteDiffText(io.Discard, rep)
	render.WriteDiffJSON(io.Discard, rep)
	if len(data) < 4096 { // the chart is slow; small inputs reach every branch
		render.WriteChart(io.Discard, sums, "svg")
	}
	return true, nil
}

// The fuzzer's property over its seeds and mutations of them, 1,500 of a
// run.json and 1,500 of a syscalls.csv, in every 'go test' (go test -fuzz
// runs only on demand): mutations that keep the structure and change the
// values (numbers at the edges of their types, bytes flipped, fields cut or
// doubled), so most inputs reach validate and the renderers rather than
// failing to parse. Each input has a deadline: a hang fails it.
func TestReadRunMutations(t *testing.T) {
	seeds := readRunSeeds(t)
	for _, seed := range seeds {
		checkWithin(t, seed)
	}
	read := 0
	json, csv := resultstest.GoldenBytes(t, "old/run.json"), resultstest.GoldenBytes(t, "old/syscalls.csv")
	rng := rand.New(rand.NewPCG(19, 1))
	counts := map[string]int{}
	for kind, base := range map[string][]byte{"run.json": json, "syscalls.csv": csv} {
		for range 1500 {
			if checkWithin(t, mutate(rng, base)) {
				read++
			}
			counts[kind]++
		}
	}
	if counts["run.json"] < 1000 || counts["syscalls.csv"] < 1000 {
		t.Errorf("ran %v", counts)
	}
	t.Logf("%v inputs, %d of them read as a run", counts, read)
}

// checkWithin runs checkReadRun on data, failing on a panic or an error
// (with the input) or on an input that takes longer than any reading
// should (a hang); it reports whether data read as a run.
func checkWithin(t *testing.T, data []byte) bool {
	t.Helper()
	done := make(chan any, 1)
	var ok bool
	go func() {
		defer func() { done <- recover() }()
		var err error
		if ok, err = checkReadRun(data); err != nil {
			panic(err)
		}
	}()
	select {
	case p := <-done:
		if p != nil {
			t.Fatalf("%v on input %q", p, data)
		}
		return ok
	case <-time.After(20 * time.Second): // a guard against a hang, not a timing
		t.Fatalf("no answer in 20 s on input %q", data)
	}
	return false
}

var edgeNumbers = []string{"0", "-1", "1", "18446744073709551615", "9223372036854775807", "-9223372036854775808",
	"4611686018427387904", "1e12", "1e308", "-1e308", "NaN", "1.5", "65536", "2147483648", "\"x\"", "null", "[]", "{}"}

// mutate changes base in a few places: a number replaced by an edge value,
// a byte flipped, a span cut or doubled.
func mutate(rng *rand.Rand, base []byte) []byte {
	out := append([]byte(nil), base...)
	for range 1 + rng.IntN(3) {
		if len(out) == 0 {
			break
		}
		switch i := rng.IntN(len(out)); rng.IntN(4) {
		case 0, 1: // the number at or after i
			for i < len(out) && (out[i] < '0' || out[i] > '9') {
				i++
			}
			j := i
			for j < len(out) && (out[j] >= '0' && out[j] <= '9' || out[j] == '.' || out[j] == 'e' || out[j] == '-') {
				j++
			}
			out = append(out[:i:i], append([]byte(edgeNumbers[rng.IntN(len(edgeNumbers))]), out[j:]...)...)
		case 2:
			out[i] ^= byte(1 << rng.IntN(8))
		case 3:
			j := min(len(out), i+1+rng.IntN(64))
			if rng.IntN(2) == 0 {
				out = append(out[:i:i], out[j:]...)
			} else {
				out = append(out[:j:j], append(append([]byte(nil), out[i:j]...), out[j:]...)...)
			}
		}
	}
	return out
}

// An arm that never ran a batch (it failed, or the run was interrupted,
// before its first) has no ops per batch: its run reads back, with it.
func TestArmWithoutBatchesReadsBack(t *testing.T) {
	run := resultstest.FixtureRun(false)
	run.Complete = false
	failed := &run.Arms[2] // mkstemp-fdatasync: failed, no batches
	failed.Ops, failed.Batches = 0, nil
	var b strings.Builder
	if err := WriteRunJSON(&b, run); err != nil {
		t.Fatal(err)
	}
	back, err := ReadRun(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("a run with an arm that never ran a batch: %v", err)
	}
	if a := back.Arms[2]; a.Ops != 0 || a.Error == "" || len(a.Batches) != 0 {
		t.Errorf("read back %+v", a)
	}
}
