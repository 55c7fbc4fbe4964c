//go:build linux

package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results/render"
)

// The golden runs the results tests share.
var (
	goldenOld = filepath.Join("..", "results", "testdata", "old")
	goldenNew = filepath.Join("..", "results", "testdata", "new")
)

// A saved run reads back summarized, as a run directory, its run.json or
// its syscalls.csv; what cannot be read is one line naming the input.
func TestLoad(t *testing.T) {
	for _, path := range []string{goldenOld, filepath.Join(goldenOld, "run.json"), filepath.Join(goldenOld, "syscalls.csv")} {
		out, err := Load(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if len(out.Run.Arms) == 0 || len(out.Sums) != len(out.Run.Arms) || out.Labs.Baselines == nil {
			t.Errorf("%s: %d arms, %d summaries, baselines %v", path, len(out.Run.Arms), len(out.Sums), out.Labs.Baselines)
		}
	}
	missing := filepath.Join(t.TempDir(), "none")
	if _, err := Load(missing); err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "none") {
		t.Errorf("a missing run: %v, want one line naming it", err)
	}
}

// A diff of two saved runs writes what it found; with a gate that fails,
// it ends Regressed (exit 1) with the document's verdict, the line its
// report ends with; without one, or with one that passes, it ends well.
// Three runs or more are a matrix, which no gate judges.
func TestRunDiff(t *testing.T) {
	text, _ := render.FormatNamed("text", render.DiffFormat)
	var out strings.Builder
	err := RunDiff(Diff{Paths: []string{goldenOld, goldenNew}, MinEffectPct: DefaultMinEffectPct, Gate: GateOn(GateTime, 10),
		History: "none", Format: text}, &out)
	var re *Regressed
	if !errors.As(err, &re) || len(re.Why) != 2 || !strings.HasPrefix(re.Verdict, "Fails --threshold 10: ") {
		t.Fatalf("diff with --threshold 10: %v, want Regressed by the failed arm and mkstemp-fsync", err)
	}
	if status, _ := ExitStatus(err); status != ExitFailed {
		t.Errorf("exit status %d, want %d", status, ExitFailed)
	}
	if flat := strings.Join(strings.Fields(out.String()), " "); !strings.Contains(flat, re.Verdict) {
		t.Errorf("the report does not end with the verdict %q:\n%s", re.Verdict, out.String())
	}
	if err := RunDiff(Diff{Paths: []string{goldenOld, goldenNew}, MinEffectPct: DefaultMinEffectPct, History: "none", Format: text}, new(strings.Builder)); err != nil {
		t.Errorf("a diff that does not gate: %v", err)
	}
	if err := RunDiff(Diff{Paths: []string{goldenOld, goldenNew, goldenOld}, MinEffectPct: DefaultMinEffectPct, Format: text}, &out); err != nil {
		t.Errorf("a matrix: %v", err)
	}
	if err := RunDiff(Diff{Paths: []string{goldenOld, filepath.Join(t.TempDir(), "none")}, Format: text}, new(strings.Builder)); err == nil {
		t.Error("a diff with a missing run passed")
	}
}

// Where a diff reads the earlier runs for the spread between runs:
// --history, else the directory OLD's and NEW's run dirs share; a CSV
// has none.
func TestHistoryOf(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, c := range []struct {
		old, cur, flag, want string
	}{
		{a, b, "", dir},
		{filepath.Join(a, "run.json"), b, "", dir},
		{a, b, "none", ""},
		{a, b, "/elsewhere", "/elsewhere"},
		{a, goldenNew, "", ""},
		{filepath.Join(a, "syscalls.csv"), b, "", ""},
	} {
		if got := historyOf(c.old, c.cur, c.flag); got != c.want {
			t.Errorf("historyOf(%s, %s, %q) = %q, want %q", c.old, c.cur, c.flag, got, c.want)
		}
	}
}
