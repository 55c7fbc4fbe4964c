//go:build linux

package main

// Saved runs read back: files that are not runs, and a dir that cannot be read.

import (
	"bytes"
	"encoding/csv"
	"golang.org/x/sys/unix"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// diff and report refuse what no run can be, in one line with exit 2: a
// CSV cut at a line boundary, a FIFO (without waiting on it), impossible
// numbers; and print the names a file holds as text, never as terminal
// control sequences.
func TestBadRunFilesRefused(t *testing.T) {
	dir := t.TempDir()
	goodJSON, _ := os.ReadFile(filepath.Join(goldenOld, "run.json"))
	goodCSV, _ := os.ReadFile(filepath.Join(goldenOld, "syscalls.csv"))
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	lines := strings.SplitAfter(string(goodCSV), "\n")
	cut := write("cut.csv", strings.Join(lines[:len(lines)-3], "")) // the last two rows gone
	huge := write("huge.json", strings.Replace(string(goodJSON), `"total_ns": 5400000`, `"total_ns": 18446744073709551615`, 1))
	forever := write("forever.json", strings.Replace(string(goodJSON), `"wall_ns": 8000000`, `"wall_ns": 9223372036854775807`, 1))
	instant := write("instant.json", strings.Replace(string(goodJSON), `"wall_ns": 8400000`, `"wall_ns": 0`, 1))
	busy := write("busy.json", strings.Replace(string(goodJSON), `"wall_ns": 8400000`, `"wall_ns": 840000`, 1))
	for name, path := range map[string]string{"cut CSV": cut, "total_ns 2^64-1": huge, "wall_ns max": forever,
		"wall_ns 0": instant, "kernel above wall": busy} {
		for _, args := range [][]string{{"report", path}, {"diff", goldenOld, path}} {
			code, stdout, stderr := inProcess(args...)
			if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s: %s: exit %d, stderr %q; want exit 2, one line", name, args[0], code, stderr)
			}
		}
	}

	fifo := filepath.Join(dir, "fifo")
	unix.Mkfifo(fifo, 0o644)
	for _, args := range [][]string{{"diff", goldenOld, fifo}, {"report", fifo}} {
		cmd := tmpprobe(args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if code := exitStatus(t, err); code != exitUsage || !strings.Contains(stderr.String(), "not a regular file") {
				t.Errorf("%v: exit %d, %q", args, code, stderr.String())
			}
		case <-time.After(30 * time.Second): // a guard against hanging the suite, not a timing
			cmd.Process.Kill()
			t.Errorf("%v blocked on the FIFO", args)
		}
	}

	evil := "x\n\x1b[31mRED\u202e"
	named := write("named.json", strings.ReplaceAll(string(goodJSON), `"arm": "TemporaryFile"`, `"arm": "x\n\u001b[31mRED\u202e"`))
	rows, _ := csv.NewReader(bytes.NewReader(goodCSV)).ReadAll()
	for _, r := range rows[1:] {
		if r[1] == "TemporaryFile" {
			r[1] = evil
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.WriteAll(rows)
	namedCSV := write("named.csv", b.String())
	for _, args := range [][]string{
		{"report", named}, {"report", named, "--format", "markdown"}, {"diff", named, goldenNew}, {"diff", goldenOld, namedCSV},
		{"report", namedCSV},
	} {
		code, stdout, stderr := inProcess(args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if strings.ContainsAny(stdout+stderr, "\x1b\u202e") || !strings.Contains(stdout, `x\n\x1b[31mRED\u202e`) {
			t.Errorf("%v: the name is not escaped:\n%s", args, stdout)
		}
	}
}

// report on a directory it cannot read says so, rather than that there
// is no run there.
func TestReportUnreadableDir(t *testing.T) {
	needRoot(t)
	run := filepath.Join(t.TempDir(), "run")
	os.Mkdir(run, 0o700)
	b, _ := os.ReadFile(filepath.Join(goldenOld, "run.json"))
	os.WriteFile(filepath.Join(run, "run.json"), b, 0o644)
	os.Chmod(filepath.Dir(run), 0o755)
	cmd := asNobody(t, "report", run)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitStatus(t, cmd.Run()); code != exitUsage || !strings.Contains(stderr.String(), "permission denied") {
		t.Errorf("report of an unreadable dir as nobody: exit %d, %q", code, stderr.String())
	}
}
