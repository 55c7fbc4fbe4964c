//go:build linux

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/internal/sudotest"
	"github.com/tmpprobe/tmpprobe/session"
)

// The test binary doubles as tmpprobe (and, through main, as its Go
// worker) so the end-to-end tests run the real command.
func TestMain(m *testing.M) {
	isWorker := len(os.Args) > 1 && (os.Args[1] == arms.WorkerArg || os.Args[1] == follow.LaunchArg || os.Args[1] == session.GuardArg)
	if os.Getenv("TMPPROBE_TEST_MAIN") == "1" || isWorker {
		main()
		return
	}
	sudoEnv = sudotest.Forget()
	os.Exit(m.Run())
}

// sudoEnv is what make test's sudo set, taken out of the tests'
// environment (sudotest.Forget): tests run as root, in root's temp dirs.
var sudoEnv []string

// git runs git in the user's clone as root with what sudo set: git
// trusts a repository of SUDO_UID's to root (safe.directory), and
// without it refuses one another user owns ("dubious ownership").
func git(args ...string) *exec.Cmd {
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), sudoEnv...)
	return cmd
}

// Bad input is refused before anything runs: exit 2, one line saying why,
// one line of hint, never a stack trace.
func TestBadInputs(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(t.TempDir(), link)
	notPython := filepath.Join(t.TempDir(), "python2")
	os.WriteFile(notPython, []byte("#!/bin/sh\necho 2.7.18\n"), 0o755)
	readOnly := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(readOnly, 0o500)

	cases := [][]string{
		{},
		{"frobnicate"},
		{"all", "--bogus"},
		{"all", "TemporaryFile"},
		{"run"},
		{"run", "NoSuchArm"},
		{"run", "TemporaryFile", "--lab", "nolab"},
		{"all", "--lab", "modes,nolab"},
		{"all", "--ops", "abc"},
		{"all", "--ops", "0"},
		{"all", "--ops", "-5"},
		{"all", "--ops", "1000000000"},
		{"all", "--repeats", "0"},
		{"all", "--repeats", "x"},
		{"all", "--rounds", "0"},
		{"all", "--payload", "abc"},
		{"all", "--payload", "-1"},
		{"all", "--payload", "64,,400"},
		{"all", "--payload", "2G"},
		{"all", "--sizes", "0"},
		{"all", "--sizes", "1M,banana"},
		{"all", "--sizes", "100K"}, // not a multiple of the 64K chunk
		{"all", "--chunk", "0"},
		{"all", "--spool-max", "lots"},
		{"all", "--dir", "/nonexistent/dir"},
		{"all", "--dir", file},
		{"all", "--dir", link},
		{"all", "--dir", ""},
		{"all", "--dir", "/tmp,/tmp/"},
		{"all", "--payload", "18014398509481985K"},
		{"all", "--runtime", "ruby"},
		{"all", "--runtime", "python", "--python", "/nonexistent/python3"},
		{"all", "--runtime", "python", "--python", notPython},
		{"all", "--attach", "bogus"},
		{"all", "--arm-timeout", "-1s"},
		{"all", "--arm-timeout", "soon"},
		{"list", "extra"},
		{"trace"},
		{"trace", "--pid", "abc"},
		{"trace", "--pid", "999999999"},
		{"trace", "--tid", "0"},
		{"trace", "--cgroup", "some.slice"},
		{"trace", "--pid", "1", "--", "true"},
		{"trace", "--top", "-1", "--", "true"},
		{"trace", "--duration", "-1s", "--", "true"},
		{"trace", "stray", "--", "true"},
	}
	// The table above, and one case more where a read-only dir refuses
	// writes (root writes anywhere): a case dropped by mistake fails here.
	want := 46
	if os.Geteuid() != 0 {
		cases = append(cases, []string{"all", "--dir", readOnly})
		want++
	}
	for _, args := range cases {
		var out, errOut bytes.Buffer
		code := run(args, &out, &errOut)
		msg := errOut.String()
		lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
		switch {
		case code != exitUsage:
			t.Errorf("%q: exit %d, want %d (stderr %q)", args, code, exitUsage, msg)
		case len(args) > 0 && (len(lines) != 2 || !strings.HasPrefix(lines[0], "tmpprobe: ") || !strings.HasPrefix(lines[1], "Try ")):
			t.Errorf("%q: want one reason line and one hint line, got %q", args, msg)
		case strings.Contains(msg, "goroutine") || strings.Contains(msg, "panic"):
			t.Errorf("%q: stack trace: %s", args, msg)
		case out.Len() > 0 && len(args) > 0:
			t.Errorf("%q: wrote to stdout: %q", args, out.String())
		}
	}
	if len(cases) != want {
		t.Fatalf("%d cases, want %d", len(cases), want)
	}
}

// run --lab bogus names the lab, not the arms it did not get to (#21).
func TestRunUnknownLab(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"run", "--lab", "bogus"}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), `unknown lab "bogus"`) {
		t.Errorf("run --lab bogus: exit %d, %q", code, errOut.String())
	}
}
