//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 19's flags: a negative --worker-rounds and a --dir holding a
// control character are refused before anything runs (a newline in --dir
// ran in the name's first line, exit 0).
func TestFlagsRefusedRound3(t *testing.T) {
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
