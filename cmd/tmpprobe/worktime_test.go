//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/loopext4"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// The same work on a slower device (#29): one journaled ext4, made by the
// same mkfs and mounted with the same options, on a loop device whose
// file is in a tmpfs in OLD and on the disk in NEW. Every op does the
// same work (the same syscalls, flushes, writes, journal commits); only
// the device takes longer for each flush. The syncing arms must say "same
// work, slower", naming the device, and the work gate must pass where
// the time gate fails.
func TestDiffSameWorkSlowerDevice(t *testing.T) {
	needBPF(t)
	if !isTmpfs(t, "/dev/shm") {
		t.Skip("needs /dev/shm on tmpfs")
	}
	inMemory, err := os.MkdirTemp("/dev/shm", "tmpprobe-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(inMemory) })
	onDisk := diskDir(t)
	out := t.TempDir()
	old, cur := filepath.Join(out, "memory"), filepath.Join(out, "disk")
	fs := loopext4.Options{Mkfs: []string{"-O", "has_journal,^fast_commit"}}
	syncing := []string{"mkstemp-fsync", "mkstemp-fdatasync"}
	names := append([]string{"TemporaryFile"}, syncing...)
	// 12 rounds a side, each its own worker generation (the diff's
	// unit): fsync's spread on this shared host hides a 2× slowdown from
	// a U test of 6.
	more := []string{"--rounds", "12", "--worker-rounds", "1"}
	fs.Dir = inMemory
	saveRunWith(t, loopext4.Mount(t, "256M", fs), old, more, names...)
	fs.Dir = onDisk
	saveRunWith(t, loopext4.Mount(t, "256M", fs), cur, more, names...)

	rep := diffAll(t, old, cur)
	for _, arm := range syncing {
		d := armDiff(rep, arm)
		if d == nil || d.Work == nil {
			t.Fatalf("%s: no work judged: %+v", arm, d)
		}
		if d.Status != compare.StatusRegressed {
			t.Errorf("%s: %s, want regressed on the slower device", arm, d.Status)
		}
		if d.Work.Verdict != explain.WorkSame {
			t.Errorf("%s: %s %v, want the same work per op", arm, d.Work.Verdict, d.Work.Changed)
		}
		if !strings.HasPrefix(d.Work.Headline, "same work, slower: device time per ") || !strings.Contains(d.Work.Headline, "vda") {
			t.Errorf("%s: headline %q, want the same work, slower per device request, naming the disk", arm, d.Work.Headline)
		}
		if !strings.HasPrefix(d.Sentence, explain.ArmLabel(d.Kind, d.CaseID)+": same work, slower") {
			t.Errorf("%s: sentence does not say the work first: %s", arm, d.Sentence)
		}
	}
	for _, tc := range []struct {
		gate string
		code int
	}{{compare.GateWork, exitOK}, {compare.GateTime, exitRegressed}} {
		if code, _, stderr := inProcess("diff", old, cur, "--gate", tc.gate, "--threshold", "5"); code != tc.code {
			t.Errorf("diff --gate %s --threshold 5: exit %d (%s), want %d", tc.gate, code, stderr, tc.code)
		}
	}
}

// The lab moved from a tmpfs to this machine's disk (#29): one cause,
// said once. The whole diff of the modes lab in Go fits a screen (50
// lines of 80 columns), and every syncing arm's sentence names the move
// to ext4 as its culprit, with at most three culprits in any part of it.
func TestDiffTmpfsToDiskFitsAScreen(t *testing.T) {
	needBPF(t)
	if !isTmpfs(t, "/dev/shm") {
		t.Skip("needs /dev/shm on tmpfs")
	}
	// /tmp itself, as a user runs it: the runs work in private dirs of
	// their own inside it.
	diskDir(t)
	out := t.TempDir()
	shm, ext := filepath.Join(out, "shm"), filepath.Join(out, "tmp")
	for _, r := range []struct{ dir, out string }{{"/dev/shm", shm}, {os.TempDir(), ext}} {
		args := []string{"all", "--lab", "modes", "--runtime", "go", "--dir", r.dir, "--out", r.out, "-q"}
		if code, stdout, stderr := inProcess(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, whyFailed(stdout, stderr))
		}
	}
	rep := diffAll(t, shm, ext)
	_, text, _ := inProcess("diff", shm, ext)
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	t.Logf("the diff is %d lines", len(lines))
	if len(lines) > 50 {
		t.Errorf("the diff is %d lines, want 50 or fewer", len(lines))
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, n, l)
		}
	}
	syncing := 0
	for _, a := range arms.Catalog {
		if a.Lab != arms.LabModes || !a.Syncs {
			continue
		}
		d := armDiff(rep, a.Name)
		if d == nil {
			t.Errorf("%s: not in the diff", a.Name)
			continue
		}
		syncing++
		if !strings.Contains(d.Sentence, "the dir moved from tmpfs to ext4") {
			t.Errorf("%s: the move to ext4 is not named: %s", a.Name, d.Sentence)
		}
		if d.Work != nil && len(d.Work.Culprits) > 3 {
			t.Errorf("%s: %d culprits of its work: %v", a.Name, len(d.Work.Culprits), d.Work.Culprits)
		}
		for _, term := range d.Terms {
			if len(term.Culprits) > 3 {
				t.Errorf("%s: %d culprits of %s: %v", a.Name, len(term.Culprits), term.Name, term.Culprits)
			}
		}
	}
	if syncing == 0 {
		t.Error("no syncing arm in the modes lab")
	}
}
