//go:build linux

package follow

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
)

// A running process traced by pid: its calls from the trace's start, and
// the trace ends when it exits.
func TestRunPid(t *testing.T) {
	py := interpreter(t)
	target := exec.Command(py, "-c", "import sys\nsys.stdin.readline()\n"+loop(777))
	in, err := target.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := target.Start(); err != nil {
		t.Fatal(err)
	}
	defer target.Wait()
	p := openTrace(t)
	spec := &Spec{PIDs: []int{target.Process.Pid}}
	res, err := Run(context.Background(), p, p.Cookie, spec, func() { in.Write([]byte("go\n")) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := callsOf(res.Arms(spec.Label())[0].Batches[0].Records, "getppid"); n != 777 {
		t.Errorf("getppid %d, want 777", n)
	}
}

// A duration ends the trace and stops the command with everything it
// started, and a cancelled context does too.
func TestRunStopsTheCommand(t *testing.T) {
	p := openTrace(t)
	for _, byDuration := range []bool{true, false} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		pidFile := filepath.Join(t.TempDir(), "child")
		spec := &Spec{Command: []string{"bash", "-c", "sleep 60 & printf %s $! > " + pidFile + "; wait"}}
		if byDuration {
			ctx, spec.Duration = context.Background(), 300*time.Millisecond
		}
		_, err := Run(ctx, p, p.Cookie, spec, nil, nil)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(pidFile)
		child, _ := strconv.Atoi(string(b))
		switch {
		case child == 0:
			t.Errorf("by duration %v: the command never said its child's pid", byDuration)
		case anyAlive([]int{child}):
			if left, err := os.FindProcess(child); err == nil {
				left.Kill()
			}
			t.Errorf("by duration %v: the command's child %d still runs", byDuration, child)
		}
	}
}

// Every process of a cgroup is traced without being named: the probe
// adopts its threads by the id CgroupID reads, and a relative path is
// taken below the cgroup2 mount.
func TestRunCgroup(t *testing.T) {
	py := interpreter(t)
	root, err := preflight.Cgroup2Root()
	if err != nil {
		t.Skipf("no cgroup2: %v", err)
	}
	name := "follow-test-" + strconv.Itoa(os.Getpid())
	if err := os.Mkdir(filepath.Join(root, name), 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(filepath.Join(root, name))
	id, err := CgroupID(name)
	if err != nil {
		t.Fatal(err)
	}
	target := exec.Command(py, "-c", "import sys\nsys.stdin.readline()\n"+loop(321))
	in, _ := target.StdinPipe()
	if err := target.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, name, "cgroup.procs"), []byte(strconv.Itoa(target.Process.Pid)), 0); err != nil {
		target.Process.Kill()
		target.Wait()
		t.Fatalf("moving the target into %s: %v", name, err)
	}
	p := probetest.Open(t, probe.Options{TracePhase: Phase, TargetCgroup: id, AnyDevice: true})
	ctx, cancel := context.WithCancel(context.Background())
	spec := &Spec{Cgroup: name}
	res, err := Run(ctx, p, p.Cookie, spec, func() {
		in.Write([]byte("go\n"))
		go func() { target.Wait(); cancel() }()
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := callsOf(res.Arms(spec.Label())[0].Batches[0].Records, "getppid"); n != 321 {
		t.Errorf("getppid %d, want 321", n)
	}
	if _, err := CgroupID("/tmp"); err == nil {
		t.Error("CgroupID took /tmp for a cgroup")
	}
}
