//go:build linux

package main

// The private work dirs: a dir others can change is refused, and one renamed under a run is never reached through what replaced it.

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

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

// The private work dir is renamed while workers run and a symlink to a
// copy of its group dirs put at its name: no arm, Go or Python, does
// anything in the copy (workers reach their group dir only through the fd
// they were handed), and the run ends whole. They kept working in the copy.
func TestWorkersStayInTheirDirFd(t *testing.T) {
	needRoot(t)
	dir := t.TempDir()
	cmd := tmpprobe("run", "TemporaryFile", "NamedTemporaryFile", "mkstemp-close-unlink", "atomic-replace",
		"--lab", "modes", "--runtime", "auto", "--ops", "300", "--rounds", "6", "--worker-rounds", "0", "--attach", "none", "-q", "--dir", dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var work string
	var groups []string
	for i := 0; i < 1000 && len(groups) == 0; i++ {
		time.Sleep(10 * time.Millisecond)
		if m, _ := filepath.Glob(filepath.Join(dir, "tmpprobe-*", "group-*")); len(m) > 0 {
			work, groups = filepath.Dir(m[0]), m
		}
	}
	if work == "" {
		cmd.Process.Kill()
		t.Fatal("no group dir appeared")
	}
	time.Sleep(300 * time.Millisecond) // the workers are at their ops
	copyDir, long := filepath.Join(dir, "copy"), time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	os.Mkdir(copyDir, 0o700)
	var planted []string
	for _, g := range groups {
		p := filepath.Join(copyDir, filepath.Base(g))
		os.Mkdir(p, 0o700)
		os.Chtimes(p, long, long)
		planted = append(planted, p)
	}
	if err := os.Rename(work, filepath.Join(dir, "moved")); err != nil {
		t.Fatal(err)
	}
	os.Symlink(copyDir, work)
	select {
	case err := <-done:
		if code := exitStatus(t, err); code != 0 {
			t.Errorf("exit %d: %s\n%s", code, stderr.String(), stdout.String())
		}
	case <-time.After(5 * time.Minute): // a guard against a hang, not a timing
		cmd.Process.Kill()
		t.Fatal("the run did not end")
	}
	if !strings.Contains(stdout.String(), "python") {
		t.Log("no python3: the Go arms only")
	}
	for _, p := range planted {
		st, err := os.Stat(p)
		entries, _ := os.ReadDir(p)
		if err != nil || !st.ModTime().Equal(long) || len(entries) > 0 {
			t.Errorf("%s was worked in: modified %v, holds %v", p, st.ModTime(), entries)
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
