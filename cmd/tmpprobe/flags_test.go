//go:build linux

package main

// Flags refused before anything runs, and the edges of what they take.

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 19's flags: a negative --worker-rounds and a --dir holding a
// control character are refused before anything runs (a newline in --dir
// ran in the name's first line, exit 0).
func TestWorkerRoundsAndControlCharactersRefused(t *testing.T) {
	d := t.TempDir()
	os.Mkdir(filepath.Join(d, "new"), 0o755)
	for _, c := range []struct {
		args []string
		want string
	}{
		{quickRun(d, "--worker-rounds", "-1"), "--worker-rounds -1"},
		{quickRun(filepath.Join(d, "new\nline")), "control character"},
		{quickRun(filepath.Join(d, "new\x1b[31m")), "control character"},
		{quickRun(d + "," + filepath.Join(d, "a\x07")), "control character"},
	} {
		code, stdout, stderr := inProcess(c.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) || strings.ContainsAny(stderr, "\x1b\x07") {
			t.Errorf("%q: exit %d, %q; want exit 2 saying %q", c.args, code, stderr, c.want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(d, "new")); len(entries) != 0 {
		t.Errorf("ran in %s/new: %v", d, entries)
	}
}

// The smaller items of issue 13.
func TestHelpAndBadInputs(t *testing.T) {
	for _, cmd := range []string{"all", "run", "list", "trace", "diff", "report", "check"} {
		code, stdout, _ := inProcess(cmd, "--help")
		if code != 0 || strings.Count(stdout, "Usage:") != 1 {
			t.Errorf("%s --help: exit %d, %d usages", cmd, code, strings.Count(stdout, "Usage:"))
		}
	}
	work := t.TempDir()
	notExec := filepath.Join(t.TempDir(), "script")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", goldenOld, goldenNew, "--threshold", "NaN"}, "--threshold"},
		{[]string{"trace", "--syscall", "bogus", "--", "true"}, "bogus"},
		{quickRun(work, "--payload", "400,400"), "given twice"},
		{quickRun(work, "--payload", "64K,65536"), "given twice"},
		{[]string{"trace", "--", notExec}, "not executable"},
	} {
		code, stdout, stderr := inProcess(c.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", c.args, code, stderr, c.want)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"trace", "--", "true"}, "sudo", "--attach none"},
		{[]string{"check"}, "privileges", "kernel"},
	} {
		cmd := asNobody(t, c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		code := exitStatus(t, cmd.Run())
		msg := stderr.String()
		if code != exitUsage || !strings.Contains(msg, c.want) || strings.Contains(msg, c.not) {
			t.Errorf("%v as nobody: exit %d, %q; want %q, not %q", c.args, code, msg, c.want, c.not)
		}
	}
}

// Round four's smaller items, each refused or said where afa68bc lost or
// hid something: one file named by -o and another output; a command that
// failed in half its runs under --ignore-failure; a raw escape in
// compare's failure line; a zero-width space in --dir; --threshold 100;
// --min-time and --warmup beyond any plan.
func TestInputsAtTheEdges(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	f := filepath.Join(dir, "F")
	for _, flag := range []string{"--csv", "--pprof", "--benchfmt"} {
		if code, _, stderr := inProcess(quickRun(dir, "-o", f, flag, f)...); code != exitUsage || !strings.Contains(stderr, "-o writes too") {
			t.Errorf("-o F %s F: exit %d, %q; want 2, the same file", flag, code, stderr)
		}
	}
	if _, err := os.Stat(f); err == nil {
		t.Errorf("%s written by a refused run", f)
	}

	flip := filepath.Join(dir, "flip")
	// As root: under sudo the commands run as the invoker, who cannot
	// write in this test's own temporary dir.
	code, stdout, _ := inProcess("compare", "-q", "--user", "root", "--rounds", "4", "--ignore-failure", "true",
		"if [ -e "+flip+" ]; then rm "+flip+"; exit 3; else touch "+flip+"; fi")
	if code != 0 || !strings.Contains(oneLine(stdout), "exited non-zero in 4 of its 8 runs (status 3)") {
		t.Errorf("--ignore-failure, a command failing every other run: exit %d; the footer does not say 4 of 8 failed:\n%s", code, stdout)
	}

	code, _, stderr := inProcess("compare", "-q", "--rounds", "1", "true", "exit 2 # \x1b[31mred")
	if code != 2 || strings.Contains(stderr, "\x1b") || !strings.Contains(stderr, `\x1b[31mred exited with status 2`) {
		t.Errorf("a failing command named with an escape: exit %d, stderr %q; want 2, the escape escaped", code, stderr)
	}

	zw := filepath.Join(dir, "a\u200bb")
	os.Mkdir(zw, 0o755)
	if code, stdout, _ := inProcess(quickRun(zw)...); code != 0 || strings.Contains(stdout, "\u200b") || !strings.Contains(stdout, `a\u200bb`) {
		t.Errorf("--dir with a zero-width space: exit %d; want it printed escaped:\n%s", code, stdout)
	}

	if code, _, stderr := inProcess("diff", goldenOld, goldenNew, "--threshold", "100"); code == exitUsage {
		t.Errorf("--threshold 100: exit 2, %q; want it taken (0..100)", stderr)
	}
	for _, args := range [][]string{{"--min-time", "25h"}, {"--warmup", "1001"}} {
		if code, _, stderr := inProcess(append(append([]string{"compare"}, args...), "true", "true")...); code != exitUsage || !strings.Contains(stderr, args[0]) {
			t.Errorf("compare %v: exit %d, %q; want 2 naming the flag", args, code, stderr)
		}
	}
}
