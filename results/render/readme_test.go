package render

import (
	"os"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// Every column of arms.csv and syscalls.csv has a row in the README's
// table for that file, and every name a table gives is a column: a column
// added without saying what it means fails here.
func TestREADMEDocumentsCSVColumns(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		heading string
		columns []string
	}{
		{"### arms.csv columns", results.ArmColumns},
		{"## The syscall CSV", append(append([]string(nil), results.SyscallColumns...), results.RowsColumn)},
	} {
		documented := readmeColumns(t, string(readme), c.heading)
		want := map[string]bool{}
		for _, col := range c.columns {
			want[col] = true
			if !documented[col] {
				t.Errorf("README %q: no row for column %s", c.heading, col)
			}
		}
		for col := range documented {
			if !want[col] {
				t.Errorf("README %q documents %s, which is not a column", c.heading, col)
			}
		}
	}
}

// readmeColumns are the names in the first cell of each row of the first
// table under heading: "a, b" and "a / b" name two columns; a pattern
// such as offcpu_\<label\>_ns names none.
func readmeColumns(t *testing.T, readme, heading string) map[string]bool {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no heading %q", heading)
	}
	out := map[string]bool{}
	inTable := false
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "|") {
			if inTable {
				break
			}
			continue
		}
		first := strings.TrimSpace(strings.Split(line, "|")[1])
		if !inTable || strings.HasPrefix(first, "---") {
			inTable = true // the header row and the rule
			continue
		}
		for _, name := range strings.FieldsFunc(first, func(r rune) bool { return r == ',' || r == '/' || r == ' ' }) {
			name = strings.Trim(name, "`")
			if !strings.Contains(name, `\<`) {
				out[name] = true
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("README %q: no table", heading)
	}
	return out
}
