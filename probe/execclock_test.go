//go:build linux

package probe_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
)

// The exec clock records the n-th exec of a cgroup's processes, with the
// probe's other hooks detached (as in an untraced run): a shell that
// execs true is two execs, the shell's and true's, and the clock armed
// for the second reads a moment after the shell started and before true
// was reaped; one armed for a third reads nothing.
func TestExecClockTimesTheNthExec(t *testing.T) {
	p := probetest.Open(t, probe.Options{})
	p.Detach()
	if err := p.StartExecClock(); err != nil {
		t.Fatal(err)
	}
	cg := newCgroup(t)
	var st unix.Stat_t
	if err := unix.Fstat(int(cg.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	run := func(execs uint32) (before, at, after uint64, ok bool) {
		t.Helper()
		if err := p.ArmExecClock(st.Ino, execs); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("/bin/sh", "-c", "exec /bin/true")
		cmd.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: int(cg.Fd())}
		before = monotonic()
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		after = monotonic()
		at, ok = p.ExecTime(st.Ino)
		return before, at, after, ok
	}
	if before, at, after, ok := run(2); !ok || at <= before || at >= after {
		t.Errorf("the second exec at %d, ok %v: want between the start %d and the exit %d", at, ok, before, after)
	}
	if _, at, _, ok := run(3); ok {
		t.Errorf("a third exec read at %d: the shell and true are two", at)
	}
	if _, ok := p.ExecTime(st.Ino); ok {
		t.Error("ExecTime did not forget the cgroup")
	}
}

func monotonic() uint64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return uint64(ts.Nano())
}

// newCgroup makes a cgroup v2 below this process's, removed after the
// test.
func newCgroup(t *testing.T) *os.File {
	t.Helper()
	root, err := preflight.Cgroup2Root()
	if err != nil {
		t.Skipf("no cgroup2: %v", err)
	}
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	own := ""
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			own = p
		}
	}
	path := filepath.Join(root, own, "tmpprobe-execclock-test")
	os.Remove(path)
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		dir.Close()
		os.Remove(path)
	})
	return dir
}
