//go:build linux

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// #37: a --python that hangs at its version check (which every 'all'
// runs) hung tmpprobe past --arm-timeout, and the first Ctrl-C did
// nothing. Now the check ends at --arm-timeout, saying why, or within
// 5 s of the first SIGINT (exit 130), and what the interpreter started is
// killed with it.
func TestHangingPythonVersionCheckEnds(t *testing.T) {
	// A unique sleep, to find what the "interpreter" left behind.
	const marker = "600.0137"
	python := filepath.Join(t.TempDir(), "python3")
	os.Chmod(filepath.Dir(python), 0o755)
	if err := os.WriteFile(python, []byte("#!/bin/sh\nsleep "+marker+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	args := func(timeout string) []string {
		return []string{"run", "TemporaryFile", "--runtime", "python", "--python", python, "--arm-timeout", timeout,
			"--attach", "none", "-q", "--ops", "20", "--rounds", "1", "--dir", t.TempDir()}
	}
	start := time.Now()
	code, _, stderr := inProcess(args("2s")...)
	if took := time.Since(start); code != exitUsage || !strings.Contains(stderr, "did not answer its version check within 2s") || took > time.Minute {
		t.Errorf("--arm-timeout 2s: exit %d after %v, stderr %q; want 2, saying the check did not answer", code, took.Round(time.Millisecond), stderr)
	}
	checkNoSleep(t, marker)

	pid, started, wait := inBackground(t, args("5m")...)
	time.Sleep(time.Until(started.Add(300 * time.Millisecond)))
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	sent := time.Now()
	done := make(chan int, 1)
	go func() { done <- wait() }()
	select {
	case code := <-done:
		if code != exitSIGINT || time.Since(sent) > 5*time.Second {
			t.Errorf("SIGINT during the version check: exit %d after %v, want %d within 5 s", code, time.Since(sent).Round(time.Millisecond), exitSIGINT)
		}
	case <-time.After(time.Minute):
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatal("SIGINT during the version check: still running a minute later")
	}
	checkNoSleep(t, marker)
}

// checkNoSleep fails if a "sleep marker" still runs, and kills it.
func checkNoSleep(t *testing.T, marker string) {
	t.Helper()
	// Killed, its zombie may take a moment to be reaped by init.
	running := func() []int { return slices.DeleteFunc(marked(marker), func(pid int) bool { return !alive(pid) }) }
	for range 20 {
		if len(running()) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	pids := running()
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	t.Errorf("the interpreter's sleep %s is still running: %v", marker, pids)
}
