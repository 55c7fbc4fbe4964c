//go:build linux

package main

import (
	"encoding/xml"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// #37: what the user typed (a path, a command) reaches the terminal, the
// errors and the reports escaped: an ESC or a newline in a --dir, --out
// or --csv path, or in the names of the runs a diff compares, prints as
// \x1b and \n on one line, never as a control the terminal acts on, and
// never cuts the message.
func TestWhatTheUserTypedIsEscaped(t *testing.T) {
	// Below a regular file: nothing can be made there, not even by root.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	hostile := file + "/\x1b[31mred\nline"
	for _, args := range [][]string{
		{"all", "--dir", hostile},
		{"all", "--dir", "/tmp", "--out", hostile + "/run"},
		{"all", "--dir", "/tmp", "--csv", hostile + "/a.csv"},
		{"trace", "--cgroup", hostile, "--duration", "1s"},
		{"diff", hostile, hostile + "2"},
		{"report", hostile},
	} {
		code, stdout, stderr := inProcess(args...)
		if strings.ContainsAny(stdout+stderr, "\x1b") || !strings.Contains(stderr, `\x1b[31mred\nline`) {
			t.Errorf("%q: exit %d, stderr %q: want the path escaped in it, whole", args, code, stderr)
		}
		if lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n"); len(lines) > 2 {
			t.Errorf("%q: the message is %d lines: %q", args, len(lines), stderr)
		}
	}
	// Two saved runs whose directory names hold escapes: diff names them,
	// escaped, in text and markdown.
	dir := t.TempDir()
	names := []string{filepath.Join(dir, "old\x1b[2J"), filepath.Join(dir, "new`<img src=x>")}
	for i, src := range []string{goldenOld, goldenNew} {
		if out, err := exec.Command("cp", "-r", src, names[i]).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v: %s", err, out)
		}
	}
	for _, c := range []struct{ format, newLine string }{
		{"text", "NEW " + names[1]},
		// In a code span, fenced past its backtick: text, not HTML.
		{"markdown", "- NEW: ``" + names[1] + "``"},
	} {
		_, stdout, stderr := inProcess("diff", "--format", c.format, names[0], names[1])
		if strings.ContainsAny(stdout+stderr, "\x1b") || !strings.Contains(stdout, `old\x1b[2J`) || !strings.Contains(stdout, c.newLine+"\n") {
			t.Errorf("diff --format %s of runs named with escapes: %q", c.format, firstLines(stdout, 4))
		}
	}
	os.RemoveAll(dir)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}

// A traced command whose name holds ESC and BEL: the live report, the
// "tracing" line, report.md, the CSVs and chart.svg show them escaped, as
// a re-rendered saved run does, and chart.svg is well-formed XML.
func TestLiveOutputEscaped(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	name := filepath.Join(dir, "app\x1b[31m\x07")
	script := "#!/bin/sh\ni=0\nwhile [ $i -lt 300 ]; do echo x > " + dir + "/f; i=$((i+1)); done\n"
	if err := os.WriteFile(name, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out, csv := filepath.Join(dir, "run"), filepath.Join(dir, "t.csv")
	code, stdout, stderr := runGuarded(t, tmpprobe("trace", "--csv", csv, "--out", out, "--", name, "\x1b]0;title\x07"))
	if code != 0 {
		t.Fatalf("exit %d: %q", code, stderr)
	}
	files := runFiles(t, out)
	delete(files, "chart.png") // binary
	b, _ := os.ReadFile(csv)
	files["--csv"], files["stdout"], files["stderr"] = string(b), stdout, stderr
	for what, body := range files {
		if strings.ContainsAny(body, "\x1b\x07") {
			t.Errorf("%s holds a raw ESC or BEL", what)
		}
	}
	if !strings.Contains(stderr, `\x1b[31m\a`) {
		t.Errorf("the tracing line does not name the command escaped: %q", stderr)
	}
	svg, ok := files["chart.svg"]
	if !ok {
		t.Fatalf("no chart.svg in %v", slices.Collect(maps.Keys(files)))
	}
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		if _, err := d.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Errorf("chart.svg is not XML: %v", err)
			break
		}
	}
}
