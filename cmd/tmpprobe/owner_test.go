//go:build linux

package main

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// sudoUser is a real unprivileged user for tests of what tmpprobe does
// under sudo, made with useradd (and removed after) when it does not exist;
// env is what sudo would add to tmpprobe's environment for them.
func sudoUser(t *testing.T) (u *user.User, env []string) {
	t.Helper()
	needRoot(t)
	const name = "tmpprobe-test"
	u, err := user.Lookup(name)
	if err != nil {
		if out, err := exec.Command("useradd", "-m", "-s", "/bin/sh", name).CombinedOutput(); err != nil {
			t.Fatalf("useradd %s: %v: %s", name, err, out)
		}
		t.Cleanup(func() { exec.Command("userdel", "-r", name).Run() })
		if u, err = user.Lookup(name); err != nil {
			t.Fatal(err)
		}
	}
	return u, []string{"SUDO_USER=" + u.Username, "SUDO_UID=" + u.Uid, "SUDO_GID=" + u.Gid}
}

func ownerOf(t *testing.T, path string) string {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(int(st.Sys().(*syscall.Stat_t).Uid))
}

// Under sudo, tmpprobe opens every output as the user who ran it would:
// what it writes for them is theirs (the files, the --out directory and
// the parents it made), so they can delete it, and where they cannot
// write, it does not either.
func TestOutputsBelongToTheSudoUser(t *testing.T) {
	u, env, home := sudoHome(t, "outputs-test")
	rootDir := filepath.Join(home, "root-owned")
	os.Mkdir(rootDir, 0o755)

	sudo := func(args ...string) {
		t.Helper()
		cmd := tmpprobe(args...)
		cmd.Dir = home
		cmd.Env = append(cmd.Env, env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	sudo(quickRun("/tmp", "--out", "runs/a", "--csv", "a.csv", "--pprof", "a.pb.gz", "--benchfmt", "a.txt")...)
	sudo("report", "runs/a", "--chart", "runs/chart.png")
	for _, p := range []string{"runs", "runs/a", "runs/a/run.json", "runs/a/syscalls.csv", "runs/chart.png", "a.csv", "a.pb.gz", "a.txt"} {
		if got := ownerOf(t, filepath.Join(home, p)); got != u.Uid {
			t.Errorf("%s is uid %s's, want %s's (%s)", p, got, u.Username, u.Uid)
		}
	}
	for _, args := range [][]string{{"--out", "root-owned/runs/b"}, {"--csv", "root-owned/b.csv"}} {
		cmd := tmpprobe(quickRun("/tmp", args...)...)
		cmd.Dir, cmd.Env = home, append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if code := exitCode(err); code != exitUsage || !strings.Contains(string(out), "permission denied") || strings.Count(string(out), "\n") != 2 {
			t.Errorf("%v in a directory of root's: exit %d, want 2 and one line saying permission denied (and the hint):\n%s", args, code, out)
		}
	}
	if left, _ := os.ReadDir(rootDir); len(left) != 0 {
		t.Errorf("written in root's directory for the user: %v", left)
	}
	rm := exec.Command("runuser", "-u", u.Username, "--", "rm", "-rf", "runs", "a.csv", "a.pb.gz", "a.txt")
	rm.Dir = home
	if out, err := rm.CombinedOutput(); err != nil {
		t.Errorf("as %s, rm -rf runs a.csv a.pb.gz a.txt: %v\n%s", u.Username, err, out)
	}
	if left, _ := os.ReadDir(home); len(left) != 1 {
		names := []string{}
		for _, e := range left {
			names = append(names, e.Name())
		}
		t.Errorf("left after the user's rm -rf: %s", strings.Join(names, " "))
	}
}

// sudoHome is a fresh directory of the sudo user's in their home, removed
// after the test.
func sudoHome(t *testing.T, name string) (*user.User, []string, string) {
	t.Helper()
	u, env := sudoUser(t)
	home := filepath.Join(u.HomeDir, name)
	os.RemoveAll(home)
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	os.Chown(home, uid, gid)
	return u, env, home
}

// #37: as a sudo user whose output path is their own symlink to a file
// only root may write, every output flag leaves that file byte-identical
// and exits non-zero with one line, their EACCES: tmpprobe hands its
// outputs to the user, so it opens them as the user would.
func TestOutputLinkToRootsFileRefused(t *testing.T) {
	_, env, home := sudoHome(t, "link-test")
	secrets := filepath.Join(home, "root-only")
	os.Mkdir(secrets, 0o700)
	secret := filepath.Join(secrets, "passwd")
	const content = "root:x:0:0:root:/root:/bin/bash\n"
	for _, flag := range []string{"--csv", "-o", "--pprof", "--benchfmt", "--out"} {
		if err := os.WriteFile(secret, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(home, "out"+flag)
		os.Remove(link)
		os.Symlink(secret, link)
		uid, _ := strconv.Atoi(env[1][len("SUDO_UID="):])
		os.Lchown(link, uid, uid)
		cmd := tmpprobe(quickRun("/tmp", flag, link)...)
		cmd.Dir, cmd.Env = home, append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if got, _ := os.ReadFile(secret); string(got) != content {
			t.Errorf("%s %s: root's file now holds %q", flag, link, got)
		}
		if code := exitCode(err); code == 0 || strings.Count(string(out), "tmpprobe:") != 1 {
			t.Errorf("%s through the user's link to root's file: exit %d, want non-zero and one line:\n%s", flag, code, out)
		}
	}
}

// trace runs the command as --user, and under sudo as the user who ran
// it unless --user says otherwise; the report says as whom.
func TestTraceUser(t *testing.T) {
	u, env := sudoUser(t)
	for _, tc := range []struct {
		name      string
		args      []string
		sudo      bool
		uid, home string
	}{
		{"--user", []string{"--user", u.Username}, false, u.Uid, u.HomeDir},
		{"under sudo", nil, true, u.Uid, u.HomeDir},
		{"--user root under sudo", []string{"--user", "root"}, true, "0", os.Getenv("HOME")},
		{"as root", nil, false, "0", os.Getenv("HOME")},
	} {
		args := append(append([]string{"trace"}, tc.args...), "--", "sh", "-c", `echo "ran as $(id -u) home $HOME"`)
		cmd := tmpprobe(args...)
		cmd.Dir = "/"
		if tc.sudo {
			cmd.Env = append(cmd.Env, env...)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: %v\n%s%s", tc.name, err, out, stderr.String())
			continue
		}
		if want := "ran as " + tc.uid + " home " + tc.home + "\n"; !strings.HasPrefix(string(out), want) {
			t.Errorf("%s: the command printed %q, want %q first", tc.name, out, want)
		}
		if !strings.Contains(strings.ReplaceAll(string(out), "\n  ", " "), "note: the command ran as ") ||
			!strings.Contains(string(out), "(uid "+tc.uid) || !strings.Contains(stderr.String(), "(uid "+tc.uid) {
			t.Errorf("%s: the report does not say it ran as uid %s:\n%s%s", tc.name, tc.uid, out, stderr.String())
		}
	}
	if code, _, stderr := inProcess("trace", "--user", "no-such-user-21", "--", "true"); code != exitUsage || !strings.Contains(stderr, "no such user") {
		t.Errorf("--user no-such-user-21: exit %d, %q", code, stderr)
	}
	if code, _, _ := inProcess("trace", "--user", "root", "--pid", "1", "--duration", "1ms"); code != exitUsage {
		t.Errorf("--user with --pid: exit %d, want 2", code)
	}
}

// exitCode is the exit status a finished command's error stands for.
func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode()
	case err != nil:
		return -1
	}
	return 0
}
