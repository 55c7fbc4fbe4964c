package render

import (
	"strings"
	"testing"
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
