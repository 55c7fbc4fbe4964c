//go:build linux

package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// timesFigure is a ratio as prose says it: "0.09× [0.06–0.14]".
var timesFigure = regexp.MustCompile(`[0-9.]+× (\[[0-9.]+–[0-9.]+\]|±∞)`)

// Each figure once (#31): over a saved run of real arms, an arm's ratio
// to its baseline, its ops/s and its µs/op each read with one value and
// one interval in the terminal's table and WHY, in report.md and in JSON;
// a WHY gives one ratio (no traced one beside it); the fsync cliff's
// ratio, which no table has, reads the same in all three.
func TestEachFigureOnce(t *testing.T) {
	needBPF(t)
	dir := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := inProcess("run", "TemporaryFile", "NamedTemporaryFile", "mkstemp-close-unlink", "mkstemp-fsync",
		"--lab", "modes", "--runtime", "python", "--rounds", "12", "--worker-rounds", "2", "-q", "--out", dir); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	out := map[string]string{}
	for _, f := range []string{"text", "markdown", "json"} {
		code, o, stderr := inProcess("report", dir, "--format", f)
		if code != 0 {
			t.Fatalf("report --format %s: exit %d: %s", f, code, stderr)
		}
		out[f] = o
	}
	var rep render.SummaryReport
	if err := json.Unmarshal([]byte(out["json"]), &rep); err != nil {
		t.Fatal(err)
	}
	text, md := strings.Split(out["text"], "\n"), strings.Split(out["markdown"], "\n")
	bullets := textBullets(text)
	var why []report.Sentence
	for _, g := range rep.Groups {
		why = append(why, g.Why...)
	}
	run, err := runfile.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	sums := results.SummarizeAll(run, arms.Knowledge().Baselines)
	for i, a := range rep.Arms {
		s := sums[i]
		if a.Ratio == nil || a.TimePerOp == nil || s.Arm != a.Arm {
			t.Fatalf("%s: JSON has no ratio or time per op, or is not %s", a.Arm, s.Arm)
		}
		// JSON keeps six significant digits of the run's figures.
		for _, f := range [][2]results.Estimate{{a.OpsPerS, s.OpsPerS}, {*a.Ratio, s.Ratio}, {*a.TimePerOp, s.TimePerOp()}} {
			if !near(f[0].Center, f[1].Center) || !near(f[0].Lo, f[1].Lo) || !near(f[0].Hi, f[1].Hi) {
				t.Errorf("%s: JSON says %+v, the run %+v", a.Arm, f[0], f[1])
			}
		}
		// The printed cells are the run's figures, as exact as it has them.
		perOpFig := s.TimePerOp()
		ops, ratio, perOp := report.RateCell(s.OpsPerS), results.RatioText(s.Ratio), results.Micros(perOpFig.Center)
		row := lineStarting(text, a.Arm+" ")
		if got := strings.Fields(strings.TrimPrefix(row, a.Arm)); strings.Join(got, " ") != strings.Join(strings.Fields(ops+" "+ratio+" "+perOp), " ") {
			t.Errorf("%s: the table's row %q, want %s | %s | %s", a.Arm, row, ops, ratio, perOp)
		}
		mdRow := strings.Split(lineStarting(md, "| "+a.Arm+" |"), " | ")
		want := []string{results.Rate(s.OpsPerS.Center), results.Rate(s.OpsPerS.Lo) + "–" + results.Rate(s.OpsPerS.Hi), ratio, perOp,
			results.Micros(perOpFig.Lo) + "–" + results.Micros(perOpFig.Hi)}
		if len(mdRow) < 6 || strings.Join(mdRow[1:6], " | ") != strings.Join(want, " | ") {
			t.Errorf("%s: report.md's row %q, want %s", a.Arm, mdRow, strings.Join(want, " | "))
		}
		if a.Arm == "TemporaryFile" {
			continue
		}
		// Its WHY against the baseline: the table's ratio, and no other.
		head := a.Arm + ": "
		said := results.TimesText(s.Ratio)
		for _, s := range append(sentencesOf(why, head, "TemporaryFile's"), bulletsOf(bullets, head, "TemporaryFile's")...) {
			if !strings.Contains(s, said) || strings.Count(s, "×") != 1 || strings.Contains(s, "untraced") {
				t.Errorf("%s: a WHY says %q, want the table's %s and no other ratio", a.Arm, s, said)
			}
		}
		if !strings.Contains(out["markdown"], "- "+head) || len(bulletsOf(bullets, head, "TemporaryFile's")) != 1 {
			t.Errorf("%s: no WHY of it against TemporaryFile in report.md or the terminal", a.Arm)
		}
	}
	// The cliff's ratio is paired per round like the table's, once.
	cliff := sentencesOf(why, "mkstemp-fsync: ", "mkstemp-close-unlink's")
	if len(cliff) != 2 { // its text and its short
		t.Fatalf("the fsync cliff's WHY in JSON: %q", cliff)
	}
	ratio := timesFigure.FindString(cliff[0])
	for _, s := range append(cliff, bulletsOf(bullets, "mkstemp-fsync: ", "mkstemp-close-unlink's")...) {
		if ratio == "" || !strings.Contains(s, ratio) || strings.Count(s, "×") != 1 {
			t.Errorf("the cliff's WHY %q: want its ratio %q once", s, ratio)
		}
	}
	// report.md escapes what markdown would read as a tag ("<module>").
	if !strings.Contains(oneLine(out["markdown"]), markdownText.Replace(cliff[0])) {
		t.Errorf("report.md lacks the cliff's WHY %q", cliff[0])
	}
}

// markdownText is text as report.md writes it outside code spans.
var markdownText = strings.NewReplacer("|", `\|`, "&", "&amp;", "<", "&lt;")

// near says JSON's six significant digits hold v.
func near(json, v float64) bool {
	return json == v || math.Abs(json-v) <= 1e-5*math.Abs(v) || math.IsInf(v, 0) && json == 0
}

// lineStarting is the first line that starts with prefix, or "".
func lineStarting(lines []string, prefix string) string {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// textBullets are the terminal's bullets, each unwrapped to one line.
func textBullets(lines []string) []string {
	var out []string
	for i, l := range lines {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "• ") {
			end := sentenceEnd(lines[i:], t)
			out = append(out, strings.Join(strings.Fields(strings.TrimPrefix(strings.Join(lines[i:i+end+1], " "), "  • ")), " "))
		}
	}
	return out
}

// bulletsOf are the bullets that start with head and name base.
func bulletsOf(bullets []string, head, base string) []string {
	var out []string
	for _, b := range bullets {
		if b = strings.TrimPrefix(b, "• "); strings.HasPrefix(b, head) && strings.Contains(b, base) {
			out = append(out, b)
		}
	}
	return out
}

// sentencesOf are the texts and shorts of the sentences that start with
// head and name base.
func sentencesOf(why []report.Sentence, head, base string) []string {
	var out []string
	for _, s := range why {
		for _, x := range []string{s.Text, s.Short} {
			if strings.HasPrefix(x, head) && strings.Contains(x, base) {
				out = append(out, x)
			}
		}
	}
	return out
}
