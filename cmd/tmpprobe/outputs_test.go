//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
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

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// quickRun is a run of a second or less that needs no BPF: what the tests
// of output paths run, so that on a build without the checks they would
// complete (and fail the test by what they wrote).
func quickRun(dir string, extra ...string) []string {
	return append([]string{"run", "TemporaryFile", "--runtime", "go", "--ops", "20", "--rounds", "1",
		"--attach", "none", "-q", "--dir", dir}, extra...)
}

func fileKind(t *testing.T, path string) os.FileMode {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Type()
}

// --csv on a device, a FIFO, or a symlink: the device and the FIFO are
// written as streams and stay what they are; /proc/self/fd/1 (what
// /dev/stdout points to) and "-" are tmpprobe's stdout; a symlink's
// target is replaced and the symlink stays; another user's symlink is not
// followed.
func TestOutputsNeverReplaceDevicesOrLinks(t *testing.T) {
	needRoot(t)
	dir, work := t.TempDir(), t.TempDir()
	null := filepath.Join(dir, "null")
	if err := unix.Mknod(null, unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	stdoutLink := filepath.Join(dir, "stdout")
	os.Symlink("/proc/self/fd/1", stdoutLink)
	real := filepath.Join(dir, "real.csv")
	os.WriteFile(real, []byte("old\n"), 0o644)
	link := filepath.Join(dir, "link.csv")
	os.Symlink("real.csv", link)
	nullLink := filepath.Join(dir, "nulllink")
	os.Symlink(null, nullLink)

	runCSV := func(path string) (int, string, string) {
		cmd := tmpprobe(quickRun(work, "--csv", path)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		return exitStatus(t, cmd.Run()), stdout.String(), stderr.String()
	}
	header := "lab,arm,runtime,dir"
	for _, path := range []string{null, nullLink} {
		if code, _, stderr := runCSV(path); code != 0 {
			t.Errorf("--csv %s: exit %d: %s", path, code, stderr)
		}
	}
	if k := fileKind(t, null); k != os.ModeDevice|os.ModeCharDevice {
		t.Errorf("the character device became %v", k)
	}
	if k := fileKind(t, nullLink); k != os.ModeSymlink {
		t.Errorf("the symlink to the device became %v", k)
	}

	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until tmpprobe opens it to write
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if code, _, stderr := runCSV(fifo); code != 0 {
		t.Errorf("--csv FIFO: exit %d: %s", code, stderr)
	}
	select {
	case s := <-got:
		if !strings.HasPrefix(s, header) {
			t.Errorf("the FIFO's reader got %q", s)
		}
	case <-time.After(30 * time.Second): // a guard against hanging the suite, not a timing
		t.Error("nothing opened the FIFO to write the CSV")
	}
	if k := fileKind(t, fifo); k != os.ModeNamedPipe {
		t.Errorf("the FIFO became %v", k)
	}

	for _, path := range []string{stdoutLink, "-"} {
		code, stdout, stderr := runCSV(path)
		if code != 0 || !strings.Contains(stdout, "\n"+header) {
			t.Errorf("--csv %s: exit %d (%s); stdout lacks the CSV:\n%s", path, code, stderr, stdout)
		}
	}
	if k := fileKind(t, stdoutLink); k != os.ModeSymlink {
		t.Errorf("the symlink to /proc/self/fd/1 became %v", k)
	}

	if code, _, stderr := runCSV(link); code != 0 {
		t.Errorf("--csv symlink: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(real); !strings.HasPrefix(string(b), header) {
		t.Errorf("the symlink's target holds %q, want the CSV", b)
	}
	if k := fileKind(t, link); k != os.ModeSymlink {
		t.Errorf("the symlink became %v", k)
	}

	// Another user's symlink in a shared directory: refused before the run.
	shared := sharedDir(t)
	theirs := filepath.Join(shared, "theirs.csv")
	os.Symlink(real, theirs)
	os.Lchown(theirs, nobody, nobody)
	os.WriteFile(real, []byte("keep\n"), 0o644)
	if code, stdout, stderr := runCSV(theirs); code != exitUsage || stdout != "" || !strings.Contains(stderr, "symlink owned by uid 65534") {
		t.Errorf("--csv through another user's symlink: exit %d, %q", code, stderr)
	}
	if b, _ := os.ReadFile(real); string(b) != "keep\n" {
		t.Errorf("the target of another user's symlink was written: %q", b)
	}
}

// Another user plants --out as a symlink to a directory of root's: it is
// refused before the run, and nothing is written through it. So is a
// directory that user owns, and a symlink of root's own (as --dir).
func TestOutSymlinkRefused(t *testing.T) {
	needRoot(t)
	shared, work := sharedDir(t), t.TempDir()
	precious := t.TempDir()
	report := filepath.Join(precious, "report.md")
	os.WriteFile(report, []byte("root's own report\n"), 0o644)
	outlink := filepath.Join(shared, "outlink")
	os.Symlink(precious, outlink)
	os.Lchown(outlink, nobody, nobody)
	rootLink := filepath.Join(t.TempDir(), "rootlink")
	os.Symlink(precious, rootLink)
	theirDir := filepath.Join(shared, "theirdir")
	os.Mkdir(theirDir, 0o755)
	os.Chown(theirDir, nobody, nobody)

	for _, out := range []string{outlink, rootLink, theirDir} {
		cmd := tmpprobe(quickRun(work, "--out", out)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := exitStatus(t, cmd.Run())
		if code != exitUsage || stdout.Len() > 0 || strings.Count(stderr.String(), "\n") != 2 {
			t.Errorf("--out %s: exit %d, stdout %d bytes, stderr %q; want exit 2 before the run", out, code, stdout.Len(), stderr.String())
		}
	}
	if b, _ := os.ReadFile(report); string(b) != "root's own report\n" {
		t.Errorf("report.md behind the symlink was overwritten: %q", b)
	}
	if entries, _ := os.ReadDir(precious); len(entries) != 1 {
		t.Errorf("files written beside it: %v", entries)
	}
	if entries, _ := os.ReadDir(theirDir); len(entries) != 0 {
		t.Errorf("files written into another user's directory: %v", entries)
	}
}

// An output the run could not write is bad input, found before the run:
// exit 2, one line and a hint, no report.
func TestOutputPathsCheckedBeforeRun(t *testing.T) {
	needRoot(t)
	work := sharedDir(t)
	ro := t.TempDir()
	if err := unix.Mount("tmpfs", ro, "tmpfs", unix.MS_RDONLY, "size=64k"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(ro, 0)
	foreign := t.TempDir()
	os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644)
	rootOnly := t.TempDir()
	os.Chmod(rootOnly, 0o755)
	os.Chmod(filepath.Dir(rootOnly), 0o755)

	check := func(cmd *exec.Cmd, what string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		code := exitStatus(t, cmd.Run())
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != exitUsage || stdout.Len() > 0 || len(lines) != 2 || !strings.HasPrefix(lines[1], "Try ") {
			t.Errorf("%s: exit %d, stdout %d bytes, stderr %q; want exit 2 before the run", what, code, stdout.Len(), stderr.String())
		}
	}
	for _, extra := range [][]string{
		{"--out", filepath.Join(ro, "run")},
		{"--out", "/proc/x"},
		{"--csv", "/nonexistent/d/x.csv"},
		{"--csv", filepath.Join(ro, "x.csv")},
		{"--out", foreign},
		{"--out", filepath.Join(t.TempDir(), "r"), "--csv", "/proc/x.csv"},
	} {
		check(tmpprobe(quickRun(work, extra...)...), strings.Join(extra, " "))
	}
	if _, err := os.Stat(filepath.Join(foreign, "notes.txt")); err != nil {
		t.Errorf("a refused --out lost its file: %v", err)
	}
	for _, extra := range [][]string{
		{"--out", filepath.Join(rootOnly, "run")},
		{"--csv", filepath.Join(rootOnly, "x.csv")},
	} {
		check(asNobody(t, quickRun(work, extra...)...), "as nobody: "+strings.Join(extra, " "))
	}
}

// runFiles reads a run directory: name → content.
func runFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out[e.Name()] = string(b)
	}
	return out
}

// The disk fills while the second run is saved into the first one's
// --out: the save fails (exit 1), and --out still holds the first run,
// whole, with no staging directory left beside it.
func TestOutDiskFullKeepsPreviousRun(t *testing.T) {
	needRoot(t)
	mnt, work := t.TempDir(), t.TempDir()
	if err := unix.Mount("tmpfs", mnt, "tmpfs", 0, "size=8m"); err != nil {
		t.Fatal(err)
	}
	defer unix.Unmount(mnt, 0)
	out := filepath.Join(mnt, "run")
	args := []string{"run", "TemporaryFile", "--runtime", "go", "--ops", "50", "--rounds", "1", "-q", "--dir", work, "--out", out}
	if b, err := tmpprobe(args...).CombinedOutput(); err != nil {
		t.Fatalf("first run: %v\n%s", err, b)
	}
	first := runFiles(t, out)
	var size int64
	for name, body := range first {
		if !slices.Contains(runfile.RunFiles, name) {
			t.Errorf("unexpected %s in the run", name)
		}
		size += (int64(len(body)) + 4095) / 4096 * 4096
	}
	// Leave room for half a run: the second one's staging copy cannot fit.
	var fs unix.Statfs_t
	unix.Statfs(mnt, &fs)
	filler := int64(fs.Bavail)*int64(fs.Bsize) - size/2
	if err := os.WriteFile(filepath.Join(mnt, "filler"), make([]byte, filler), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := tmpprobe(args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitStatus(t, cmd.Run()); code != exitArmFailed || !strings.Contains(stderr.String(), "no space left") {
		t.Errorf("second run on a full disk: exit %d, stderr %q; want 1 and ENOSPC", code, stderr.String())
	}
	if again := runFiles(t, out); fmt.Sprint(again) != fmt.Sprint(first) {
		t.Errorf("--out changed: %d files before, %d after", len(first), len(again))
	}
	if entries, _ := os.ReadDir(mnt); len(entries) != 2 {
		t.Errorf("left beside the run: %v", entries)
	}
}

// Every file is fsync'ed before it is renamed into place, and its
// directory after, so a power cut leaves the old file or the new one
// (checked by the order of the syscalls, as strace shows them).
func TestOutputsAreSyncedBeforeRename(t *testing.T) {
	needRoot(t)
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace not found")
	}
	dir, work := t.TempDir(), t.TempDir()
	exe, _ := os.Executable()
	trace := func(args ...string) []string {
		log := filepath.Join(dir, "strace.log")
		cmd := exec.Command(strace, append([]string{"-f", "-qq", "-o", log, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2", exe}, args...)...)
		cmd.Env = append(os.Environ(), "TMPPROBE_TEST_MAIN=1")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, b)
		}
		b, _ := os.ReadFile(log)
		return strings.Split(string(b), "\n")
	}
	// firstRename is the line that renames into name, -1 if none.
	firstRename := func(lines []string, name string) int {
		return slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "rename") && strings.Contains(l, `"`+name+`"`) })
	}
	// count counts the calls that returned 0. When another thread's
	// event comes between a call's start and its return, strace splits it
	// into "call(… <unfinished ...>" and "<... call resumed>) = 0"; the
	// second line carries its result.
	count := func(lines []string, call string) int {
		n := 0
		for _, l := range lines {
			whole := strings.Contains(l, " "+call+"(") && !strings.Contains(l, "<unfinished")
			resumed := strings.Contains(l, "<... "+call+" resumed>")
			if (whole || resumed) && strings.Contains(l, "= 0") {
				n++
			}
		}
		return n
	}

	lines := trace("report", goldenOld, "--chart", filepath.Join(dir, "c.svg"))
	i := firstRename(lines, "c.svg")
	if i < 0 || count(lines[:i], "fsync") != 1 || count(lines[i:], "fsync") != 1 {
		t.Errorf("report --chart: want fsync, rename, fsync of the directory:\n%s", strings.Join(lines, "\n"))
	}

	out := filepath.Join(dir, "run")
	lines = trace(quickRun(work, "--out", out)...)
	i = firstRename(lines, "run")
	files := len(runFiles(t, out))
	if i < 0 || count(lines[:i], "fsync") != files+1 || count(lines[i:], "fsync") != 1 {
		t.Errorf("--out: want %d files and their directory fsync'ed, the rename, the parent fsync'ed:\n%s", files, strings.Join(lines, "\n"))
	}
}

// A second signal exits at once, and still kills the traced command, even
// one that ignores SIGINT and SIGTERM, with everything it started.
func TestSecondSignalKillsIgnoringCommand(t *testing.T) {
	needRoot(t)
	marker := "tmpprobe-test-ignore-" + strconv.Itoa(os.Getpid())
	cmd := tmpprobe("trace", "--", "bash", "-c", `trap "" INT TERM; (exec -a `+marker+` sleep 600) & wait; wait`)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer killMarked(marker)
	r := bufio.NewReader(stderr)
	if !waitFor(r, "tracing") {
		t.Fatal("trace did not start")
	}
	for i := 0; i < 200 && len(marked(marker)) == 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	bashPid := childOf(cmd.Process.Pid)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(20 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	go io.Copy(io.Discard, r)
	if code := exitStatus(t, cmd.Wait()); code != exitSIGINT {
		t.Errorf("exit %d, want %d", code, exitSIGINT)
	}
	// SIGKILL is sent before tmpprobe exits; the processes are gone once
	// the kernel has torn them down and init has reaped them.
	for i := 0; i < 250 && (len(marked(marker)) > 0 || alive(bashPid)); i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if pids := marked(marker); len(pids) > 0 || alive(bashPid) {
		t.Errorf("left running: the command's child %v, the command (%d) %v", pids, bashPid, alive(bashPid))
	}
}

// marked lists the processes whose command line holds marker.
func marked(marker string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); bytes.Contains(b, []byte(marker)) {
			out = append(out, pid)
		}
	}
	return out
}

func killMarked(marker string) {
	for _, pid := range marked(marker) {
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// alive: the process exists and is not a zombie.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := follow.ReadProc(pid)
	return err == nil && p.State != 'Z'
}

// Two SIGINTs 20 ms apart, or a SIGKILL, while a finished run is being
// saved over a previous one: --out holds the previous run or the whole new
// one, never a part or a mix; no temp file is left after the second SIGINT,
// and what a SIGKILL leaves beside --out goes with the next save there.
// The work dir is empty after the second SIGINT.
func TestSignalsWhileSaving(t *testing.T) {
	needRoot(t)
	previous := map[string]string{}
	for _, name := range runfile.RunFiles {
		if b, err := os.ReadFile(filepath.Join(goldenOld, name)); err == nil {
			previous[name] = string(b)
		}
	}
	for _, c := range []struct {
		kill  bool
		delay time.Duration
	}{{false, 0}, {false, 30 * time.Millisecond}, {false, 100 * time.Millisecond}, {false, 250 * time.Millisecond},
		{true, 0}, {true, 50 * time.Millisecond}, {true, 150 * time.Millisecond}} {
		what := fmt.Sprintf("SIGKILL=%v after %v", c.kill, c.delay)
		parent, work := t.TempDir(), t.TempDir()
		out := filepath.Join(parent, "D")
		os.Mkdir(out, 0o755)
		for name, body := range previous {
			os.WriteFile(filepath.Join(out, name), []byte(body), 0o644)
		}
		cmd := tmpprobe("all", "--runtime", "go", "--ops", "50", "--rounds", "1", "--sizes", "256K",
			"--out", out, "--dir", work)
		cmd.Stdout = io.Discard
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(stderr)
		if !waitFor(r, "round 1/1 done") {
			t.Fatal("the run did not finish its round")
		}
		time.Sleep(c.delay)
		if c.kill {
			cmd.Process.Kill()
		} else {
			cmd.Process.Signal(syscall.SIGINT)
			time.Sleep(20 * time.Millisecond)
			cmd.Process.Signal(syscall.SIGINT)
		}
		io.Copy(io.Discard, r)
		code := exitStatus(t, cmd.Wait())
		if !c.kill && code != exitSIGINT && code != 0 {
			t.Errorf("%s: exit %d", what, code)
		}
		files := runFiles(t, out)
		if fmt.Sprint(files) != fmt.Sprint(previous) {
			for _, name := range runfile.RunFiles {
				if _, ok := files[name]; !ok || len(files) != len(runfile.RunFiles) {
					t.Errorf("%s: --out holds %d files, no %s: neither the previous run nor the new one", what, len(files), name)
					break
				}
			}
		}
		if c.kill {
			// The next save to the same place sweeps what the killed one left.
			if code, _, stderr := inProcess(quickRun(work, "--out", out)...); code != 0 {
				t.Errorf("%s: the next save: exit %d: %s", what, code, stderr)
			}
		} else {
			checkClean(t, work, nil)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Errorf("%s: left beside the run: %v", what, entries)
		}
	}
}

// #37: the run is saved before the report is written, so a report that
// cannot be written (-o /dev/full; a reader gone from the pipe, as with
// | head) costs no file: --out and --csv are whole, the exit status is 1
// and stderr says the report was not written and what was saved. Before,
// -o /dev/full left no --out, and a closed pipe killed tmpprobe with
// SIGPIPE (exit 141) before it saved anything.
func TestReportNotWrittenKeepsTheRun(t *testing.T) {
	needRoot(t)
	for _, c := range []struct{ name, output string }{{"-o /dev/full", "/dev/full"}, {"closed stdout pipe", ""}} {
		dir := t.TempDir()
		out, csv := filepath.Join(dir, "D"), filepath.Join(dir, "a.csv")
		args := quickRun(t.TempDir(), "--out", out, "--csv", csv)
		if c.output != "" {
			args = append(args, "-o", c.output)
		}
		cmd := tmpprobe(args...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if c.output == "" {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close() // nobody will read: every write to it is EPIPE
			cmd.Stdout = w
			defer w.Close()
		}
		code := exitStatus(t, cmd.Run())
		msg := stderr.String()
		if code != exitArmFailed || !strings.Contains(msg, "the report could not be written") || !strings.Contains(msg, "saved: "+out+", "+csv) {
			t.Errorf("%s: exit %d, stderr %q; want 1, saying the report was not written and that %s and %s were saved", c.name, code, msg, out, csv)
		}
		if run, err := runfile.LoadRun(out); err != nil || !run.Complete {
			t.Errorf("%s: --out holds no whole run: %v", c.name, err)
		}
		if b, err := os.ReadFile(csv); err != nil || !bytes.HasPrefix(b, []byte("lab,arm,")) {
			t.Errorf("%s: --csv: %v, %.40q", c.name, err, b)
		}
	}
}
