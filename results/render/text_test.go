package render

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

func TestWrap(t *testing.T) {
	s := "  mkstemp-fsync (go): −57% ops/s; +420.0 µs/op, of which fsync +400.0 µs (off-CPU waiting for the journal commit +400.0 µs; flush +380.0 µs)"
	for _, line := range strings.Split(wrap(s, 40, "    "), "\n") {
		if n := len([]rune(line)); n > 40 {
			t.Errorf("line of %d runes: %q", n, line)
		}
		if strings.HasPrefix(strings.TrimSpace(line), "µs") {
			t.Errorf("a unit starts a line: %q", line)
		}
	}
}

// Why a backend was skipped is the same on every run of a machine: the
// terminal says it with -v only (report.md and run.json keep it).
func TestBackendSkippedNotesOnRequest(t *testing.T) {
	run := resultstest.FixtureRun(false)
	note := BackendSkippedNote("fentry", "permission refused", "load program: operation not permitted")
	run.Meta.Notes = []string{note, "vfs_fsync_range: inlined, no stage row"}
	sums := resultstest.Sums(run)
	for _, verbose := range []bool{false, true} {
		var b strings.Builder
		WriteTextReport(&b, run, sums, resultstest.Labs, TextOptions{Verbose: verbose})
		unwrapped := strings.ReplaceAll(b.String(), "\n  ", " ")
		if got := strings.Contains(unwrapped, "note: "+note); got != verbose {
			t.Errorf("verbose %v: the backend note printed: %v", verbose, got)
		}
		if !strings.Contains(unwrapped, "note: vfs_fsync_range") {
			t.Errorf("verbose %v: another note is gone", verbose)
		}
	}
}
