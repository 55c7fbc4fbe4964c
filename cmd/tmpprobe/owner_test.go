//go:build linux

package main

import (
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

// Under sudo, what tmpprobe writes for the user in a directory of theirs
// is theirs (the files, the --out directory and the parents it made), so
// they can delete it; in a directory they do not own it stays root's.
func TestOutputsBelongToTheSudoUser(t *testing.T) {
	u, env := sudoUser(t)
	home := filepath.Join(u.HomeDir, "outputs-test")
	os.RemoveAll(home)
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	os.Chown(home, uid, gid)
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
	sudo(quickRun("/tmp", "--out", "root-owned/runs/b", "--csv", "root-owned/b.csv")...)

	for _, p := range []string{"runs", "runs/a", "runs/a/run.json", "runs/a/syscalls.csv", "runs/chart.png", "a.csv", "a.pb.gz", "a.txt"} {
		if got := ownerOf(t, filepath.Join(home, p)); got != u.Uid {
			t.Errorf("%s is uid %s's, want %s's (%s)", p, got, u.Username, u.Uid)
		}
	}
	for _, p := range []string{"root-owned/runs", "root-owned/runs/b", "root-owned/runs/b/run.json", "root-owned/b.csv"} {
		if got := ownerOf(t, filepath.Join(home, p)); got != "0" {
			t.Errorf("%s, in a directory root owns, is uid %s's, want root's", p, got)
		}
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
