package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// names are dir's entries, in order, space-separated.
func names(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	all := make([]string, len(entries))
	for i, e := range entries {
		all[i] = e.Name()
	}
	return strings.Join(all, " ")
}

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// A writer that fails half-way leaves neither the final name nor a temp
// file; one that succeeds replaces the old content whole.
func TestWriteNoHalfFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	err := Write(path, func(w io.Writer) error {
		io.WriteString(w, `{"schema":1,`)
		return errors.New("crash")
	})
	if err == nil {
		t.Fatal("no error from a failing writer")
	}
	if got := names(t, dir); got != "" {
		t.Errorf("left %s behind", got)
	}
	for _, body := range []string{"old\n", "new\n"} {
		if err := Write(path, text(body)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != body {
			t.Errorf("%s holds %q, want %q", path, b, body)
		}
	}
	if got := names(t, dir); got != "run.json" {
		t.Errorf("entries %s, want run.json", got)
	}
}

// gone is the pid of no process: above the largest pid_max, 2^22.
const gone = "4194305"

// What a writer killed while writing left beside its outputs (a temp
// file, a staging directory, named with its pid) goes with the next write
// to the same place.
func TestStaleTempsSwept(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, ".x.csv.tmp-"+gone+"-aa"), []byte("half"), 0o600)
	staleDir := filepath.Join(dir, ".run.tmp-"+gone+"-bb")
	os.Mkdir(staleDir, 0o700)
	os.WriteFile(filepath.Join(staleDir, "run.json"), []byte("{"), 0o644)
	if err := Write(filepath.Join(dir, "x.csv"), text("x\n")); err != nil {
		t.Fatal(err)
	}
	writeStage(t, dir, "run", func() error { return nil }, "run.json")
	if got := names(t, dir); got != "run x.csv" {
		t.Errorf("entries %s, want run and x.csv", got)
	}
}

// writeStage stages files (each holding its own name) and replaces
// parent/base with them.
func writeStage(t *testing.T, parent, base string, check func() error, files ...string) error {
	t.Helper()
	pf, err := os.Open(parent)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	s, err := NewStage(pf, "."+base+".tmp-")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, f := range files {
		if err := s.Add(f, text(f)); err != nil {
			t.Fatal(err)
		}
	}
	return s.Replace(base, check)
}

// A stage lands on a new name, and swaps out a directory that is there
// once check passes again; a check that refuses leaves the directory as
// it was. Nothing is left beside it either way.
func TestStageReplaces(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "d")
	checks := 0
	check := func() error { checks++; return nil }
	if err := writeStage(t, parent, "d", check, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if checks != 0 {
		t.Errorf("a new name checked %d times: nothing was there to check", checks)
	}
	if err := writeStage(t, parent, "d", check, "c"); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); got != "c" || checks != 1 {
		t.Errorf("after a swap: %s, %d checks; want c, 1", got, checks)
	}
	refuse := errors.New("not mine")
	if err := writeStage(t, parent, "d", func() error { return refuse }, "e"); !errors.Is(err, refuse) {
		t.Errorf("a refusing check: %v", err)
	}
	if got := names(t, dir); got != "c" {
		t.Errorf("after a refused swap: %s, want c", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "c")); string(b) != "c" {
		t.Errorf("c holds %q", b)
	}
	if st, _ := os.Stat(dir); st.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", st.Mode())
	}
	if got := names(t, parent); got != "d" {
		t.Errorf("beside it: %s, want d alone", got)
	}
}
