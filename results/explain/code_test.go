package explain_test

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/internal/textwrap"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// The WHY of NamedTemporaryFile against TemporaryFile names the
// function with the most of user space's change inside its term, within
// the bullet's four lines at 80 columns (what the README's first screen
// holds), and the whole sentence names every function with its file and
// line.
func TestWhyNamesTheFunctions(t *testing.T) {
	sums := results.SummarizeAll(resultstest.CodeRun(), resultstest.CodeLabs.Baselines)
	gaps := explain.Comparisons(sums, resultstest.CodeLabs.Pairs)
	if len(gaps) != 1 {
		t.Fatalf("%d gaps, want NamedTemporaryFile's", len(gaps))
	}
	g := gaps[0]
	short := g.ShortWithin(80, 4)
	if n := textwrap.Lines(textwrap.Bullet("  ", short, 80)); n > 4 {
		t.Errorf("the short WHY has %d lines: %s", n, short)
	}
	if !strings.Contains(short, "user space +17.5 (64%; _TemporaryFileWrapper.__getattr__ +8.69, …)") {
		t.Errorf("the short WHY does not name __getattr__ in user space's term: %s", short)
	}
	whole := g.Sentence()
	// Each function's time is user space's × its share of the samples:
	// the parts add up to user space's change (+17.5).
	for _, want := range []string{"_TemporaryFileWrapper.__getattr__ (tempfile.py:478) +8.69 (0 → 8.69)",
		"_RandomNameSequence.__next__ (tempfile.py:154) +6.70", "TemporaryFile (tempfile.py:631) −5.86 (5.86 → 0)",
		"unlink +9.65 (36%; new syscall, 1/op, from _TemporaryFileCloser.close (tempfile.py:446) ←"} {
		if !strings.Contains(whole, want) {
			t.Errorf("the whole WHY lacks %q: %s", want, whole)
		}
	}
	// Without room for a second function, the largest stays and a third
	// term goes first.
	if narrow := g.ShortWithin(60, 4); !strings.Contains(narrow, "_TemporaryFileWrapper.__getattr__") {
		t.Errorf("at 60 columns the short WHY lost the function: %s", narrow)
	}
}

// A trace says each syscall's call sites: fsync's one, and write's two
// with their shares; whole, with the shares of calls and off-CPU time.
func TestSitesSentences(t *testing.T) {
	s := results.SummarizeAll(resultstest.AppTrace(true), nil)[0]
	sc := s.TimeScale()
	for _, c := range []struct {
		class string
		short bool
		want  string
	}{
		{"fsync", true, "fsync 127 ms/run: 100% from persist (app.py:4) ← main (app.py:10)."},
		{"fsync", false, "fsync 127 ms/run, calls/run 20, 116 ms/run off-CPU: 100% of calls, time and off-CPU time from persist (app.py:4) ← main (app.py:10)."},
		{"write", true, "write 1.80 ms/run: 67% from make (app.py:9) ← main (app.py:11), 33% from persist (app.py:4) ← main (app.py:10)."},
		{"openat[tmpfile]", true, "openat[tmpfile] 24.0 ms/run: 100% from TemporaryFile.<locals>.opener (tempfile.py:629) ← TemporaryFile (tempfile.py:631) ← make (app.py:8) ← …."},
	} {
		if got := explain.SitesSentence(s, c.class, sc, c.short); got != c.want {
			t.Errorf("%s (short %v):\n got %s\nwant %s", c.class, c.short, got, c.want)
		}
	}
	if got, want := explain.FunctionsSentence(s, sc, true), "user space 62.0 ms/run: 67% in checksum (app.py:15), 15% in make (app.py:8), 8% in TemporaryFile (tempfile.py:631); 2 other functions 10%."; got != want {
		t.Errorf("functions:\n got %s\nwant %s", got, want)
	}
}
