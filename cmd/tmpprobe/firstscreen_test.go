//go:build linux

package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite the golden files from what the code prints")

// The first screen of `tmpprobe all` answers the two questions the tool
// exists for: the report of a real `all` run (its syscalls.csv, kept in
// results/testdata/all) at 80 columns, compared with the golden report,
// has no line over 80 columns and the WHY sentences of both headline gaps,
// whole, within its first 60 lines.
func TestFirstScreen(t *testing.T) {
	dir := filepath.Join("..", "..", "results", "testdata", "all")
	code, out, stderr := inProcess("report", filepath.Join(dir, "syscalls.csv"))
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	golden := filepath.Join(dir, "report.txt")
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("the report differs from %s (go test -run TestFirstScreen -update-golden rewrites it)", golden)
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	for _, head := range []string{"• NamedTemporaryFile − TemporaryFile = ", "• mkstemp-fsync − mkstemp-close-unlink = "} {
		end := sentenceEnd(lines, head)
		if end < 0 || end >= 60 {
			t.Errorf("the sentence %q ends on line %d, want within the first 60", head, end+1)
		}
	}
}

// sentenceEnd is the index of the last line of the bullet starting with
// head (its continuation lines are indented deeper), or -1.
func sentenceEnd(lines []string, head string) int {
	for i, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), head) {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], strings.Repeat(" ", indent+2)) {
			i++
		}
		return i
	}
	return -1
}
