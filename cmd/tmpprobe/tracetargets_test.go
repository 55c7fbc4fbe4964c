//go:build linux

package main

// What a trace follows, counts and ends: a cgroup, a loop device, a double-forked grandchild.

import (
	"bufio"
	"github.com/tmpprobe/tmpprobe/internal/loopext4"
	"github.com/tmpprobe/tmpprobe/preflight"
	"golang.org/x/sys/unix"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
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

// A loop device's I/O is counted once, on the loop device the traced
// writes went to, not again on the disk under its backing file: the
// requests a trace counts inside fsync are no more than the loop device
// completed. So with a loop device whose image is on another loop device
// (ext4 on loop1 on ext4 on loop0): only the top one counts (#19: 401 =
// 121 on loop1 + 280 on loop0). Beside a disk writer (make test's, under
// load) the writer's own requests are not the fsync's: until block_io_start
// told them apart, 6 of 12 runs beside `dd conv=fsync` counted 1-4 more.
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

// A double-forked, setsid'ed grandchild that ignores signals is killed
// with the traced command's cgroup: after one SIGINT, and when the command
// itself exits and leaves it behind. It was reparented to init and ran on.
func TestTraceKillsDoubleForkedGrandchild(t *testing.T) {
	needRoot(t)
	if _, err := preflight.Cgroup2Root(); err != nil {
		t.Skip(err)
	}
	marker := "tmpprobe-test-grandchild-" + strconv.Itoa(os.Getpid())
	defer killMarked(marker)
	grandchild := `(setsid bash -c "exec -a ` + marker + `-g sleep 1005" &)`
	for _, c := range []struct {
		script string
		sigint bool
	}{
		{`trap "" INT TERM HUP; ` + grandchild + `; exec -a ` + marker + `-c sleep 1005`, true},
		{grandchild + `; sleep 0.3`, false},
	} {
		cmd := tmpprobe("trace", "--", "bash", "-c", c.script)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(stderr)
		if !waitFor(r, "tracing") {
			t.Fatal("trace did not start")
		}
		go io.Copy(io.Discard, r)
		for i := 0; i < 200 && len(marked(marker+"-g")) == 0; i++ {
			time.Sleep(20 * time.Millisecond)
		}
		if len(marked(marker+"-g")) == 0 {
			t.Fatal("the grandchild did not start")
		}
		if c.sigint {
			cmd.Process.Signal(syscall.SIGINT)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if code, want := exitStatus(t, err), map[bool]int{true: exitSIGINT, false: 0}[c.sigint]; code != want {
				t.Errorf("%s: exit %d, want %d", c.script, code, want)
			}
		case <-time.After(time.Minute): // a guard against a hang, not a timing
			cmd.Process.Kill()
			t.Fatalf("%s: trace did not end", c.script)
		}
		for i := 0; i < 250 && len(marked(marker)) > 0; i++ {
			time.Sleep(20 * time.Millisecond)
		}
		if pids := marked(marker); len(pids) > 0 {
			t.Errorf("%s: left running %v", c.script, pids)
		}
	}
}
