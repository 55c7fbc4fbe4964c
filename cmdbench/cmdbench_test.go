//go:build linux

package cmdbench

import (
	"strings"
	"testing"
)

// Command lines become argv with or without a shell; names default to the
// line, a repeated name gets its position, and a command that cannot run
// is refused before anything runs.
func TestCommands(t *testing.T) {
	cmds, err := Commands([]string{"ls -l  /", "ls -l  /"}, nil, true)
	if err != nil || len(cmds) != 2 || cmds[0].Name != "ls -l  /" || cmds[1].Name != "ls -l  / #2" ||
		strings.Join(cmds[0].Argv, "|") != "sh|-c|ls -l  /" {
		t.Errorf("with a shell: %+v, %v", cmds, err)
	}
	cmds, err = Commands([]string{"ls -l  /", "true"}, []string{"long", "none"}, false)
	if err != nil || cmds[0].Name != "long" || strings.Join(cmds[0].Argv, "|") != "ls|-l|/" || cmds[1].Name != "none" {
		t.Errorf("without a shell: %+v, %v", cmds, err)
	}
	for _, bad := range []struct {
		lines, names []string
		shell        bool
	}{
		{[]string{"true", "true"}, []string{"one"}, true},
		{[]string{"true", "  "}, nil, false},
		{[]string{"true", "/nonexistent/cmd x"}, nil, false},
	} {
		if _, err := Commands(bad.lines, bad.names, bad.shell); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("Commands(%q, %q, %v) = %v: want one line of error", bad.lines, bad.names, bad.shell, err)
		}
	}
}

// A failing command's stderr is kept to its last 4 KiB, the end intact.
func TestTailWriter(t *testing.T) {
	w := &tailWriter{}
	for i := 0; i < 1000; i++ {
		w.Write([]byte(strings.Repeat("x", 99) + "\n"))
	}
	w.Write([]byte("the reason\n"))
	if s := w.String(); len(s) != tailBytes || !strings.HasSuffix(s, "the reason\n") {
		t.Errorf("tail of %d bytes ending %q", len(s), s[len(s)-20:])
	}
}
