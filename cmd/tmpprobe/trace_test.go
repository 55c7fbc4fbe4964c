//go:build linux

package main

import (
	"bufio"
	"encoding/csv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// realPython is the interpreter binary (not a shim that forks and execs,
// whose own syscalls a trace would rightly count).
func realPython(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("python3 not found")
	}
	return strings.TrimSpace(string(out))
}

// csvCalls reads a syscall CSV into arm → "syscall/stage" → calls, and
// arm → ops.
func csvCalls(t *testing.T, path string) (map[string]map[string]uint64, map[string]int) {
	t.Helper()
	calls, ops, _ := readCalls(t, path)
	return calls, ops
}

// traceCalls is csvCalls of a trace's CSV, its first arm, the whole
// target (its regions follow it), also under wholeTarget.
func traceCalls(t *testing.T, path string) (map[string]map[string]uint64, map[string]int) {
	t.Helper()
	calls, ops, first := readCalls(t, path)
	calls[wholeTarget] = calls[first]
	return calls, ops
}

// readCalls is csvCalls and the CSV's first arm.
func readCalls(t *testing.T, path string) (calls map[string]map[string]uint64, ops map[string]int, first string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 1 {
		t.Fatalf("reading %s: %v", path, err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	calls, ops = map[string]map[string]uint64{}, map[string]int{}
	for i, r := range rows[1:] {
		if c, ok := col["stack"]; ok && r[c] != "" {
			continue // a function's or a call site's row: a part of its class's
		}
		arm := r[col["arm"]]
		if calls[arm] == nil {
			calls[arm] = map[string]uint64{}
		}
		if i == 0 {
			first = arm
		}
		n, _ := strconv.ParseUint(r[col["calls"]], 10, 64)
		calls[arm][r[col["syscall"]]+"/"+r[col["stage"]]] = n
		ops[arm], _ = strconv.Atoi(r[col["ops"]])
	}
	return calls, ops, first
}

// traceCSV runs tmpprobe trace with a CSV and returns its rows.
func traceCSV(t *testing.T, args ...string) (map[string]map[string]uint64, map[string]int) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "trace.csv")
	cmd := tmpprobe(append([]string{"trace", "--top", "0", "--csv", out}, args...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, b)
	}
	return traceCalls(t, out)
}

// wholeTarget is no arm's name (a CSV's arms are never empty): traceCalls
// keeps the first arm, a trace's whole target, under it as well.
const wholeTarget = ""

// whole returns the calls of the traced target itself (the first arm; the
// regions follow it).
func whole(calls map[string]map[string]uint64) map[string]uint64 { return calls[wholeTarget] }

const getppidLoop = "import os\nfor _ in range(%d): os.getppid()\n"

func TestTraceCommandExact(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	calls, _ := traceCSV(t, "--", py, "-c", strings.Replace(getppidLoop, "%d", "1000", 1))
	if n := whole(calls)["getppid/"]; n != 1000 {
		t.Errorf("getppid = %d, want 1000", n)
	}
	// Snapshots while it runs (--interval) lose nothing from the total.
	calls, _ = traceCSV(t, "--interval", "100ms", "--", py, "-c", strings.Replace(getppidLoop, "%d", "300000", 1))
	if n := whole(calls)["getppid/"]; n != 300000 {
		t.Errorf("with --interval: getppid = %d, want 300000", n)
	}
}

// The command is traced from its execve on; tmpprobe's launcher (a Go
// program: sigaltstack, clone3, futex…) is not part of it.
func TestTraceStartsAtExec(t *testing.T) {
	needRoot(t)
	c := whole(func() map[string]map[string]uint64 { calls, _ := traceCSV(t, "--", "/bin/true"); return calls }())
	if c["execve/"] != 1 {
		t.Errorf("execve = %d, want 1 (%v)", c["execve/"], c)
	}
	for _, goRuntime := range []string{"sigaltstack/", "clone3/", "futex/", "rt_sigprocmask/"} {
		if c[goRuntime] != 0 {
			t.Errorf("%s = %d: the launcher's own syscalls were counted", goRuntime, c[goRuntime])
		}
	}
}

// A thread other than the leader that execs takes the leader's tid
// (de_thread); the trace follows it there. Without that, the program it
// became went untraced (and so, now and then, did a launched command: the
// launcher execs from whichever thread its main goroutine last ran on).
func TestTraceExecFromAThread(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	prog := "import os, threading\n" +
		"t = threading.Thread(target=lambda: os.execv('/bin/true', ['true']))\nt.start()\nt.join()\n"
	c := whole(func() map[string]map[string]uint64 { calls, _ := traceCSV(t, "--", py, "-c", prog); return calls }())
	// One execve is the launcher becoming python, one the thread becoming
	// true (counted at its exit, on the leader's tid), and each program's
	// libc start-up calls set_tid_address once. exit_group never returns,
	// so it is never counted.
	if c["execve/"] != 2 || c["set_tid_address/"] != 2 {
		t.Errorf("execve = %d, set_tid_address = %d; want 2 and 2: the thread that exec'd was lost (%v)", c["execve/"], c["set_tid_address/"], c)
	}
}

// A command's status passes through (128 + signal when a signal ended it),
// and --duration stops it with everything it started.
func TestTraceExitAndStop(t *testing.T) {
	needRoot(t)
	cmd := tmpprobe("trace", "--", "sh", "-c", "kill -TERM $$")
	if code := exitStatus(t, cmd.Run()); code != 128+15 {
		t.Errorf("command killed by SIGTERM: exit %d, want 143", code)
	}
	marker := "tmpprobe-test-sleep-" + strconv.Itoa(os.Getpid())
	cmd = tmpprobe("trace", "--duration", "500ms", "--", "bash", "-c", "(exec -a "+marker+" sleep 60) & wait")
	cmd.Run()
	if out, _ := exec.Command("pgrep", "-f", marker).Output(); len(out) > 0 {
		exec.Command("pkill", "-f", marker).Run()
		t.Errorf("--duration left the command's child running: %s", out)
	}
}

func TestTracePid(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	target := exec.Command(py, "-c", "import sys, os\nsys.stdin.readline()\nfor _ in range(777): os.getppid()\n")
	stdin, _ := target.StdinPipe()
	if err := target.Start(); err != nil {
		t.Fatal(err)
	}
	defer target.Wait()
	out := filepath.Join(t.TempDir(), "trace.csv")
	tr := tmpprobe("trace", "--top", "0", "--csv", out, "--pid", strconv.Itoa(target.Process.Pid))
	stderr, _ := tr.StderrPipe()
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	if !waitFor(r, "tracing pid") {
		t.Fatal("trace did not start")
	}
	io.WriteString(stdin, "go\n")
	rest, _ := io.ReadAll(r)
	if err := tr.Wait(); err != nil {
		t.Fatalf("trace: %v\n%s", err, rest)
	}
	calls, _ := traceCalls(t, out)
	if n := whole(calls)["getppid/"]; n != 777 {
		t.Errorf("getppid = %d, want 777", n)
	}
}

// A child's syscalls count with --follow, and not without.
func TestTraceFollow(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	parent := "import subprocess, sys\nsubprocess.run([sys.executable, '-c', " +
		strconv.Quote(strings.Replace(getppidLoop, "%d", "500", 1)) + "], check=True)\n"
	for _, c := range []struct {
		follow bool
		want   uint64
	}{{true, 500}, {false, 0}} {
		args := []string{"--", py, "-c", parent}
		if c.follow {
			args = append([]string{"--follow"}, args...)
		}
		calls, _ := traceCSV(t, args...)
		if n := whole(calls)["getppid/"]; n != c.want {
			t.Errorf("follow=%v: getppid = %d, want %d", c.follow, n, c.want)
		}
	}
}

// A region the traced program marks itself is reported per entry, exactly.
func TestTraceMarkedRegion(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	prog := `import os
cookie = int(os.environ["TMPPROBE_COOKIE"])
def marker(phase, begin):
    try:
        os.lseek(-1, cookie, phase << 1 | begin)
    except OSError:
        pass
for _ in range(3):
    marker(5, 1)
    for _ in range(100):
        os.getppid()
    marker(5, 0)
for _ in range(50):
    os.getppid()
`
	calls, ops := traceCSV(t, "--", py, "-c", prog)
	if n := calls["region 5"]["getppid/"]; n != 300 || ops["region 5"] != 3 {
		t.Errorf("region 5: getppid = %d over %d entries, want 300 over 3", n, ops["region 5"])
	}
	if n := whole(calls)["getppid/"]; n != 350 {
		t.Errorf("whole run: getppid = %d, want 350", n)
	}
	if n := calls["region 5"]["lseek/"]; n != 0 {
		t.Errorf("markers counted as lseek: %d", n)
	}
}

// Every process of a cgroup is traced without being named.
func TestTraceCgroup(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	cg := testCgroup(t)
	target := exec.Command(py, "-c", "import sys, os\nsys.stdin.readline()\nfor _ in range(321): os.getppid()\n")
	stdin, _ := target.StdinPipe()
	if err := target.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cg, "cgroup.procs"), []byte(strconv.Itoa(target.Process.Pid)), 0); err != nil {
		t.Fatalf("moving the target into %s: %v", cg, err)
	}
	out := filepath.Join(t.TempDir(), "trace.csv")
	tr := tmpprobe("trace", "--top", "0", "--csv", out, "--cgroup", cg, "--duration", "2s")
	stderr, _ := tr.StderrPipe()
	if err := tr.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(stderr)
	if !waitFor(r, "tracing cgroup") {
		t.Fatal("trace did not start")
	}
	io.WriteString(stdin, "go\n")
	target.Wait()
	rest, _ := io.ReadAll(r)
	if err := tr.Wait(); err != nil {
		t.Fatalf("trace: %v\n%s", err, rest)
	}
	calls, _ := traceCalls(t, out)
	if n := whole(calls)["getppid/"]; n != 321 {
		t.Errorf("getppid = %d, want 321", n)
	}
}

// Every interval prints, the last one too, as bcc's tools do: --interval
// 400ms over a 1 s trace is three, the last cut short.
func TestTraceEveryInterval(t *testing.T) {
	needRoot(t)
	out, err := tmpprobe("trace", "--interval", "400ms", "--duration", "1s", "--", "sleep", "5").Output()
	if err != nil && exitStatus(t, err) != 0 {
		t.Fatalf("trace: %v\n%s", err, out)
	}
	headers := regexp.MustCompile(`(?m)^trace · sleep 5 \[[0-9.]+s\] · `).FindAll(out, -1)
	if len(headers) != 3 {
		t.Errorf("%d interval reports, want 3:\n%s", len(headers), out)
	}
}
