package textwrap

import (
	"strings"
	"testing"
)

// Lines stay under the width, and a unit never starts one: "µs", and a
// compare's "ms/run" (#31: "+25.8" ended a line, "ms/run traced" began
// the next).
func TestWrap(t *testing.T) {
	for _, s := range []string{
		"  mkstemp-fsync (go): −57% ops/s; +420.0 µs/op, of which fsync +400.0 µs (off-CPU waiting for the journal commit +400.0 µs; flush +380.0 µs)",
		"NamedTemporaryFile: 0.86× [0.81–0.92] TemporaryFile's throughput: +25.8 ms/run traced, of which user space +15.6 (60%)",
	} {
		for _, width := range []int{30, 40, 78} {
			for _, line := range strings.Split(Wrap(s, width, "    "), "\n") {
				if n := len([]rune(line)); n > width {
					t.Errorf("line of %d runes at %d: %q", n, width, line)
				}
				if f := strings.Fields(line); len(f) > 0 && isUnit(f[0]) {
					t.Errorf("a unit starts a line: %q", line)
				}
			}
		}
	}
}

// A long command keeps its start and its end, where the script and the
// copy's number are.
func TestMiddle(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 40, "short"},
		{"/root/.pyenv/versions/3.11.7/bin/python3 -B /tmp/tf.py #2", 30, "/root/.py…on3 -B /tmp/tf.py #2"},
	} {
		if got := Middle(c.s, c.n); got != c.want || len([]rune(got)) > c.n {
			t.Errorf("Middle(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
