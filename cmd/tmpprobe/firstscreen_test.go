//go:build linux

package main

import (
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite the golden files from what the code prints")

// The first screen of `tmpprobe all` answers the two questions the tool
// exists for: the report of a real `all` run (its syscalls.csv, kept in
// results/testdata/all) at 80 columns, compared with the golden report,
// lays out as firstScreen checks.
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
	run, err := runfile.LoadRun(filepath.Join(dir, "syscalls.csv"))
	if err != nil {
		t.Fatal(err)
	}
	firstScreen(t, run, out)
}

// A real `all`, run here and now, lays out as firstScreen checks: on
// /tmp, beside two CPU hogs (intervals wide enough to cap, the terms'
// off-CPU causes moved), and on /dev/shm (a tmpfs: no device, no inode
// allocation to speak of). Twelve rounds in generations of two give
// intervals (six generations) at a third of a whole run's time.
func TestFirstScreenLive(t *testing.T) {
	needBPF(t)
	for _, c := range []struct {
		name string
		dir  string
		hogs bool
	}{{"tmp", os.TempDir(), false}, {"hogs", os.TempDir(), true}, {"shm", "/dev/shm", false}} {
		t.Run(c.name, func(t *testing.T) {
			if c.hogs {
				// Two CPU hogs and a disk writer, as a shared lab VM
				// often is (#42).
				defer cpuHogs(t)()
				defer background(t, "sh", "-c", "while :; do dd if=/dev/zero of="+filepath.Join(t.TempDir(), "w")+
					" bs=1M count=32 conv=fsync status=none; done")()
			}
			out := filepath.Join(t.TempDir(), "run")
			code, stdout, stderr := inProcess("all", "-q", "--rounds", "12", "--worker-rounds", "2", "--dir", c.dir, "--out", out)
			if code != 0 {
				t.Fatalf("all: exit %d: %s", code, whyFailed(stdout, stderr))
			}
			run, err := runfile.LoadRun(out)
			if err != nil {
				t.Fatal(err)
			}
			firstScreen(t, run, stdout)
			oneStatistic(t, run)
			if t.Failed() {
				t.Logf("the report:\n%s", stdout)
			}
		})
	}
}

// firstScreen checks the terminal report of an `all` run at 80 columns:
// no line over 80; every row of a table as wide as its header (a syscall
// table's rows end where one of its columns does); no WHY bullet over
// four lines; and both headline bullets of the first group end within
// its first 24 lines (the first screen of an 80×24 terminal).
func firstScreen(t *testing.T, run *results.Run, out string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("line %d has %d columns: %q", i+1, n, l)
		}
	}
	checkTables(t, lines)
	for i, l := range lines {
		if strings.HasPrefix(l, "  • ") && inWhy(lines, i) {
			if n := sentenceEnd(lines, strings.TrimSpace(l)) - i + 1; n > report.ShortLines {
				t.Errorf("the WHY bullet at line %d has %d lines:\n%s", i+1, n, strings.Join(lines[i:i+n], "\n"))
			}
		}
	}
	labs := arms.Knowledge()
	d := report.New(report.Input{Run: run, Sums: results.SummarizeAll(run, labs.Baselines), Labs: labs}, report.Options{})
	if len(d.Groups) == 0 {
		t.Fatal("no group")
	}
	var heads []report.Sentence
	for _, s := range d.Groups[0].Why {
		if s.Kind == report.SentenceHeadline {
			heads = append(heads, s)
		}
	}
	if len(heads) != 2 {
		t.Fatalf("the first group (%s) has %d headline sentences, want 2", d.Groups[0].Title, len(heads))
	}
	for _, s := range heads {
		end := sentenceEnd(lines, "• "+firstWords(s.Short))
		if end < 0 || end >= 24 {
			t.Errorf("the headline bullet %q ends on line %d, want within the first 24", s.Short, end+1)
		}
	}
}

// inWhy says line i is in a WHY section: the nearest heading above it
// (a line at column 0) is WHY's.
func inWhy(lines []string, i int) bool {
	for ; i >= 0; i-- {
		if l := lines[i]; l != "" && !strings.HasPrefix(l, " ") {
			return strings.HasPrefix(l, "WHY")
		}
	}
	return false
}

// checkTables checks that the rows of every table keep its columns: a
// group's table (its header starts "ARM " or "COMMAND ") has rows as wide
// as the header, its FAILED rows aside; a syscall table's rows end where
// one of its header's columns ends.
func checkTables(t *testing.T, lines []string) {
	t.Helper()
	tables := 0
	for i, h := range lines {
		switch {
		case strings.HasPrefix(h, "ARM ") || strings.HasPrefix(h, "COMMAND "):
			tables++
			width := len([]rune(h))
			for _, r := range lines[i+1:] {
				if r == "" || strings.HasPrefix(r, "TRACED:") || strings.HasPrefix(r, "  ") {
					break
				}
				if !strings.Contains(r, " FAILED") && len([]rune(r)) != width {
					t.Errorf("a row of %d columns under a header of %d:\n%s\n%s", len([]rune(r)), width, h, r)
				}
			}
		case strings.HasPrefix(h, "    SYSCALL "):
			ends := columnEnds(h)
			for _, r := range lines[i+1:] {
				// The table ends at its notes and at the bullets that
				// say its arm's code (its functions, its call sites).
				if !strings.HasPrefix(r, "    ") || strings.HasPrefix(r, "    ⋯ the device") || strings.HasPrefix(r, "    (…) waiting") ||
					strings.HasPrefix(r, "    • ") {
					break
				}
				if !slices.Contains(ends, len([]rune(r))) {
					t.Errorf("a row of %d columns under a header whose columns end at %v:\n%s\n%s", len([]rune(r)), ends, h, r)
				}
			}
		}
	}
	if tables == 0 {
		t.Error("no table")
	}
}

// columnEnds are where a syscall table's header words end, after its
// first (SYSCALL, left-aligned): its columns are right-aligned, so every
// row ends at one of them.
func columnEnds(header string) []int {
	var ends []int
	r := []rune(header)
	for i := 1; i <= len(r); i++ {
		if (i == len(r) || r[i] == ' ') && r[i-1] != ' ' {
			ends = append(ends, i)
		}
	}
	return ends[1:]
}

// firstWords are the words a bullet starts with, before its first wrap.
func firstWords(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(3, len(f))], " ")
}

// bulletLines is how many lines the first WHY bullet that starts with
// head takes in a report's lines; 0 if there is none.
func bulletLines(lines []string, head string) int {
	for i, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), head) && inWhy(lines, i) {
			return sentenceEnd(lines[i:], head) + 1
		}
	}
	return 0
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

// oneStatistic checks that every time per op of an arm is the statistic
// the table's is (#42): the breakdown's traced µs/op and the WHY's gaps
// agree, within their intervals, with the table's µs/op ÷ TRACED (the
// untraced time per op ÷ traced over untraced throughput: the traced time
// per op the table implies), and a WHY's terms add up to its gap, the
// remainder a term of its own.
func oneStatistic(t *testing.T, run *results.Run) {
	t.Helper()
	labs := arms.Knowledge()
	sums := results.SummarizeAll(run, labs.Baselines)
	// implied is the table's traced time per op with its interval.
	implied := func(s *results.Summary) (c, lo, hi float64, ok bool) {
		u, o := s.TimePerOp(), s.Observer
		if !u.Bounded() || !o.Bounded() || o.Lo <= 0 {
			return 0, 0, 0, false
		}
		return u.Center / o.Center, u.Lo / o.Hi, u.Hi / o.Lo, true
	}
	checked := 0
	for _, s := range sums {
		c, lo, hi, ok := implied(s)
		w := s.TracedWall
		if !ok || !w.Bounded() {
			continue
		}
		checked++
		if w.Hi < lo || hi < w.Lo {
			t.Errorf("%s %s: breakdown %.1f [%.1f–%.1f] µs/op traced, the table's µs/op ÷ TRACED %.1f [%.1f–%.1f]",
				s.Name(), s.Param(), w.Center/1e3, w.Lo/1e3, w.Hi/1e3, c/1e3, lo/1e3, hi/1e3)
		}
	}
	if checked == 0 {
		t.Error("no arm had the intervals to check")
	}
	for _, g := range explain.Comparisons(sums, labs.Pairs) {
		ca, loa, hia, oka := implied(g.A)
		cb, lob, hib, okb := implied(g.B)
		var sum float64
		for _, term := range g.Terms {
			sum += float64(term.Delta)
		}
		if math.Abs(sum-g.DeltaNs) > 1 {
			t.Errorf("%s − %s: terms add up to %.1f ns/op, the gap is %.1f", g.A.Arm, g.B.Arm, sum, g.DeltaNs)
		}
		if !oka || !okb || !g.Gap.Bounded() {
			continue
		}
		if g.Gap.Hi < loa-hib || hia-lob < g.Gap.Lo {
			t.Errorf("%s − %s (%s): WHY's gap %.1f [%.1f–%.1f] µs/op traced, the table's %.1f [%.1f–%.1f]", g.A.Arm, g.B.Arm,
				g.A.Param(), g.DeltaNs/1e3, g.Gap.Lo/1e3, g.Gap.Hi/1e3, (ca-cb)/1e3, (loa-hib)/1e3, (hia-lob)/1e3)
		}
	}
}
