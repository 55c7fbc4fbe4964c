//go:build linux

package main

import (
	"strings"
	"testing"
)

// Every subcommand's --help fits 80 columns (a flag's line ran to 192,
// list's to 107) and exits 0, version's too (it exited 2).
func TestHelpFitsEightyColumns(t *testing.T) {
	for _, cmd := range commands {
		for _, args := range [][]string{{cmd, "--help"}, {cmd}} {
			if cmd != "list" && cmd != "version" && len(args) == 1 {
				continue // the others need arguments, or run something
			}
			code, stdout, stderr := inProcess(args...)
			if code != 0 {
				t.Errorf("%v: exit %d, %q", args, code, stderr)
			}
			for _, line := range strings.Split(stdout, "\n") {
				if n := len([]rune(line)); n > 80 {
					t.Errorf("%v: a line of %d columns: %q", args, n, line)
				}
			}
		}
	}
}

// A misspelled subcommand, arm or lab is answered with the name it most
// likely meant, whatever the case; an arm's bare name in two labs is
// taken in the lab the other names pin, or the lab is asked for ("run
// NamedTemporaryFile TemporaryFile" ran the buffers lab's
// NamedTemporaryFile at every size too, without its baseline).
func TestNamesMistyped(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"al"}, `unknown command "al" (did you mean all?)`},
		{[]string{"run", "NamedTemporaryFlie"}, "(did you mean NamedTemporaryFile?)"},
		{[]string{"run", "namedtemporaryfile"}, "(did you mean NamedTemporaryFile?)"},
		{[]string{"run", "mkstemp-fsnyc"}, "(did you mean mkstemp-fsync?)"},
		{[]string{"all", "--lab", "mode"}, "(did you mean modes?)"},
		{[]string{"run", "NamedTemporaryFile"}, "an arm of the modes and buffers labs: name the lab (--lab modes, or modes/NamedTemporaryFile)"},
		{[]string{"run", "BytesIO", "--lab", "modes"}, "BytesIO is an arm of the buffers lab, not of --lab modes"},
	} {
		code, stdout, stderr := inProcess(c.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 saying %q", c.args, code, stderr, c.want)
		}
	}
	code, stdout, stderr := inProcess(quickRun(t.TempDir(), "NamedTemporaryFile")...)
	if code != 0 || strings.Contains(stdout, "buffers lab") || !strings.Contains(stdout, "NamedTemporaryFile") {
		t.Errorf("run TemporaryFile NamedTemporaryFile: exit %d (%s); want the modes lab's two arms only:\n%s", code, stderr, stdout)
	}
}
