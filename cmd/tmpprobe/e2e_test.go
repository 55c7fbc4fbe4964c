//go:build linux

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to load BPF")
	}
}

// tmpprobe starts this test binary as the tmpprobe command.
func tmpprobe(args ...string) *exec.Cmd {
	exe, _ := os.Executable()
	cmd := exec.Command(exe, args...)
	// Not the sudo that ran the test binary (make test as a user): a test
	// says itself when tmpprobe runs under sudo, and for whom.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "SUDO_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "TMPPROBE_TEST_MAIN=1")
	return cmd
}

// bpfObjects lists the BPF programs and links a process holds open, from
// the fdinfo of its fds: the run's own objects, whatever else is loaded on
// the machine at the same time.
func bpfObjects(pid int) []string {
	var out []string
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fdinfo", pid))
	for _, fd := range fds {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/fdinfo/%s", pid, fd.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && (k == "prog_id" || k == "link_id") {
				out = append(out, k+" "+strings.TrimSpace(v))
			}
		}
	}
	return out
}

// checkClean asserts the run left no file under dir and none of the BPF
// objects it held is still loaded.
func checkClean(t *testing.T, dir string, held []string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		t.Errorf("left behind in %s: %s", dir, e.Name())
	}
	checkUnloaded(t, held)
}

// checkUnloaded asserts none of the BPF objects is still loaded.
func checkUnloaded(t *testing.T, held []string) {
	t.Helper()
	// The kernel frees links and programs asynchronously (RCU and a work
	// queue) after their last fd closes: allow it a moment.
	deadline := time.Now().Add(5 * time.Second)
	for _, obj := range held {
		for loaded(obj) && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if loaded(obj) {
			t.Errorf("%s still loaded 5 s after tmpprobe exited", obj)
		}
	}
}

func loaded(obj string) bool {
	kind, idText, _ := strings.Cut(obj, " ")
	id, _ := strconv.ParseUint(idText, 10, 32)
	if kind == "prog_id" {
		p, err := ebpf.NewProgramFromID(ebpf.ProgramID(id))
		if err == nil {
			p.Close()
		}
		return err == nil
	}
	l, err := link.NewFromID(link.ID(id))
	if err == nil {
		l.Close()
	}
	return err == nil
}

// heldWhileRunning samples the BPF objects of a running tmpprobe.
func heldWhileRunning(t *testing.T, pid int) []string {
	t.Helper()
	for i := 0; i < 100; i++ {
		if objs := bpfObjects(pid); len(objs) > 0 {
			return objs
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("tmpprobe holds no BPF object")
	return nil
}

func exitStatus(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if !errors.As(err, &ee) {
		t.Fatalf("running tmpprobe: %v", err)
	}
	return ee.ExitCode()
}

// waitFor reads r until a line contains s (or the reader ends).
func waitFor(r *bufio.Reader, s string) bool {
	for {
		line, err := r.ReadString('\n')
		if strings.Contains(line, s) {
			return true
		}
		if err != nil {
			return false
		}
	}
}

// Interrupting a real run during attach, mid batch, or while it writes its
// results: exit 130 (143 for SIGTERM), nothing left in the work dir, no
// program left loaded, finished arms still reported.
func TestInterrupt(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	for _, c := range []struct {
		name          string
		sig           syscall.Signal
		code          int
		args          []string
		sampleObjects bool
		wait          func(stderr *bufio.Reader)
		want          string
	}{
		// As soon as the programs are loaded: attach is under way.
		{"during attach", syscall.SIGINT, exitSIGINT,
			[]string{"run", "TemporaryFile", "--runtime", "go", "--ops", "100"}, true,
			func(*bufio.Reader) {}, ""},
		{"twice mid batch", syscall.SIGINT, exitSIGINT,
			[]string{"run", "TemporaryFile", "--runtime", "go", "--ops", "3000000", "--rounds", "1"}, true,
			func(*bufio.Reader) { time.Sleep(500 * time.Millisecond) }, ""},
		{"mid batch", syscall.SIGTERM, exitSIGTERM,
			[]string{"run", "TemporaryFile", "NamedTemporaryFile", "--runtime", "go", "--ops", "2000000", "--rounds", "1"}, true,
			func(*bufio.Reader) { time.Sleep(1500 * time.Millisecond) }, ""},
		{"after the first round", syscall.SIGINT, exitSIGINT,
			[]string{"run", "TemporaryFile", "NamedTemporaryFile", "--runtime", "go", "--ops", "300", "--rounds", "20",
				"--payload", "400,401,402,403,404,405,406,407,408,409"}, true,
			func(r *bufio.Reader) { waitFor(r, "round 1/20 done") }, "TemporaryFile"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := tmpprobe(append(c.args, "--dir", dir)...)
			var stdout bytes.Buffer
			cmd.Stdout = &stdout
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stderr)
			var held []string
			if c.sampleObjects {
				held = heldWhileRunning(t, cmd.Process.Pid)
			}
			c.wait(r)
			held = append(held, bpfObjects(cmd.Process.Pid)...)
			cmd.Process.Signal(c.sig)
			if strings.HasPrefix(c.name, "twice") {
				time.Sleep(20 * time.Millisecond)
				cmd.Process.Signal(c.sig)
			}
			rest, _ := io.ReadAll(r)
			code := exitStatus(t, cmd.Wait())
			if code != c.code {
				t.Errorf("exit %d, want %d\nstderr: %s", code, c.code, rest)
			}
			if !strings.Contains(stdout.String(), c.want) {
				t.Errorf("stdout lacks %q:\n%s", c.want, stdout.String())
			}
			checkClean(t, dir, held)
		})
	}
}

// Interrupted while writing its report (stdout is a full pipe nobody
// reads yet), after the last batch: the run is complete, so it finishes
// the report and its files, says so, and exits 0 with run.json saying
// complete; it leaves nothing. On afa68bc it exited 130 beside a run.json
// that said complete (#28).
func TestInterruptWhileWritingResults(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := unix.FcntlInt(pw.Fd(), unix.F_SETPIPE_SZ, 4096); err != nil {
		t.Fatal(err)
	}
	csv := filepath.Join(t.TempDir(), "out.csv")
	out := filepath.Join(t.TempDir(), "run")
	cmd := tmpprobe("run", "TemporaryFile", "--runtime", "go", "--ops", "50", "--rounds", "1",
		"--payload", "1,2,3,4,5,6,7,8,9,10,11,12", "--hist", "--csv", csv, "--out", out, "--dir", dir)
	cmd.Stdout = pw
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	r := bufio.NewReader(stderr)
	if !waitFor(r, "round 1/1 done") {
		t.Fatal("run did not finish its round")
	}
	time.Sleep(300 * time.Millisecond) // now blocked writing the report
	held := bpfObjects(cmd.Process.Pid)
	if len(held) == 0 {
		t.Error("tmpprobe held no BPF object while writing its report")
	}
	cmd.Process.Signal(syscall.SIGINT)
	report, _ := io.ReadAll(pr)
	rest, _ := io.ReadAll(r)
	if code := exitStatus(t, cmd.Wait()); code != 0 || !strings.Contains(string(rest), "interrupted after the last batch") {
		t.Errorf("exit %d, stderr %q; want 0, saying it was interrupted after the last batch", code, rest)
	}
	if !bytes.Contains(report, []byte("backend tracepoint")) {
		t.Errorf("report incomplete:\n%s", report)
	}
	if _, err := os.Stat(csv); err != nil {
		t.Errorf("CSV not written: %v", err)
	}
	if saved, err := runfile.LoadRun(out); err != nil || !saved.Complete {
		t.Errorf("--out: %v, complete %v; want a complete run", err, saved != nil && saved.Complete)
	}
	checkClean(t, dir, held)
}

// childOf finds the first process whose parent is pid.
func childOf(pid int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := follow.ReadProc(n); err == nil && p.PPID == pid {
			return n
		}
	}
	return 0
}

// A worker killed mid-arm: the report names the arm and shows its stderr,
// the other arm still runs, and the exit status is 1. A hung worker is
// stopped by --arm-timeout the same way.
func TestWorkerFailures(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	cmd := tmpprobe("run", "TemporaryFile", "NamedTemporaryFile", "--runtime", "go", "--ops", "3000000",
		"--rounds", "1", "--no-baseline", "--arm-timeout", "4s", "-q", "--dir", dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var worker int
	for i := 0; i < 100 && worker == 0; i++ {
		time.Sleep(50 * time.Millisecond)
		worker = childOf(cmd.Process.Pid)
	}
	if worker == 0 {
		t.Fatal("no worker process found")
	}
	held := bpfObjects(cmd.Process.Pid)
	time.Sleep(300 * time.Millisecond)
	syscall.Kill(worker, syscall.SIGKILL)
	code := exitStatus(t, cmd.Wait())
	out := stdout.String()
	if code != exitArmFailed {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitArmFailed, out, stderr.String())
	}
	for _, want := range []string{"FAILED modes/TemporaryFile", "signal: killed", "FAILED modes/NamedTemporaryFile",
		"timed out after 4s (--arm-timeout)"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	checkClean(t, dir, held)
}

// Without privileges: one line saying how to run it; --attach none works.
func TestUnprivileged(t *testing.T) {
	needRoot(t) // to switch to nobody
	dir := sharedDir(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "TemporaryFile", "--runtime", "go", "--ops", "10", "--rounds", "1"}, exitUsage, "sudo"},
		{[]string{"run", "TemporaryFile", "--runtime", "go", "--ops", "10", "--rounds", "1", "--attach", "none"}, exitOK, ""},
	} {
		cmd := asNobody(t, append(c.args, "-q", "--dir", dir)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := exitStatus(t, cmd.Run())
		msg := strings.TrimSpace(stderr.String())
		if code != c.code {
			t.Errorf("%q as nobody: exit %d, want %d\n%s", c.args, code, c.code, msg)
		}
		if c.want != "" && (!strings.Contains(msg, c.want) || !strings.Contains(msg, "--attach none") || strings.Count(msg, "\n") > 0) {
			t.Errorf("%q as nobody: want one line naming sudo and --attach none, got %q", c.args, msg)
		}
	}
}

// The exact line a user without privileges reads, for a run (which can
// do without the probe) and a trace (which cannot): written out here, not
// built from the constant, so a change to the wording shows in review.
func TestPrivilegeHintLines(t *testing.T) {
	needRoot(t) // to switch to nobody
	dir := sharedDir(t)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "TemporaryFile", "--runtime", "go", "--ops", "10", "--rounds", "1", "-q", "--dir", dir},
			"tmpprobe: loading BPF needs root (or CAP_BPF and CAP_PERFMON): run it with sudo, or pass --attach none for throughput only\n"},
		{[]string{"trace", "--", "true"},
			"tmpprobe: loading BPF needs root (or CAP_BPF and CAP_PERFMON): run it with sudo\n"},
	} {
		cmd := asNobody(t, c.args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := exitStatus(t, cmd.Run())
		if code != exitUsage || stdout.Len() != 0 || stderr.String() != c.want {
			t.Errorf("%q as nobody: exit %d, stdout %q, stderr %q; want exit %d and %q", c.args, code, stdout.String(), stderr.String(), exitUsage, c.want)
		}
	}
}

// sharedDir is a directory anyone may create files in, sticky as /tmp
// (a world-writable --dir without the sticky bit is refused).
func sharedDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.Chmod(dir, 0o777|os.ModeSticky)
	os.Chmod(filepath.Dir(dir), 0o755)
	return dir
}

// asNobody is tmpprobe run as user nobody. The test binary's own
// directory is private to root: it runs a copy.
func asNobody(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "tmpprobe")
	os.Chmod(filepath.Dir(bin), 0o755)
	os.Chmod(filepath.Dir(filepath.Dir(bin)), 0o755)
	exe, _ := os.Executable()
	if b, err := os.ReadFile(exe); err != nil || os.WriteFile(bin, b, 0o755) != nil {
		t.Fatal("copying the test binary")
	}
	cmd := tmpprobe(args...)
	cmd.Path = bin
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	return cmd
}

const nobody = 65534
