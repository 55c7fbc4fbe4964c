//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os/exec"
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
