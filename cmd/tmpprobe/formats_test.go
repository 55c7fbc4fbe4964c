//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results/render"
)

// run and trace write their report as JSON with --format json, and to a
// file with -o (stdout then carries nothing of tmpprobe's); trace -q says
// nothing on stderr but what the command does.
func TestReportFormatAndOutputFile(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		args    []string
		command []string
		arms    int
	}{
		{"run", quickRun("/tmp", "--rounds", "2"), nil, 1},
		{"trace", []string{"trace", "-q"}, []string{"--", "true"}, 1},
	} {
		out := filepath.Join(dir, tc.name+".json")
		code, stdout, stderr := inProcess(append(append(tc.args, "--format", "json", "-o", out), tc.command...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		if stdout != "" || stderr != "" {
			t.Errorf("%s -o: stdout %q, stderr %q: want nothing", tc.name, stdout, stderr)
		}
		b, err := os.ReadFile(out)
		var rep render.SummaryReport
		if err != nil || json.Unmarshal(b, &rep) != nil || len(rep.Arms) != tc.arms {
			t.Errorf("%s: -o %s: %v, %d arms\n%s", tc.name, out, err, len(rep.Arms), b)
		}
		code, stdout, _ = inProcess(append(append(tc.args, "--format", "json"), tc.command...)...)
		if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil {
			t.Errorf("%s --format json to stdout: exit %d, %q", tc.name, code, stdout)
		}
	}
	code, stdout, _ := inProcess(quickRun("/tmp", "-o", filepath.Join(dir, "run.txt"))...)
	text, _ := os.ReadFile(filepath.Join(dir, "run.txt"))
	if code != 0 || stdout != "" || !strings.Contains(string(text), "TemporaryFile") {
		t.Errorf("-o run.txt: exit %d, stdout %q, file %q", code, stdout, text)
	}
}
