//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
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
