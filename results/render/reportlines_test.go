package render

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// report.md says everything the terminal report says after the tables:
// every footer line (work dirs, warnings, notes, missing hooks, drops, an
// incomplete run), every failed arm with its stderr, every rollover
// sentence. The terminal's own output is the reference.
func TestMarkdownCarriesTerminal(t *testing.T) {
	run := resultstest.FixtureRun(true)
	run.Complete = false
	run.Drops = map[string]uint64{"map_full": 3, "no_enter": 0}
	run.Meta.Python = "3.11.2"
	run.Meta.Dirs = []results.DirFacts{
		{Dir: "/tmp", FSType: "ext4", Source: "/dev/vda1", Options: "rw,relatime,discard", Journal: "no", WriteCache: "write back", FUA: "no"},
		{Dir: "/dev/shm", FSType: "tmpfs", Source: "tmpfs", Options: "rw,nosuid,nodev"},
	}
	run.Meta.Warnings = []string{"/tmp: ext4 without a journal: fsync waits for the data only", "host busy (load 3.0 on 2 CPUs): expect run-queue waits"}
	run.Meta.Notes = []string{"vfs_fsync_range: inlined, no stage row"}
	run.Arms[2].Stderr = "Traceback (most recent call last):\n  File \"driver.py\", line 3\n```\nOSError: [Errno 28] | No space left on device"
	spooled := results.ArmResult{CaseID: results.CaseID{Lab: "buffers", Arm: "SpooledTemporaryFile", Runtime: "go", Dir: "/tmp", SizeBytes: 1 << 20}, Ops: 1}
	spooled.Batches = resultstest.Batches(1, []int64{700_000, 720_000, 690_000, 710_000, 730_000, 700_000}, func(int) []results.ClassRecord {
		return []results.ClassRecord{resultstest.Rec("openat[tmpfile]", 1, 50_000, 0, ""), resultstest.Rec("write", 17, 20_000, 0, ""), resultstest.Rec("read", 17, 12_000, 0, "")}
	})
	run.Arms = append(run.Arms, spooled)
	sums := resultstest.Sums(run)

	md := string(resultstest.Render(t, func(w io.Writer) error { WriteMarkdown(w, run, sums, resultstest.Labs); return nil }))
	var term bytes.Buffer
	WriteExplanations(&term, sums, resultstest.Labs)
	WriteFailures(&term, run.Arms)
	WriteFooter(&term, run)
	// The terminal wraps a footer line at 80 columns, continuing it
	// indented by two spaces.
	terminal := term.String()
	unwrapped := strings.ReplaceAll(terminal, "\n  ", " ")

	footer := Footer(run)
	for _, want := range []string{"dir /tmp: ext4 on /dev/vda1", "dir /dev/shm: tmpfs", "Python 3.11.2", "CPU: Test CPU"} {
		if !strings.Contains(unwrapped, want) {
			t.Errorf("terminal footer lacks %q", want)
		}
	}
	kinds := map[string]int{}
	for _, l := range footer {
		kinds[l.Kind]++
		line := l.Text
		if l.Kind != "" {
			line = l.Kind + ": " + l.Text
		}
		if !strings.Contains(unwrapped, "\n"+line+"\n") {
			t.Errorf("terminal footer lacks the line %q", line)
		}
		if !strings.Contains(md, mdCell(l.Text)) {
			t.Errorf("report.md lacks the footer line %q", l.Text)
		}
	}
	// 2 preflight warnings + drops + incomplete; the note + the missing hook.
	if kinds[FooterWarning] != 4 || kinds[FooterNote] != 2 {
		t.Errorf("footer kinds %v: want 4 warnings and 2 notes", kinds)
	}
	if strings.Contains(md, "no_enter") {
		t.Error("report.md names a drop counter that is zero")
	}

	fails := Failures(run.Arms)
	if len(fails) != 1 || len(fails[0].Tail) != 4 {
		t.Fatalf("failures %+v: want the one failed arm with its 4 stderr lines", fails)
	}
	if !strings.Contains(terminal, "\nFAILED "+fails[0].Head+"\n") {
		t.Errorf("terminal lacks %q", fails[0].Head)
	}
	for _, l := range fails[0].Tail {
		if !strings.Contains(terminal, "  | "+trunc(l, 74)+"\n") {
			t.Errorf("terminal lacks the stderr line %q", l)
		}
	}
	if !strings.Contains(md, mdCell(fails[0].Head)) || !strings.Contains(md, "````\n"+strings.Join(fails[0].Tail, "\n")+"\n````") {
		t.Errorf("report.md lacks the failed arm's head or its stderr verbatim:\n%s", md)
	}

	spills := explain.SpillSentences(sums, resultstest.Labs.Spills)
	if len(spills) != 1 {
		t.Fatalf("spill sentences %q: want one", spills)
	}
	flat := strings.Join(strings.Fields(terminal), " ")
	if !strings.Contains(flat, spills[0]) {
		t.Errorf("terminal WHY lacks %q", spills[0])
	}
	if !strings.Contains(md, mdCell(spills[0])) {
		t.Errorf("report.md lacks %q", spills[0])
	}
}
