package render

import (
	"os"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// csvColumnsPage is the page of the manual whose tables say what each
// column of arms.csv and syscalls.csv means.
const csvColumnsPage = "docs/postmortems.md"

// Every column of arms.csv and syscalls.csv has a row in the manual's
// table for that file, and every name a table gives is a column: a column
// added without saying what it means fails here.
func TestREADMEDocumentsCSVColumns(t *testing.T) {
	page, err := os.ReadFile("../../" + csvColumnsPage)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		heading string
		columns []string
	}{
		{"## arms.csv columns", results.ArmColumns},
		{"## The syscall CSV", syscallColumnsDocumented()},
	} {
		documented := pageColumns(t, string(page), c.heading)
		want := map[string]bool{}
		for _, col := range c.columns {
			want[col] = true
			if !documented[col] {
				t.Errorf("%s %q: no row for column %s", csvColumnsPage, c.heading, col)
			}
		}
		for col := range documented {
			if !want[col] {
				t.Errorf("%s %q documents %s, which is not a column", csvColumnsPage, c.heading, col)
			}
		}
	}
}

// pageColumns are the names in the first cell of each row of the first
// table under heading: "a, b" and "a / b" name two columns; a pattern
// such as offcpu_\<label\>_ns names none.
func pageColumns(t *testing.T, page, heading string) map[string]bool {
	t.Helper()
	_, section, ok := strings.Cut(page, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", csvColumnsPage, heading)
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
		t.Fatalf("%s %q: no table", csvColumnsPage, heading)
	}
	return out
}

// syscallColumnsDocumented are syscalls.csv's columns but the off-CPU
// labels', which the manual names by their pattern.
func syscallColumnsDocumented() []string {
	label := map[string]bool{}
	for _, l := range results.OffLabels {
		label[results.OffLabelColumn(l)] = true
	}
	var out []string
	for _, name := range results.SyscallHeader() {
		if !label[name] {
			out = append(out, name)
		}
	}
	return out
}
