//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// inBackground starts tmpprobe as a shell's background job ("tmpprobe … &"
// in a script): the shell starts it with SIGINT and SIGQUIT ignored. It
// returns tmpprobe's pid, when it started, and a wait that returns its exit
// status as the shell saw it.
func inBackground(t *testing.T, args ...string) (pid int, started time.Time, wait func() int) {
	t.Helper()
	tp := tmpprobe(args...)
	sh := exec.Command("sh", append([]string{"-c", `"$0" "$@" >/dev/null 2>&1 & echo $!; wait $!`, tp.Path}, args...)...)
	sh.Env = tp.Env
	out, err := sh.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	started = time.Now()
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(out)
	line, _ := r.ReadString('\n')
	if pid, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		sh.Process.Kill()
		sh.Wait()
		t.Fatalf("no pid from the shell: %q", line)
	}
	return pid, started, func() int { return exitStatus(t, sh.Wait()) }
}

// sampleObjects collects the BPF objects pid holds until stop is called.
func sampleObjects(pid int) (stop func() []string) {
	var mu sync.Mutex
	seen := map[string]bool{}
	done := make(chan struct{})
	go func() {
		for {
			for _, o := range bpfObjects(pid) {
				mu.Lock()
				seen[o] = true
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() []string {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		var out []string
		for o := range seen {
			out = append(out, o)
		}
		return out
	}
}

// A Ctrl-C early in a run started in the background (with SIGINT ignored
// until tmpprobe asks for it) stops it: exit 130, nothing left in --dir,
// no BPF program left. On afa68bc a SIGINT at 0.1 or 0.3 s was lost and
// the whole run went on and exited 0.
func TestEarlyInterrupt(t *testing.T) {
	needRoot(t)
	for _, delay := range []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond, time.Second} {
		t.Run(fmt.Sprint(delay), func(t *testing.T) {
			dir := t.TempDir()
			pid, started, wait := inBackground(t, "all", "--dir", dir, "-q")
			stopSampling := sampleObjects(pid)
			time.Sleep(time.Until(started.Add(delay)))
			if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
				t.Fatal(err)
			}
			code := wait()
			held := stopSampling()
			if code != exitSIGINT {
				t.Errorf("SIGINT %v in: exit %d, want %d", delay, code, exitSIGINT)
			}
			checkClean(t, dir, held)
		})
	}
}

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
