//go:build linux

package main

// Outputs checked before the run: another user's FIFO or link, an unread FIFO, a file that could only fail after the run.

import (
	"bytes"
	"github.com/tmpprobe/tmpprobe/results/runfile"
	"golang.org/x/sys/unix"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runGuarded runs cmd with a guard against hanging the suite: a run that
// blocks is killed after a minute and fails the test. It returns the exit
// code, stdout and stderr.
func runGuarded(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitStatus(t, err), stdout.String(), stderr.String()
	case <-time.After(time.Minute): // a guard against a hang, not a timing
		cmd.Process.Kill()
		<-done
		t.Errorf("%v: still running after a minute (hung); stderr %q", cmd.Args[1:], stderr.String())
		return -1, stdout.String(), stderr.String()
	}
}

// asUser runs name as user nobody: what another local user plants.
func asUser(t *testing.T, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s %v as nobody: %v %s", name, args, err, b)
	}
}

// Another user's FIFO as any output is refused before the run, exit 2, as
// their symlinks are (it hung root's tmpprobe in open(2) after the run,
// and --out was lost); nothing opens it.
func TestForeignFIFORefused(t *testing.T) {
	needRoot(t)
	shared, work := sharedDir(t), t.TempDir()
	fifo := filepath.Join(shared, "x.csv")
	asUser(t, "mkfifo", fifo)
	svg := filepath.Join(shared, "p.svg")
	asUser(t, "mkfifo", svg)
	link := filepath.Join(shared, "l.csv")
	asUser(t, "ln", "-s", filepath.Join(work, "target.csv"), link)
	out := filepath.Join(t.TempDir(), "o1")
	for _, args := range [][]string{
		quickRun(work, "--csv", fifo, "--out", out),
		quickRun(work, "--pprof", fifo),
		quickRun(work, "--benchfmt", fifo),
		quickRun(work, "--csv", link),
		{"trace", "--csv", fifo, "--", "true"},
		{"report", goldenOld, "--chart", svg},
	} {
		code, stdout, stderr := runGuarded(t, tmpprobe(args...))
		if code != exitUsage || (args[0] != "report" && stdout != "") || !strings.Contains(stderr, "owned by uid 65534") {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 2 before the run", args, code, len(stdout), stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--out written by a refused run")
	}
	if _, err := os.Lstat(filepath.Join(work, "target.csv")); err == nil {
		t.Errorf("written through another user's symlink")
	}
}

// A FIFO of root's own that nobody reads fails at once after the run (it
// blocked in open(2) for ever), and --out, written first, is whole.
func TestUnreadFIFOFailsAfterOut(t *testing.T) {
	needRoot(t)
	dir, work := t.TempDir(), t.TempDir()
	fifo := filepath.Join(dir, "x.csv")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "o1")
	code, _, stderr := runGuarded(t, tmpprobe(quickRun(work, "--csv", fifo, "--out", out)...))
	if code != exitArmFailed || !strings.Contains(stderr, "no process has it open for reading") {
		t.Errorf("exit %d, %q; want 1, the FIFO unread", code, stderr)
	}
	if _, err := runfile.LoadRun(out); err != nil {
		t.Errorf("--out: %v", err)
	}
}

// chattr +i / +a, as chattr does it (FS_IOC_SETFLAGS), undone at cleanup;
// false on a filesystem without inode flags.
func setInodeFlags(t *testing.T, path string, flags int) bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, flags); err != nil {
		t.Logf("no inode flags on %s: %v", path, err)
		return false
	}
	t.Cleanup(func() {
		if f, err := os.Open(path); err == nil {
			unix.IoctlSetPointerInt(int(f.Fd()), unix.FS_IOC_SETFLAGS, 0)
			f.Close()
		}
	})
	return true
}

// Outputs that could only fail after the run are refused before it, exit
// 2, and nothing is left behind: --out on a mount point, the same path as
// --csv and --out, a --csv inside --out through a symlink, an immutable or
// bind-mounted target, an append-only directory, an fd tmpprobe was not
// given, /dev/stdin read-only, /dev/tty without a terminal, one file for
// two outputs; a refused run leaves no --out parents behind.
func TestOutputProblemsBeforeRun(t *testing.T) {
	needRoot(t)
	dir, work := t.TempDir(), t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	os.Mkdir(mnt, 0o755)
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=1m"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(mnt, unix.MNT_DETACH)
	prev := filepath.Join(dir, "prev")
	os.Mkdir(prev, 0o755)
	os.Symlink(prev, filepath.Join(dir, "prevlink"))
	imm := filepath.Join(dir, "imm.csv")
	os.WriteFile(imm, []byte("keep\n"), 0o644)
	immutable := setInodeFlags(t, imm, 0x10)
	bound, src := filepath.Join(dir, "bound.csv"), filepath.Join(dir, "src.csv")
	os.WriteFile(bound, nil, 0o644)
	os.WriteFile(src, []byte("keep\n"), 0o644)
	if err := unix.Mount(src, bound, "", unix.MS_BIND, ""); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(bound, unix.MNT_DETACH)
	appendOnly := filepath.Join(dir, "appendonly")
	os.Mkdir(appendOnly, 0o755)
	appendable := setInodeFlags(t, appendOnly, 0x20)
	readOnly, _ := os.Open(src)
	defer readOnly.Close()

	type refusal struct {
		extra []string
		want  string
		stdin *os.File
	}
	var flagged []refusal
	if immutable {
		flagged = append(flagged, refusal{[]string{"--csv", imm}, "immutable", nil})
	}
	if appendable {
		flagged = append(flagged, refusal{[]string{"--csv", filepath.Join(appendOnly, "x.csv")}, "append-only", nil})
	}
	for _, c := range append(flagged, []refusal{
		{[]string{"--out", mnt}, "mount point", nil},
		{[]string{"--csv", filepath.Join(dir, "x"), "--out", filepath.Join(dir, "x")}, "inside it", nil},
		{[]string{"--csv", filepath.Join(dir, "prevlink", "x.csv"), "--out", prev}, "inside it", nil},
		{[]string{"--csv", bound}, "mount point", nil},
		{[]string{"--csv", "/proc/self/fd/3"}, "fd 3", nil},
		{[]string{"--csv", "/dev/stdin"}, "read-only", readOnly},
		{[]string{"--csv", "/dev/tty"}, "/dev/tty", nil},
		{[]string{"--csv", filepath.Join(dir, "f"), "--pprof", filepath.Join(dir, "f")}, "the file --csv writes too", nil},
		{[]string{"--out", filepath.Join(dir, "a", "b", "run"), "--attach", "kprobe"}, "kprobe", nil},
	}...) {
		cmd := tmpprobe(quickRun(work, c.extra...)...)
		cmd.Stdin = c.stdin
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
		code, stdout, stderr := runGuarded(t, cmd)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stdout %d bytes, stderr %q; want exit 2 before the run saying %q", c.extra, code, len(stdout), stderr, c.want)
		}
	}
	for _, gone := range []string{filepath.Join(dir, "a"), filepath.Join(dir, "x"), filepath.Join(dir, "f")} {
		if _, err := os.Lstat(gone); err == nil {
			t.Errorf("%s was made by a refused run", gone)
		}
	}
	for _, d := range []string{dir, appendOnly, prev, mnt} {
		if entries, _ := os.ReadDir(d); slices.ContainsFunc(entries, func(e os.DirEntry) bool { return strings.Contains(e.Name(), ".tmp-") }) {
			t.Errorf("temps left in %s: %v", d, entries)
		}
	}
	if b, _ := os.ReadFile(src); string(b) != "keep\n" {
		t.Errorf("the bind mount's source was written: %q", b)
	}

	// Refused for want of BPF privilege: the --out parents the check
	// would need are not left behind either.
	shared := sharedDir(t)
	cmd := asNobody(t, "run", "TemporaryFile", "--runtime", "go", "--ops", "20", "--rounds", "1", "-q",
		"--dir", shared, "--out", filepath.Join(shared, "p", "q", "run"))
	if code, stdout, stderr := runGuarded(t, cmd); code != exitUsage || stdout != "" || !strings.Contains(stderr, "sudo") {
		t.Errorf("as nobody: exit %d, stdout %d bytes, %q; want exit 2, run it with sudo", code, len(stdout), stderr)
	}
	if entries, _ := os.ReadDir(shared); len(entries) != 0 {
		t.Errorf("a run refused its probe left %v", entries)
	}

	// An fd tmpprobe was given is written.
	given := filepath.Join(dir, "given.csv")
	g, _ := os.Create(given)
	cmd = tmpprobe(quickRun(work, "--csv", "/proc/self/fd/3")...)
	cmd.ExtraFiles = []*os.File{g}
	code, _, stderr := runGuarded(t, cmd)
	g.Close()
	if b, _ := os.ReadFile(given); code != 0 || !strings.HasPrefix(string(b), "lab,arm") {
		t.Errorf("--csv /proc/self/fd/3 given as fd 3: exit %d (%s), wrote %q", code, stderr, b)
	}
}
