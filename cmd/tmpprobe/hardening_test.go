//go:build linux

package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/loopext4"
)

// A directory that is not on cgroup2 is not a cgroup, whatever its inode
// number: refused before anything is traced.
func TestTraceCgroupMustBeCgroup2(t *testing.T) {
	needRoot(t)
	tmpfs := t.TempDir()
	if err := unix.Mount("tmpfs", tmpfs, "tmpfs", 0, "size=64k"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(tmpfs, 0)
	os.Mkdir(filepath.Join(tmpfs, "fake"), 0o755)
	for _, dir := range []string{"/etc", filepath.Join(tmpfs, "fake")} {
		code, stdout, stderr := inProcess("trace", "--cgroup", dir, "--duration", "1s")
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "not a cgroup v2 directory") {
			t.Errorf("--cgroup %s: exit %d, stderr %q; want exit 2, not a cgroup", dir, code, stderr)
		}
	}
}

// --dir owned by another user, or writable by others without the sticky
// bit, is refused: they could rename tmpprobe's private dir and put a
// symlink in its place.
func TestDirOthersCanChangeRefused(t *testing.T) {
	needRoot(t)
	theirs := t.TempDir()
	os.Chown(theirs, nobody, nobody)
	open := t.TempDir()
	os.Chmod(open, 0o777)
	for dir, want := range map[string]string{theirs: "owned by uid 65534", open: "not sticky"} {
		code, stdout, stderr := inProcess(quickRun(dir)...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, want) || strings.Count(stderr, "\n") != 2 {
			t.Errorf("--dir %s: exit %d, stderr %q; want exit 2 saying %q", dir, code, stderr, want)
		}
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			t.Errorf("--dir %s: made %v", dir, entries)
		}
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

// diff and report refuse what no run can be, in one line with exit 2: a
// CSV cut at a line boundary, a FIFO (without waiting on it), impossible
// numbers; and print the names a file holds as text, never as terminal
// control sequences.
func TestBadRunFilesRefused(t *testing.T) {
	dir := t.TempDir()
	goodJSON, _ := os.ReadFile(filepath.Join(goldenOld, "run.json"))
	goodCSV, _ := os.ReadFile(filepath.Join(goldenOld, "syscalls.csv"))
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		return p
	}
	lines := strings.SplitAfter(string(goodCSV), "\n")
	cut := write("cut.csv", strings.Join(lines[:len(lines)-3], "")) // the last two rows gone
	huge := write("huge.json", strings.Replace(string(goodJSON), `"total_ns": 5400000`, `"total_ns": 18446744073709551615`, 1))
	forever := write("forever.json", strings.Replace(string(goodJSON), `"wall_ns": 8000000`, `"wall_ns": 9223372036854775807`, 1))
	instant := write("instant.json", strings.Replace(string(goodJSON), `"wall_ns": 8400000`, `"wall_ns": 0`, 1))
	busy := write("busy.json", strings.Replace(string(goodJSON), `"wall_ns": 8400000`, `"wall_ns": 840000`, 1))
	for name, path := range map[string]string{"cut CSV": cut, "total_ns 2^64-1": huge, "wall_ns max": forever,
		"wall_ns 0": instant, "kernel above wall": busy} {
		for _, args := range [][]string{{"report", path}, {"diff", goldenOld, path}} {
			code, stdout, stderr := inProcess(args...)
			if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s: %s: exit %d, stderr %q; want exit 2, one line", name, args[0], code, stderr)
			}
		}
	}

	fifo := filepath.Join(dir, "fifo")
	unix.Mkfifo(fifo, 0o644)
	for _, args := range [][]string{{"diff", goldenOld, fifo}, {"report", fifo}} {
		cmd := tmpprobe(args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if code := exitStatus(t, err); code != exitUsage || !strings.Contains(stderr.String(), "not a regular file") {
				t.Errorf("%v: exit %d, %q", args, code, stderr.String())
			}
		case <-time.After(30 * time.Second): // a guard against hanging the suite, not a timing
			cmd.Process.Kill()
			t.Errorf("%v blocked on the FIFO", args)
		}
	}

	evil := "x\n\x1b[31mRED\u202e"
	named := write("named.json", strings.ReplaceAll(string(goodJSON), `"arm": "TemporaryFile"`, `"arm": "x\n\u001b[31mRED\u202e"`))
	rows, _ := csv.NewReader(bytes.NewReader(goodCSV)).ReadAll()
	for _, r := range rows[1:] {
		if r[1] == "TemporaryFile" {
			r[1] = evil
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.WriteAll(rows)
	namedCSV := write("named.csv", b.String())
	for _, args := range [][]string{
		{"report", named}, {"report", named, "--format", "markdown"}, {"diff", named, goldenNew}, {"diff", goldenOld, namedCSV},
		{"report", namedCSV},
	} {
		code, stdout, stderr := inProcess(args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
		if strings.ContainsAny(stdout+stderr, "\x1b\u202e") || !strings.Contains(stdout, `x\n\x1b[31mRED\u202e`) {
			t.Errorf("%v: the name is not escaped:\n%s", args, stdout)
		}
	}
}

// report on a directory it cannot read says so, rather than that there
// is no run there.
func TestReportUnreadableDir(t *testing.T) {
	needRoot(t)
	run := filepath.Join(t.TempDir(), "run")
	os.Mkdir(run, 0o700)
	b, _ := os.ReadFile(filepath.Join(goldenOld, "run.json"))
	os.WriteFile(filepath.Join(run, "run.json"), b, 0o644)
	os.Chmod(filepath.Dir(run), 0o755)
	cmd := asNobody(t, "report", run)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitStatus(t, cmd.Run()); code != exitUsage || !strings.Contains(stderr.String(), "permission denied") {
		t.Errorf("report of an unreadable dir as nobody: exit %d, %q", code, stderr.String())
	}
}

// A loop device's I/O is counted once, on the loop device the traced
// writes went to, not again on the disk under its backing file: the
// requests a trace counts inside fsync are no more than the loop device
// completed. So with a loop device whose image is on another loop device
// (ext4 on loop1 on ext4 on loop0): only the top one counts (#19: 401 =
// 121 on loop1 + 280 on loop0).
func TestTraceLoopDeviceCountedOnce(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	if isTmpfs(t, os.TempDir()) {
		t.Skip("needs the loop device's backing file on a block device, to see the layer below")
	}
	outer := loopext4.Journaled(t, "256M")
	for _, mnt := range []string{outer, loopext4.JournaledIn(t, outer, "64M")} {
		src, _ := exec.Command("findmnt", "-no", "SOURCE", mnt).Output()
		loop := filepath.Base(strings.TrimSpace(string(src)))
		before := diskstats(t, loop)
		prog := "import os, sys\nfor i in range(40):\n    fd = os.open(sys.argv[1] + '/f%d' % i, os.O_CREAT | os.O_WRONLY, 0o644)\n" +
			"    os.write(fd, b'x' * 4096); os.fsync(fd); os.close(fd)\n"
		calls, _ := traceCSV(t, "--", py, "-c", prog, mnt)
		after := settledDiskstats(t, loop)
		// Inside fsync only: the loop request comes first there, and the disk
		// is shared, so other processes' I/O issued while the script is in
		// another syscall would be counted too (matching is by time).
		counted := whole(calls)["fsync/dev_write"] + whole(calls)["fsync/dev_flush"]
		// diskstats: writes completed (field 5), flushes completed (field 16).
		done := after[4] - before[4] + after[15] - before[15]
		if counted == 0 || counted > done {
			t.Errorf("%s: the trace counted %d device writes and flushes; %s completed %d", mnt, counted, loop, done)
		}
		t.Logf("%s: counted %d device writes and %d flushes in fsync; %s completed %d writes and %d flushes", mnt,
			whole(calls)["fsync/dev_write"], whole(calls)["fsync/dev_flush"], loop, after[4]-before[4], after[15]-before[15])
	}
}

// settledDiskstats reads dev's stat once what was in flight has been
// accounted: a write with a cache flush goes through the block layer's
// flush sequence (preflush, data, postflush), and the stat counts it
// only when the sequence ends, while block_rq_complete, which the probe
// counts, fires when its data is written. A journal commit the kernel
// issued while the script was in its last fsync can be between the two
// when the trace ends (202 counted, 201 completed, beside a disk writer).
// So the counts are read once two reads 100 ms apart agree with nothing
// in flight, within 5 s.
func settledDiskstats(t *testing.T, dev string) []uint64 {
	t.Helper()
	last := diskstats(t, dev)
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		now := diskstats(t, dev)
		inflight, _ := os.ReadFile("/sys/block/" + dev + "/inflight")
		if slices.Equal(now, last) && strings.Join(strings.Fields(string(inflight)), " ") == "0 0" {
			return now
		}
		last = now
	}
	t.Fatalf("%s: still busy 5 s after the trace", dev)
	return nil
}

func diskstats(t *testing.T, dev string) []uint64 {
	t.Helper()
	b, err := os.ReadFile("/sys/block/" + dev + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	var out []uint64
	for _, f := range strings.Fields(string(b)) {
		n, _ := strconv.ParseUint(f, 10, 64)
		out = append(out, n)
	}
	if len(out) < 17 {
		t.Skipf("%s/stat has no flush fields", dev)
	}
	return out
}

// The smaller items of issue 13.
func TestSmallerItems(t *testing.T) {
	for _, cmd := range []string{"all", "run", "list", "trace", "diff", "report", "check"} {
		code, stdout, _ := inProcess(cmd, "--help")
		if code != 0 || strings.Count(stdout, "Usage:") != 1 {
			t.Errorf("%s --help: exit %d, %d usages", cmd, code, strings.Count(stdout, "Usage:"))
		}
	}
	work := t.TempDir()
	notExec := filepath.Join(t.TempDir(), "script")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"diff", goldenOld, goldenNew, "--threshold", "NaN"}, "--threshold"},
		{[]string{"trace", "--syscall", "bogus", "--", "true"}, "bogus"},
		{quickRun(work, "--payload", "400,400"), "given twice"},
		{quickRun(work, "--payload", "64K,65536"), "given twice"},
		{[]string{"trace", "--", notExec}, "not executable"},
	} {
		code, stdout, stderr := inProcess(c.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", c.args, code, stderr, c.want)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	for _, c := range []struct {
		args      []string
		want, not string
	}{
		{[]string{"trace", "--", "true"}, "sudo", "--attach none"},
		{[]string{"check"}, "privileges", "kernel"},
	} {
		cmd := asNobody(t, c.args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		code := exitStatus(t, cmd.Run())
		msg := stderr.String()
		if code != exitUsage || !strings.Contains(msg, c.want) || strings.Contains(msg, c.not) {
			t.Errorf("%v as nobody: exit %d, %q; want %q, not %q", c.args, code, msg, c.want, c.not)
		}
	}
}

// The private work dir is renamed mid-run and a symlink put at its name:
// no arm dir is ever made through the symlink; the arms after it fail,
// saying why, and the run exits 1.
func TestWorkDirRenamedMidRun(t *testing.T) {
	needRoot(t)
	dir, elsewhere := t.TempDir(), t.TempDir()
	var payloads []string
	for i := 1; i <= 30; i++ {
		payloads = append(payloads, strconv.Itoa(i))
	}
	cmd := tmpprobe(quickRun(dir, "--ops", "300", "--payload", strings.Join(payloads, ","))...)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var work string
	for i := 0; i < 500 && work == ""; i++ {
		if entries, _ := os.ReadDir(dir); len(entries) == 1 {
			work = filepath.Join(dir, entries[0].Name())
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if work == "" {
		cmd.Process.Kill()
		t.Fatal("no work dir appeared")
	}
	if err := os.Rename(work, filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(elsewhere, work)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var seen []string
	code := 0
	for running := true; running; {
		select {
		case err := <-done:
			// 2 when the rename beat the run to opening the dir it made;
			// 1 when a worker generation started after it (its group dir
			// is checked to be where the path leads); 0 when every group
			// dir was made before: the workers hold their dirs open and
			// reach them only through those fds (#19), so the run goes
			// on in the moved dir, where it belongs.
			if code = exitStatus(t, err); code != 0 && code != exitArmFailed && code != exitUsage {
				t.Errorf("exit %d, want 0, %d or %d", code, exitArmFailed, exitUsage)
			}
			running = false
		default:
			if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 && seen == nil {
				seen = append(seen, entries[0].Name())
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) > 0 || seen != nil {
		t.Errorf("arm dirs made through the symlink: %v %v", seen, entries)
	}
	if code == exitArmFailed && !strings.Contains(stdout.String(), "moved or replaced") {
		t.Errorf("the report does not say the work dir moved:\n%s", stdout.String())
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "moved")); len(entries) > 0 {
		t.Errorf("left in the moved work dir: %v", entries)
	}
}
