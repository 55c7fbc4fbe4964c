//go:build linux

package main

// Under sudo: what the invoker can race, and whom compare runs its commands as.

import (
	"github.com/tmpprobe/tmpprobe/results/runfile"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// setSysctl sets a sysctl for the test and puts it back after.
func setSysctl(t *testing.T, name, value string) {
	t.Helper()
	path := "/proc/sys/" + strings.ReplaceAll(name, ".", "/")
	was, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(value), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.WriteFile(path, was, 0) })
}

// Under sudo, the invoker races tmpprobe's save in a directory of theirs:
// they rename each temp it makes (the run's staging directory, the CSV's
// temp file) and put a hard link to a file of root's in its place. Root
// hands them nothing: outputs are given by their open fds, and a run whose
// staging directory was replaced is not saved. On afa68bc, which chowned
// by name after writing, the file of root's became theirs (#28).
func TestChownRaceGivesNothingAway(t *testing.T) {
	u, env := sudoUser(t)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	setSysctl(t, "fs.protected_hardlinks", "0") // any file of root's on the fs, not only ones they may write
	home := filepath.Join(u.HomeDir, "race-test")
	os.RemoveAll(home)
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	os.Chown(home, uid, gid)
	// Root's secret: in a directory of root's the user can only search.
	secrets := filepath.Join(home, "root-only")
	os.Mkdir(secrets, 0o755)
	secret := filepath.Join(secrets, "secret")
	if err := os.WriteFile(secret, []byte("root's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const swap = `cd "$1" || exit 1; i=0
while [ ! -e stop ]; do
	for d in .r1.tmp-* .a.csv.tmp-*; do
		[ -e "$d" ] || continue
		i=$((i+1)); mv "$d" "moved-$i" 2>/dev/null && ln "$2" "$d" 2>/dev/null
	done
done`
	raced := 0
	for try := 0; try < 5 && raced < 2; try++ {
		attacker := exec.Command("sh", "-c", swap, "sh", home, secret)
		attacker.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		if err := attacker.Start(); err != nil {
			t.Fatal(err)
		}
		run := tmpprobe(quickRun(t.TempDir(), "--out", filepath.Join(home, "r1"), "--csv", filepath.Join(home, "a.csv"))...)
		run.Env = append(run.Env, env...)
		out, err := run.CombinedOutput()
		os.WriteFile(filepath.Join(home, "stop"), nil, 0o644)
		attacker.Wait()
		os.Remove(filepath.Join(home, "stop"))
		if got := ownerOf(t, secret); got != "0" {
			t.Fatalf("try %d: root's file is now uid %s's (tmpprobe: %v)\n%s", try, got, err, out)
		}
		moved, _ := filepath.Glob(filepath.Join(home, "moved-*"))
		if len(moved) > 0 {
			raced++
		}
		// A run that reports success is a whole run where --out says.
		if err == nil {
			if saved, lerr := runfile.LoadRun(filepath.Join(home, "r1")); lerr != nil || !saved.Complete {
				t.Errorf("try %d: exit 0, but --out holds no run: %v\n%s", try, lerr, out)
			}
		} else if !strings.Contains(string(out), "moving the run into place") && !strings.Contains(string(out), "a.csv") {
			t.Errorf("try %d: %v, not saying which output could not be saved:\n%s", try, err, out)
		}
		for _, m := range append(moved, filepath.Join(home, "r1"), filepath.Join(home, "a.csv")) {
			os.RemoveAll(m)
		}
	}
	if raced < 2 {
		t.Fatalf("the user swapped a temp in %d of 5 tries, want 2: the race was not run", raced)
	}
}

// Under sudo, compare runs its commands and --prepare as the user who ran
// sudo, as trace does, so what they make is theirs; --user root keeps
// root. Both helps say so. On afa68bc compare ran them all as root.
func TestCompareRunsAsInvoker(t *testing.T) {
	u, env := sudoUser(t)
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	dir := filepath.Join(u.HomeDir, "compare-test")
	os.RemoveAll(dir)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chown(dir, uid, gid)
	for _, c := range []struct {
		user, owner string
	}{{"", u.Uid}, {"root", "0"}} {
		args := []string{"compare", "-q", "--rounds", "1", "--prepare", "touch prep-" + c.owner, "touch a-" + c.owner, "touch b-" + c.owner}
		if c.user != "" {
			args = append(args, "--user", c.user)
		}
		cmd := tmpprobe(args...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		for _, f := range []string{"prep-", "a-", "b-"} {
			if got := ownerOf(t, filepath.Join(dir, f+c.owner)); got != c.owner {
				t.Errorf("--user %q: %s%s is uid %s's, want %s's", c.user, f, c.owner, got, c.owner)
			}
		}
		if !strings.Contains(oneLine(string(out)), "the commands ran as") {
			t.Errorf("--user %q: the report does not say as whom the commands ran:\n%s", c.user, out)
		}
	}
	for _, sub := range []string{"trace", "compare"} {
		if _, help, _ := inProcess(sub, "--help"); !strings.Contains(oneLine(help), "root keeps root") {
			t.Errorf("%s --help does not say --user root keeps root", sub)
		}
	}
}
