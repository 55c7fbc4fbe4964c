//go:build linux

package main

// Signals and SIGKILL: what a run interrupted early, a group signal and a killed trace, compare or --fresh-fs run leave.

import (
	"bufio"
	"fmt"
	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/session"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
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

// SIGKILL mid-run: the kernel frees every BPF program and link with the
// process's fds, the worker dies with it, and the private work dir it left
// (named with its pid) is swept by the next run in the same --dir.
func TestSIGKILLThenNextRunSweeps(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	cmd := tmpprobe("run", "TemporaryFile", "--runtime", "go", "--ops", "3000000", "--rounds", "1", "-q", "--dir", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	held := heldWhileRunning(t, cmd.Process.Pid)
	var worker int
	for i := 0; i < 200 && worker == 0; i++ {
		time.Sleep(20 * time.Millisecond)
		worker = childOf(cmd.Process.Pid)
	}
	cmd.Process.Kill()
	cmd.Wait()
	for i := 0; i < 250 && alive(worker); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(worker) {
		syscall.Kill(worker, syscall.SIGKILL)
		t.Error("the worker outlived tmpprobe")
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 || !strings.HasPrefix(left[0].Name(), "tmpprobe-"+strconv.Itoa(cmd.Process.Pid)+"-") {
		t.Fatalf("after SIGKILL: %v, want the run's own work dir", left)
	}
	checkUnloaded(t, held)
	if code, _, stderr := inProcess(quickRun(dir)...); code != 0 {
		t.Fatalf("next run: exit %d: %s", code, stderr)
	}
	checkClean(t, dir, nil)
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
