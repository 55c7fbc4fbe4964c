//go:build linux

package main

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/cmdbench"
	"github.com/tmpprobe/tmpprobe/internal/loopext4"
	"github.com/tmpprobe/tmpprobe/internal/textwrap"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// compared runs tmpprobe compare with --out and returns the saved run, its
// summaries (as report computes them) and the terminal report.
func compared(t *testing.T, args ...string) (*results.Run, []*results.Summary, string) {
	t.Helper()
	return comparedTo(t, filepath.Join(t.TempDir(), "run"), args...)
}

func comparedTo(t *testing.T, dir string, args ...string) (*results.Run, []*results.Summary, string) {
	t.Helper()
	cmd := tmpprobe(append([]string{"compare", "-q", "--out", dir}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("compare %q: %v\n%s%s", args, err, out, stderr.String())
	}
	run, err := runfile.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	labs := arms.Knowledge()
	return run, results.SummarizeAll(run, labs.Baselines), string(out)
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// gapSentence is the WHY of sums[i] against the first command, checked
// to be said in the report as the document's short sentence, its terms
// to sum to the gap.
func gapSentence(t *testing.T, run *results.Run, sums []*results.Summary, i int, out string) explain.Gap {
	t.Helper()
	g := explain.NewGap(sums[i], sums[0])
	if s := whyOf(run, sums, sums[i].Arm); s == nil || !strings.Contains(oneLine(out), s.Short) {
		t.Errorf("the report lacks the WHY %+v:\n%s", s, out)
	}
	var sum float64
	for _, term := range g.Terms {
		sum += float64(term.Delta)
	}
	if math.Abs(sum-g.DeltaNs) > 0.01*math.Abs(g.DeltaNs)+1 {
		t.Errorf("terms sum to %.0f ns/run, the gap is %.0f", sum, g.DeltaNs)
	}
	return g
}

// whyOf is the report's WHY of the command arm against the first, or nil.
func whyOf(run *results.Run, sums []*results.Summary, arm string) *report.Sentence {
	d := report.New(report.Input{Run: run, Sums: sums, Labs: arms.Knowledge()}, report.Options{})
	for _, g := range d.Groups {
		for _, s := range g.Why {
			if strings.HasPrefix(s.Text, arm+": ") {
				return &s
			}
		}
	}
	return nil
}

// A/A: a command compared with itself is no different, and its two
// copies make the same calls per run. At 95% intervals and diff's 5%
// minimum effect one A/A in twenty may be flagged; one that is gets a
// second run, and two in a row (p ≈ 0.0025) fail.
func TestCompareAA(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	for _, c := range []string{
		"cat /etc/services > /dev/null",
		"ls -l /usr/bin > /dev/null",
		py + " -S -c " + shellQuote("import os; [os.getppid() for _ in range(2000)]"),
	} {
		for attempt := 1; ; attempt++ {
			run, sums, out := compared(t, "--rounds", "8", c, c)
			if len(sums) != 2 || run.Protocol.Rounds != 8 || sums[1].Arm != c+" #2" {
				t.Fatalf("%s: %d commands, %d rounds, names %q: want 2, 8, and the copy named apart", c, len(sums), run.Protocol.Rounds, sums[1].Arm)
			}
			for _, cl := range sums[0].Classes {
				if cl.IsSyscall() && !memoryClasses[cl.Class] && cl.Class != "futex" && sums[1].Class(cl.Class).Calls != cl.Calls {
					t.Errorf("%s: %s %d calls in 8 runs, its copy %d", c, cl.Class, cl.Calls, sums[1].Class(cl.Class).Calls)
				}
			}
			r := sums[1].Ratio
			if results.Differs(r, compare.DefaultMinEffectPct) == 0 {
				// "No different", with what it stands on (#43), and no term
				// outside noise named (#31).
				head := textwrap.Middle(c+" #2", explain.ShortName) + ": no different from " + textwrap.Middle(c, explain.ShortName) +
					"'s throughput (" + results.TimesText(r) + ")"
				why := whyOf(run, sums, sums[1].Arm)
				if why == nil || !strings.HasPrefix(why.Short, head) || !settledTail.MatchString(why.Short[len(head):]) ||
					!strings.Contains(oneLine(out), "• "+why.Short+" BREAKDOWN") {
					t.Errorf("%s: the WHY is %q, want only %q and what it stands on:\n%s", c, whyText(why), head, out)
				}
				break
			}
			t.Logf("%s: A/A flagged (attempt %d): %s", c, attempt, results.RatioText(r))
			if attempt == 2 {
				t.Errorf("%s: A/A told apart twice in a row: %s", c, results.RatioText(r))
				break
			}
		}
	}
}

// settledTail is what a "no different" stands on, after its ratio.
var settledTail = regexp.MustCompile(`^(: no change beyond ±[0-9]+%|: needs ≈[0-9]+ rounds to tell a change of [0-9.]+% from none \(--rounds, or --until 10%\))?\.$`)

// whyText is a WHY's short text, "" for none.
func whyText(s *report.Sentence) string {
	if s == nil {
		return ""
	}
	return s.Short
}

// memoryClasses vary run to run with the allocator and ASLR.
var memoryClasses = map[string]bool{"mmap": true, "munmap": true, "mremap": true, "brk": true, "madvise": true}

// sqlite3 with synchronous=FULL commits each INSERT with fdatasync (the
// journal, then the database), each a journal commit and a cache flush on
// a journaled ext4; with OFF it syncs nothing. The WHY names the syncs and
// the flushes.
func TestCompareSqliteSync(t *testing.T) {
	needRoot(t)
	if _, err := exec.LookPath("sqlite3"); err != nil {
		t.Fatal("sqlite3 not found (CI installs it)")
	}
	dir := loopext4.Journaled(t, "64M")
	sql := func(mode string) string {
		s := "PRAGMA synchronous=" + mode + "; CREATE TABLE IF NOT EXISTS t(x);"
		for i := 0; i < 10; i++ {
			s += fmt.Sprintf(" INSERT INTO t VALUES(%d);", i)
		}
		return fmt.Sprintf("sqlite3 %s %s", filepath.Join(dir, mode+".db"), shellQuote(s))
	}
	run, sums, out := compared(t, "--rounds", "6", "--names", "off,full", sql("OFF"), sql("FULL"))
	t.Log(out)
	off, full := sums[0], sums[1]
	syncs := full.Class("fdatasync").CallsPerOp + full.Class("fsync").CallsPerOp
	if syncs < 20 || off.Class("fdatasync").Calls+off.Class("fsync").Calls != 0 {
		t.Errorf("syncs per run: full %.1f, off %d: want ≥ 20 (two per INSERT) and none", syncs, off.Class("fdatasync").Calls+off.Class("fsync").Calls)
	}
	g := gapSentence(t, run, sums, 1, out)
	line := g.Sentence()
	if !strings.Contains(line, "fdatasync +") && !strings.Contains(line, "fsync +") || !strings.Contains(line, "new syscall") ||
		!strings.Contains(line, "cache flushes") {
		t.Errorf("the WHY of full − off names no new fdatasync/fsync with its cache flushes: %s", line)
	}
	if results.Differs(full.Ratio, compare.DefaultMinEffectPct) != -1 {
		t.Errorf("full's throughput ÷ off's = %s: want lower, told apart", results.RatioText(full.Ratio))
	}
}

// 1000 NamedTemporaryFiles (open with O_CREAT|O_EXCL, then unlink) against
// 1000 TemporaryFiles (O_TMPFILE, nothing to unlink): exact counts per run,
// and the WHY explains it as the labs do (#31): the two opens, beside
// the plain openat of the interpreter's imports, as one term
// "openat[create] vs openat[tmpfile]", never two that cancel; user space
// named by its share of the gap, judged by the labs' noise rule over as
// many units as a lab run's intervals have at least (30 rounds: at 10, a
// user-space difference of 50% of the gap was in noise on this VM); the
// terminal's WHY on the first screen, at most four lines.
func TestCompareTempfiles(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	dir := t.TempDir()
	prog := func(kind string) string {
		code := fmt.Sprintf("import tempfile\nfor _ in range(1000): tempfile.%s(dir=%q).close()", kind, dir)
		return py + " -B -c " + shellQuote(code)
	}
	for attempt := 1; ; attempt++ {
		run, sums, out := compared(t, "--rounds", "30", "--names", "TemporaryFile,NamedTemporaryFile", prog("TemporaryFile"), prog("NamedTemporaryFile"))
		tmp, named := sums[0], sums[1]
		for _, c := range []struct {
			s     *results.Summary
			class string
			want  float64
		}{
			{tmp, results.ClassOpenatTmpfile, 1000}, {tmp, results.ClassOpenatCreate, 0}, {tmp, "unlink", 0},
			{named, results.ClassOpenatCreate, 1000}, {named, results.ClassOpenatTmpfile, 0}, {named, "unlink", 1000},
		} {
			if got := c.s.Class(c.class).CallsPerOp; got != c.want {
				t.Errorf("%s: %s %.2f/run, want %.0f", c.s.Arm, c.class, got, c.want)
			}
		}
		g := gapSentence(t, run, sums, 1, out)
		why := whyOf(run, sums, named.Arm)
		t.Logf("attempt %d:\n%s", attempt, out)
		if why == nil {
			t.Fatal("no WHY")
		}
		// The counts above are exact in every attempt. What the WHY
		// says is judged from timings, which a loaded host can blur:
		// user space within noise of 30 rounds, or the terms cancelling
		// (unlink's +8 against close's −4, the inode freed in one instead
		// of the other, beside an openat pair within noise). Once in a
		// while that happens; twice in a row is a rule that misjudges
		// them, and fails (#37).
		problems := tempfilesWhyProblems(g, why, named.Arm, out)
		if len(problems) == 0 {
			t.Logf("user space: %s", userShare.FindString(why.Short))
			return
		}
		if attempt == 2 {
			for _, p := range problems {
				t.Errorf("twice: %s", p)
			}
			return
		}
		t.Logf("attempt %d: %s; running it again, once", attempt, strings.Join(problems, "; "))
	}
}

// tempfilesWhyProblems is what NamedTemporaryFile's WHY against
// TemporaryFile fails to say: the two opens as one term, the unlinks it
// adds, at most the terminal's lines, a share of user space, terms that
// do not cancel.
func tempfilesWhyProblems(g explain.Gap, why *report.Sentence, named, out string) []string {
	var problems []string
	pair := results.ClassOpenatCreate + " vs " + results.ClassOpenatTmpfile
	for _, term := range g.Terms {
		if term.Name == results.ClassOpenatCreate || term.Name == results.ClassOpenatTmpfile {
			problems = append(problems, term.Name+" is a term of its own: "+why.Text)
		}
	}
	if !strings.Contains(why.Text, pair+" +") && !strings.Contains(why.Text, pair+" −") {
		problems = append(problems, fmt.Sprintf("the WHY does not name %q as one term: %s", pair, why.Text))
	}
	if !strings.Contains(why.Text, "unlink +") {
		problems = append(problems, "the WHY does not name the unlinks NamedTemporaryFile adds: "+why.Text)
	}
	if n := bulletLines(strings.Split(out, "\n"), "• "+named+": "); n < 1 || n > report.ShortLines {
		problems = append(problems, fmt.Sprintf("the terminal's WHY of %s has %d lines, want 1 to %d", named, n, report.ShortLines))
	}
	if userShare.FindString(why.Short) == "" || strings.Contains(why.Text, "cancel") {
		problems = append(problems, "the WHY names no share of user space, or its terms cancel: "+why.Text)
	}
	return problems
}

// userShare is user space named by its share of a gap: "user space
// +12.3 (52%".
var userShare = regexp.MustCompile(`user space [+−][0-9.]+ \([0-9]+%`)

// cp of a 64 MiB file, then the same followed by sync: the WHY says the
// difference is the sync, a syscall cp alone never makes.
func TestCompareCpSync(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	if err := os.WriteFile(src, make([]byte, 64<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	cp := func(dst string) string { return fmt.Sprintf("cp %s %s", src, filepath.Join(dir, dst)) }
	run, sums, out := compared(t, "--rounds", "3", "--names", "cp,cp+sync", cp("a"), cp("b")+" && sync")
	line := gapSentence(t, run, sums, 1, out).Sentence()
	t.Log(line)
	if !strings.Contains(line, "sync +") || !strings.Contains(line, "new syscall, 1/run") {
		t.Errorf("the WHY does not name sync as the new syscall: %s", line)
	}
	if n := sums[0].Class("sync").Calls; n != 0 {
		t.Errorf("cp alone made %d syncs", n)
	}
}

// Each command's calls per run, over its process tree, are strace -f -c's
// for that command, syscall by syscall (openat's variants summed).
func TestCompareCountsEqualStrace(t *testing.T) {
	needRoot(t)
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Fatal("strace not found (CI installs it)")
	}
	cmds := []string{"cat /etc/passwd > /dev/null; ls / > /dev/null", "ls -l /usr/bin > /dev/null"}
	_, sums, _ := compared(t, append([]string{"--rounds", "2"}, cmds...)...)
	for i, c := range cmds {
		log := filepath.Join(t.TempDir(), "strace")
		if out, err := exec.Command(strace, "-f", "-c", "-o", log, "sh", "-c", c).CombinedOutput(); err != nil {
			t.Fatalf("strace: %v\n%s", err, out)
		}
		want := straceCalls(t, log)
		got := map[string]float64{}
		for _, cl := range sums[i].Classes {
			if cl.IsSyscall() {
				fam, _, _ := strings.Cut(cl.Class, "[")
				got[fam] += cl.CallsPerOp
			}
		}
		for name := range got {
			if _, ok := want[name]; !ok {
				want[name] = 0
			}
		}
		for name, n := range want {
			if memoryClasses[name] || name == "futex" {
				continue // the allocator's and the loader's, not fixed per run
			}
			if got[name] != n {
				t.Errorf("%s: %s %.1f/run, strace -f -c %.0f", c, name, got[name], n)
			}
		}
	}
}

// straceCalls reads the calls column of strace -c's table.
func straceCalls(t *testing.T, path string) map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 || fields[len(fields)-1] == "total" || fields[len(fields)-1] == "syscall" {
			continue
		}
		if n, err := strconv.Atoi(fields[3]); err == nil {
			out[fields[len(fields)-1]] = float64(n)
		}
	}
	return out
}

// A command that fails stops the comparison with its status and the tail
// of its stderr, unless --ignore-failure; bad input is exit 2.
func TestCompareFailureAndUsage(t *testing.T) {
	needRoot(t)
	fail := "echo first line >&2; echo the reason >&2; exit 3"
	cmd := tmpprobe("compare", "-q", "--rounds", "2", "true", fail)
	out, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != 3 || !strings.Contains(string(out), "FAILED") ||
		!strings.Contains(string(out), "| the reason") || !strings.Contains(string(out), "exited with status 3") {
		t.Errorf("a failing command: exit %d (%v), want 3, FAILED and its stderr tail:\n%s", code, err, out)
	}
	cmd = tmpprobe("compare", "-q", "--rounds", "2", "--ignore-failure", "true", fail)
	if out, err := cmd.CombinedOutput(); err != nil || strings.Contains(string(out), "FAILED") {
		t.Errorf("--ignore-failure: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"compare", "true"},
		{"compare", "--names", "a", "true", "false"},
		{"compare", "--no-shell", "no-such-command-here", "true"},
		{"compare", "--rounds", "0", "true", "true"},
		{"compare", "--out", "/proc/self/nope/x", "true", "true"},
	} {
		cmd := tmpprobe(args...)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitUsage || strings.Count(strings.TrimSpace(string(out)), "\n") != 1 {
			t.Errorf("%q: exit %d, want 2 and one line and a hint:\n%s", args, code, out)
		}
	}
}

// A saved comparison is a run like any other: report renders it in every
// format, diff compares two, and the exports are written.
func TestCompareSavedRun(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	csv, prof, bench := filepath.Join(dir, "s.csv"), filepath.Join(dir, "p.pb.gz"), filepath.Join(dir, "b.txt")
	cmds := []string{"--rounds", "6", "--names", "one,two", "--csv", csv, "--pprof", prof, "--benchfmt", bench,
		"ls / > /dev/null", "ls -l /usr/bin > /dev/null"}
	saved := filepath.Join(dir, "run")
	run, sums, out := comparedTo(t, saved, cmds...)
	if !run.Complete || len(run.Arms) != 2 || run.Arms[0].Lab != results.LabCompare {
		t.Fatalf("saved run: complete %v, %d arms", run.Complete, len(run.Arms))
	}
	// The CSV carries the breakdown's calls, over the six traced runs.
	calls, _ := csvCalls(t, csv)
	if n := sums[1].Class("statx").Calls; n == 0 || calls["two"]["statx/"] != n {
		t.Errorf("CSV: %d statx for two, the breakdown %d", calls["two"]["statx/"], n)
	}
	for _, f := range []string{prof, bench} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, args := range [][]string{
		{"report", saved}, {"report", saved, "--format", "json"}, {"report", saved, "--format", "markdown"},
		{"diff", saved, saved},
	} {
		b, err := tmpprobe(args...).CombinedOutput()
		if err != nil {
			t.Errorf("%q: %v\n%s", args, err, b)
		}
		want := map[string]string{"text": "runs/s ÷ one", "json": `"lab": "compare"`, "markdown": "## Commands compared", "diff": "compared commands, per run"}
		kind := args[len(args)-1]
		if args[0] == "diff" || len(args) == 2 {
			kind = map[bool]string{true: "diff", false: "text"}[args[0] == "diff"]
		}
		if !strings.Contains(string(b), want[kind]) {
			t.Errorf("%q: no %q:\n%s", args, want[kind], b)
		}
	}
	if !strings.Contains(out, "WHY") {
		t.Errorf("no WHY:\n%s", out)
	}
}

// --warmup, --prepare and --min-time do what they say, and --seed replays
// the order of the runs (each command logs itself).
func TestCompareProtocol(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	log, prep := filepath.Join(dir, "log"), filepath.Join(dir, "prep")
	order := func(seed string) string {
		os.Remove(log)
		compared(t, "--seed", seed, "--rounds", "4", "echo a >> "+log, "echo b >> "+log, "echo c >> "+log)
		b, _ := os.ReadFile(log)
		return strings.Join(strings.Fields(string(b)), "")
	}
	first, again, other := order("42"), order("42"), order("43")
	if len(first) != 4*2*3 || first != again || first == other {
		t.Errorf("runs in order %q, replayed %q, another seed %q: want 24 runs, the same order again, another with another seed", first, again, other)
	}
	run, _, _ := compared(t, "--warmup", "2", "--rounds", "6", "--min-time", "300ms", "--prepare", "echo p >> "+prep, "true", "sleep 0.01")
	b, _ := os.ReadFile(prep)
	warm := 0
	for _, bt := range run.Arms[0].Batches {
		switch {
		case bt.Kind == results.BatchWarmup:
			warm++
		case bt.Generation != bt.Round:
			// Each run is a fresh process tree: a round is its own unit.
			t.Errorf("round %d recorded as generation %d", bt.Round, bt.Generation)
		}
	}
	runs := 2*2 + run.Protocol.Rounds*2*2
	if warm != 2 || run.Protocol.Rounds < 6 || strings.Count(string(b), "p") != runs {
		t.Errorf("%d warm-up runs, %d rounds, --prepare ran %d times: want 2, ≥ 6, %d", warm, run.Protocol.Rounds, strings.Count(string(b), "p"), runs)
	}
	if len(run.Meta.Dirs) != 1 {
		t.Errorf("run.json names %d dirs, want the one the commands ran in", len(run.Meta.Dirs))
	}
}

// A CPU-bound Python loop compared beside real CPU hogs, one per CPU:
// each command's traced runs name the hogs as CPU neighbours, as a lab's
// traced batches do, in run.json, in the footer with their share of the
// run-queue wait, and in the diff against the same comparison run alone.
func TestCompareNamesCPUNeighbour(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	loop := py + " -S -c " + shellQuote("n = 0\nfor i in range(2000000): n += i")
	args := []string{"--rounds", "6", "--names", "a,b", loop, loop}
	out := t.TempDir()
	alone, busy := filepath.Join(out, "alone"), filepath.Join(out, "busy")
	comparedTo(t, alone, args...)
	stop := cpuHogs(t)
	run, _, report := comparedTo(t, busy, args...)
	stop()
	for _, a := range run.Arms {
		var preemptions uint64
		for _, n := range a.Neighbours() {
			if n.Kind == results.NeighbourCPU && n.Comm == "cpuhog" && !n.KernelThread {
				preemptions += n.Count
			}
		}
		if preemptions == 0 {
			t.Errorf("%s: no cpuhog among the CPU neighbours of its traced runs: %+v", a.Arm, a.Neighbours())
		}
	}
	if flat := oneLine(report); !strings.Contains(flat, "cpuhog (pid ") || !strings.Contains(flat, "of the run-queue wait") {
		t.Errorf("the footer names no cpuhog with its share of the run-queue wait:\n%s", report)
	}
	wantCPUHogAppeared(t, diffAll(t, alone, busy))
}

// Traced and untraced runs are timed over the same span, from the
// command's exec to its exit: an untraced run from os/exec's Start, which
// returns once the child's exec closed its close-on-exec pipe, a traced
// one from the close of the launcher's fd 4 by its exec of the command.
// That fd must not outlive the exec: a command that still had it would
// start its clock at its exit. Whether /bin/true's observer effect is
// near 1 is timing, logged, not asserted.
func TestCompareTimesFromExec(t *testing.T) {
	needRoot(t)
	run, sums, _ := compared(t, "--rounds", "10", "--names", "true,no fd 4", "/bin/true", "[ ! -e /proc/$$/fd/4 ]")
	for _, a := range run.Arms {
		for _, b := range a.Batches {
			if b.WallNs <= 0 {
				t.Errorf("%s round %d (traced %v): wall %d ns", a.Arm, b.Round, b.Traced, b.WallNs)
			}
		}
	}
	for _, s := range sums {
		t.Logf("%s: traced ÷ untraced %s", s.Arm, results.RatioText(s.Observer))
	}
}

// --help prints the usage once, every verb filled (the text has "95%").
func TestCompareHelp(t *testing.T) {
	code, stdout, _ := inProcess("compare", "--help")
	if code != 0 || strings.Count(stdout, "Usage:") != 1 || strings.Contains(stdout, "%!") || !strings.Contains(stdout, "--ignore-failure") {
		t.Errorf("compare --help: exit %d:\n%s", code, stdout)
	}
}

// A command is named by its line, and a snippet's newline is printed
// escaped, as a saved run's names are when read back: the live report and
// `report` of the saved run say the same, each command one table row.
func TestCompareEscapesNames(t *testing.T) {
	needBPF(t)
	dir := filepath.Join(t.TempDir(), "run")
	_, _, live := comparedTo(t, dir, "--rounds", "2", "echo 'a\nb'", "true")
	if !strings.Contains(live, `echo 'a\nb'`) || strings.Contains(live, "\nb'") {
		t.Errorf("the report prints the newline raw, not escaped:\n%s", live)
	}
	if code, again, stderr := inProcess("report", dir); code != 0 || again != live {
		t.Errorf("report %s: exit %d (%s), output differs from the live one:\n%s\n---\n%s", dir, code, stderr, again, live)
	}
}

// #43: compare --until W runs rounds until every command's ratio to the
// first has an interval at most W wide (--rounds the fewest), as all
// --until does, and its footer says so; a "no different" verdict says
// what it rules out or how many rounds would tell.
func TestCompareUntil(t *testing.T) {
	needRoot(t)
	run, sums, out := compared(t, "--until", "40%", "--rounds", "2", "--names", "a,b", "true", "true")
	if run.Protocol.Until != 0.40 || run.Protocol.Rounds < results.MinRoundsForCI || run.Protocol.Rounds >= cmdbench.MaxRounds {
		t.Errorf("--until 40%%: %d rounds, until %g; want it to stop on its own, past %d", run.Protocol.Rounds, run.Protocol.Until, results.MinRoundsForCI)
	}
	if r := sums[1].Ratio; !r.Bounded() || (r.Hi-r.Lo)/r.Center > 0.40 {
		t.Errorf("--until 40%%: the ratio's interval %+v is wider than 40%%", r)
	}
	if want := fmt.Sprintf("%d rounds (--until 40%%)", run.Protocol.Rounds); !strings.Contains(oneLine(out), want) {
		t.Errorf("the footer does not say %q:\n%s", want, out)
	}
	// The same command twice: no different, and the verdict says on what.
	if line := oneLine(out); !strings.Contains(line, "b: no different from a's throughput") ||
		!(strings.Contains(line, "no change beyond ±") || strings.Contains(line, "rounds to tell a change of")) {
		t.Errorf("the verdict of a command against itself says neither what it rules out nor the rounds to tell:\n%s", out)
	}
}

// #37: compare's untraced clock started when os/exec's Start returned,
// read by a reader the child's exec woke on the child's own CPU, which
// often ran after the child had: `true` measured 18–24 µs in 7 of 20
// runs. Runs are timed from the exec as the kernel saw it. No untraced
// run is shorter than the floor measured in the same comparison: half
// the time its command's traced twin spent in its own syscalls (an
// untraced run makes the same syscalls, which tracing does not double).
func TestCompareClockStartsAtTheExec(t *testing.T) {
	needRoot(t)
	run, _, out := compared(t, "--rounds", "20", "true", "sh -c true")
	if strings.Contains(oneLine(out), "exec clock") {
		t.Fatalf("the exec clock did not attach:\n%s", out)
	}
	for _, a := range run.Arms {
		floor := uint64(math.MaxUint64)
		var untraced []int64
		for _, b := range a.Batches {
			switch {
			case !b.Measured():
			case b.Traced:
				var kernel uint64
				for _, r := range b.Records {
					if r.Stage == "" && r.Class != results.ClassUser {
						kernel += r.TotalNs
					}
				}
				floor = min(floor, kernel/2)
			default:
				untraced = append(untraced, b.WallNs)
			}
		}
		if floor == math.MaxUint64 || floor == 0 || len(untraced) != 20 {
			t.Fatalf("%s: floor %d ns from its traced runs, %d untraced runs", a.Arm, floor, len(untraced))
		}
		short := 0
		for _, w := range untraced {
			if uint64(w) < floor {
				short++
			}
		}
		t.Logf("%s: floor %.1f µs, untraced fastest %.1f µs", a.Arm, float64(floor)/1e3, float64(slices.Min(untraced))/1e3)
		if short > 0 {
			t.Errorf("%s: %d of %d untraced runs shorter than %.1f µs, half its traced twin's syscall time: %v", a.Arm, short, len(untraced), float64(floor)/1e3, untraced)
		}
	}
}
