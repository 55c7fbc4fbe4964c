//go:build linux

package main

import (
	"bufio"
	"encoding/json"
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

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/results/runfile"
	"github.com/tmpprobe/tmpprobe/session"
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

// SIGKILL of trace or compare, which no process can catch: the command
// dies with tmpprobe (its parent-death signal), and tmpprobe's guard kills
// what the command started and removes its cgroup. When the guard is
// killed too, the next trace does, and says so. On afa68bc the command ran
// on, and its cgroup stayed.
func TestKilledTraceLeavesNothingRunning(t *testing.T) {
	needRoot(t)
	for _, c := range []struct {
		name      string
		args      []string
		killGuard bool
	}{
		{"trace", []string{"trace", "--", "bash", "-c", `(exec -a "$M"-child sleep 600) & exec -a "$M"-cmd sleep 600`}, false},
		{"compare", []string{"compare", "--rounds", "1", `bash -c '(exec -a "$M"-child sleep 600) & exec -a "$M"-cmd sleep 600'`, "true"}, false},
		{"trace and its guard", []string{"trace", "--", "bash", "-c", `(exec -a "$M"-child sleep 600) & exec -a "$M"-cmd sleep 600`}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			marker := "tmpprobe-test-killed-" + strconv.Itoa(os.Getpid())
			defer killMarked(marker)
			// The names the sleeps take are spelled only in $M, so that
			// tmpprobe's own command line does not hold them.
			cmd := tmpprobe(c.args...)
			cmd.Env = append(cmd.Env, "M="+marker)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 500 && len(marked(marker+"-child")) == 0; i++ {
				time.Sleep(20 * time.Millisecond)
			}
			command, child, guard := marked(marker+"-cmd"), marked(marker+"-child"), guardOf(cmd.Process.Pid)
			if len(command) != 1 || len(child) != 1 || guard == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the command or the guard did not start: %v %v %d", command, child, guard)
			}
			if c.killGuard {
				syscall.Kill(guard, syscall.SIGKILL)
			}
			cmd.Process.Kill()
			cmd.Wait()
			gone := func(pids ...int) bool {
				for i := 0; i < 250 && (alive(pids[0]) || len(pids) > 1 && alive(pids[1])); i++ {
					time.Sleep(20 * time.Millisecond)
				}
				return !alive(pids[0]) && (len(pids) == 1 || !alive(pids[1]))
			}
			if !gone(command[0]) {
				t.Errorf("the command (pid %d) outlived tmpprobe's SIGKILL", command[0])
			}
			if !c.killGuard {
				if !gone(child[0]) {
					t.Errorf("the command's child (pid %d) outlived tmpprobe's SIGKILL", child[0])
				}
				left := leftCgroups(t, cmd.Process.Pid)
				for i := 0; i < 250 && len(left) > 0; i++ { // the guard removes it once it is empty
					time.Sleep(20 * time.Millisecond)
					left = leftCgroups(t, cmd.Process.Pid)
				}
				if len(left) > 0 {
					t.Errorf("left: %v", left)
				}
				return
			}
			if left := leftCgroups(t, cmd.Process.Pid); len(left) != 1 {
				t.Fatalf("cgroups of the killed tmpprobe: %v, want its command's", left)
			}
			code, _, stderr := inProcess("trace", "-q", "--", "true")
			if code != 0 || !strings.Contains(stderr, "which a killed tmpprobe (pid "+strconv.Itoa(cmd.Process.Pid)+") left (1 processes killed)") {
				t.Errorf("the next trace: exit %d, stderr %q; want it to say it removed the cgroup and killed 1 process", code, stderr)
			}
			if !gone(child[0]) {
				t.Errorf("the command's child (pid %d) outlived the next trace", child[0])
			}
			if left := leftCgroups(t, cmd.Process.Pid); len(left) > 0 {
				t.Errorf("left: %v", left)
			}
		})
	}
}

// guardOf is the pid of the guard tmpprobe pid started, 0 for none.
func guardOf(pid int) int {
	for _, g := range marked(session.GuardArg) {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(g) + "/cmdline"); strings.HasSuffix(string(b), "\x00"+session.GuardArg+"\x00"+strconv.Itoa(pid)+"\x00") {
			return g
		}
	}
	return 0
}

// leftCgroups lists the command cgroups named for pid.
func leftCgroups(t *testing.T, pid int) []string {
	t.Helper()
	var out []string
	filepath.WalkDir("/sys/fs/cgroup", func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() == "tmpprobe-trace-"+strconv.Itoa(pid) {
			out = append(out, path)
		}
		return nil
	})
	return out
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

// A signal to tmpprobe's whole process group (a script's kill -TERM
// -PGID) interrupts the comparison: exit 143, "interrupted", the command
// not blamed. The commands run in a process group of their own, so the
// signal reaches tmpprobe, which stops them. On afa68bc the command died
// of it first and compare said "sleep … exited with status 143 in the
// warm-up".
func TestGroupSignalIsNotTheCommands(t *testing.T) {
	needRoot(t)
	cmd := tmpprobe("compare", "--warmup", "3", "--rounds", "1", "sleep 0.5", "sleep 0.6")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 250 && len(descendantsNamed(cmd.Process.Pid, "sleep")) == 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if len(descendantsNamed(cmd.Process.Pid, "sleep")) == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("no command ran")
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	code := exitStatus(t, cmd.Wait())
	if code != exitSIGTERM || !strings.Contains(stderr.String(), "interrupted") || strings.Contains(stderr.String(), "exited with status") {
		t.Errorf("exit %d, stderr %q; want 143, interrupted, no command blamed", code, stderr.String())
	}
}

// descendantsNamed lists the processes below pid whose comm is name.
func descendantsNamed(pid int, name string) []int {
	var out []int
	for _, p := range follow.Descendants(pid) {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/comm"); strings.TrimSpace(string(b)) == name {
			out = append(out, p)
		}
	}
	return out
}

// freshLeft lists what a --fresh-fs run in dir left: mounts and loop
// devices of its file system, and entries in dir.
func freshLeft(t *testing.T, dir string) []string {
	t.Helper()
	var left []string
	ms, _ := preflight.Mounts()
	for _, m := range ms {
		if strings.HasPrefix(m.Point, dir+"/") {
			left = append(left, "mount "+m.Point)
		}
	}
	loops, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, bf := range loops {
		if b, _ := os.ReadFile(bf); strings.HasPrefix(string(b), dir+"/") {
			left = append(left, "loop "+bf+": "+strings.TrimSpace(string(b)))
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, "file "+e.Name())
	}
	return left
}

// waitFreshMount waits for a fresh file system to be mounted below dir.
func waitFreshMount(t *testing.T, dir string) {
	t.Helper()
	for i := 0; i < 1500; i++ {
		ms, _ := preflight.Mounts()
		for _, m := range ms {
			if strings.HasPrefix(m.Point, dir+"/") {
				time.Sleep(300 * time.Millisecond) // into the run
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no fresh file system was mounted below %s", dir)
}

// A --fresh-fs run killed with SIGKILL leaves no mount, no loop device and
// no image: the image is unlinked once the loop device holds it, and the
// guard unmounts the file system (which detaches the device). With the
// guard killed too, the next run in the same dir does, and says so. A
// --dir renamed during the run still has its file system removed. On
// afa68bc each left the mount, the loop device and the 1 GiB image.
func TestFreshFSLeavesNothing(t *testing.T) {
	needRoot(t)
	long := []string{"run", "TemporaryFile", "--runtime", "go", "--ops", "300", "--rounds", "200", "-q", "--fresh-fs"}
	t.Run("SIGKILL", func(t *testing.T) {
		dir := t.TempDir()
		cmd := tmpprobe(append(long, "--dir", dir)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFreshMount(t, dir)
		cmd.Process.Kill()
		cmd.Wait()
		left := freshLeft(t, dir)
		for i := 0; i < 250 && len(left) > 0; i++ {
			time.Sleep(20 * time.Millisecond)
			left = freshLeft(t, dir)
		}
		if len(left) > 0 {
			t.Errorf("left after SIGKILL: %v", left)
		}
	})
	t.Run("SIGKILL with its guard", func(t *testing.T) {
		dir := t.TempDir()
		cmd := tmpprobe(append(long, "--dir", dir)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFreshMount(t, dir)
		guard := guardOf(cmd.Process.Pid)
		if guard == 0 {
			cmd.Process.Kill()
			t.Fatal("no guard")
		}
		syscall.Kill(guard, syscall.SIGKILL)
		cmd.Process.Kill()
		cmd.Wait()
		if left := freshLeft(t, dir); len(left) == 0 {
			t.Fatal("nothing left to sweep: the guard was not what removed it")
		}
		code, stdout, stderr := inProcess(quickRun(dir)...)
		if code != 0 || !strings.Contains(stderr, "removed --fresh-fs mount") || !strings.Contains(oneLine(stdout), "removed --fresh-fs mount") {
			t.Errorf("the next run: exit %d, stderr %q; want it to say it removed the mount, here and in the footer", code, stderr)
		}
		if left := freshLeft(t, dir); len(left) > 0 {
			t.Errorf("left after the next run: %v", left)
		}
	})
	// Two runs in fresh file systems of one dir: their temporary mounts
	// and loop devices are not differences (afa68bc listed both).
	t.Run("diff", func(t *testing.T) {
		dir, runs := t.TempDir(), t.TempDir()
		for _, name := range []string{"a", "b"} {
			if code, _, stderr := inProcess(quickRun(dir, "--fresh-fs", "--out", filepath.Join(runs, name))...); code != 0 {
				t.Fatalf("%s: exit %d: %s", name, code, stderr)
			}
		}
		code, out, stderr := inProcess("diff", filepath.Join(runs, "a"), filepath.Join(runs, "b"))
		if code == exitUsage || out == "" {
			t.Fatalf("diff: exit %d: %s", code, stderr)
		}
		for _, temp := range []string{"tmpprobe-freshfs-", "/dev/loop"} {
			if strings.Contains(out, temp) {
				t.Errorf("the diff lists %s… as a difference:\n%s", temp, out)
			}
		}
	})
	t.Run("--dir renamed", func(t *testing.T) {
		parent := t.TempDir()
		dir := filepath.Join(parent, "work")
		os.Mkdir(dir, 0o755)
		cmd := tmpprobe(append(long, "--rounds", "3", "--dir", dir)...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFreshMount(t, dir)
		moved := filepath.Join(parent, "moved")
		if err := os.Rename(dir, moved); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		if left := freshLeft(t, moved); len(left) > 0 {
			t.Errorf("left in the renamed --dir: %v", left)
		}
	})
}

// --history reads only what nobody but root and the invoker could have
// put there: not a directory others can write (/tmp), not a run directory
// or run.json another user owns, not a symlink (to /etc/shadow), one
// hard-linked run.json once, none over the size cap; what it passes over
// is one line for thousands of planted directories; the runs it read are
// named in the footer, live and in report; a saved spread that is
// negative is refused with its field named. On afa68bc two planted runs
// widened the intervals to ±424453% and root followed a symlink to
// /etc/shadow.
func TestHistoryTrustsOnlyItsOwn(t *testing.T) {
	needRoot(t)
	work := t.TempDir()
	hist := t.TempDir()
	os.Chmod(hist, 0o755)
	save := func(name string) (int, string, string) {
		return inProcess(quickRun(work, "--out", filepath.Join(hist, name))...)
	}
	for _, name := range []string{"a", "b"} {
		if code, _, stderr := save(name); code != 0 {
			t.Fatalf("saving %s: exit %d: %s", name, code, stderr)
		}
	}
	good, _ := os.ReadFile(filepath.Join(hist, "a", "run.json"))
	plant := func(name string, owner int) string {
		d := filepath.Join(hist, name)
		os.Mkdir(d, 0o755)
		os.Chown(d, owner, owner)
		return d
	}
	theirs := plant("theirs", nobody)
	os.WriteFile(filepath.Join(theirs, "run.json"), good, 0o644)
	os.Chown(filepath.Join(theirs, "run.json"), nobody, nobody)
	os.Symlink("/etc/shadow", filepath.Join(plant("shadow", 0), "run.json"))
	os.Symlink(filepath.Join(hist, "a"), filepath.Join(hist, "link"))
	for i := 1; i <= 5; i++ {
		os.Link(filepath.Join(hist, "b", "run.json"), filepath.Join(plant("hardlink-"+strconv.Itoa(i), 0), "run.json"))
	}
	big := filepath.Join(plant("big", 0), "run.json")
	os.WriteFile(big, append(good, make([]byte, 40<<20)...), 0o644)
	for i := 0; i < 2000; i++ {
		d := plant(fmt.Sprintf("planted-%04d", i), nobody)
		os.WriteFile(filepath.Join(d, "run.json"), []byte("{}"), 0o644)
	}
	code, stdout, stderr := save("c")
	if code != 0 {
		t.Fatalf("saving c: exit %d: %s", code, stderr)
	}
	footer := oneLine(stdout)
	if !strings.Contains(footer, "2 earlier runs (") || !strings.Contains(footer, "a") {
		t.Errorf("the footer does not name the 2 runs read:\n%s", stdout)
	}
	if n := strings.Count(footer, "--history: not read:"); n != maxUnreadNamedForTest+1 || !strings.Contains(footer, "more") {
		t.Errorf("%d notes of runs not read, want %d and one that counts the rest:\n%s", n, maxUnreadNamedForTest+1, stdout)
	}
	for _, leak := range []string{"shadow:", "root:"} {
		if strings.Contains(stdout, leak) && !strings.Contains(footer, "shadow: run.json is not a regular file") {
			t.Errorf("the footer shows %q:\n%s", leak, stdout)
		}
	}
	_, report, _ := inProcess("report", filepath.Join(hist, "c"))
	if !strings.Contains(oneLine(report), "2 earlier runs (") {
		t.Errorf("report does not name the runs read:\n%s", report)
	}

	// A directory others can write: nothing in it is read, and it says so.
	open := t.TempDir()
	os.Chmod(open, os.ModeSticky|0o777)
	code, stdout, stderr = inProcess(quickRun(work, "--out", filepath.Join(open, "x"))...)
	if code != 0 || !strings.Contains(oneLine(stdout), "is writable by other users") {
		t.Errorf("--out in a sticky dir others can write: exit %d (%s), footer does not say its runs are not read:\n%s", code, stderr, stdout)
	}

	// A saved spread that is negative is refused, its field named.
	js, _ := os.ReadFile(filepath.Join(hist, "c", "run.json"))
	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	doc["between_runs"].(map[string]any)["cases"] = []any{map[string]any{"case": "x", "runs": 3, "ops_per_s_log_sd": -1, "ratio_log_sd": 0.1}}
	bad, _ := json.Marshal(doc)
	badPath := filepath.Join(t.TempDir(), "run.json")
	os.WriteFile(badPath, bad, 0o644)
	if code, _, stderr := inProcess("report", badPath); code != exitUsage || !strings.Contains(stderr, "ops_per_s_log_sd") {
		t.Errorf("a negative spread: exit %d, %q; want 2 naming ops_per_s_log_sd", code, stderr)
	}
}

// maxUnreadNamedForTest is runfile's maxUnreadNamed.
const maxUnreadNamedForTest = 3

// Round four's smaller items, each refused or said where afa68bc lost or
// hid something: one file named by -o and another output; a command that
// failed in half its runs under --ignore-failure; a raw escape in
// compare's failure line; a zero-width space in --dir; --threshold 100;
// --min-time and --warmup beyond any plan.
func TestRound4SmallerItems(t *testing.T) {
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
