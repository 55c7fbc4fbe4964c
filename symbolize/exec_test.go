package symbolize

import (
	"bufio"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func goBuild(t *testing.T, pkg string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(pkg))
	if b, err := exec.Command("go", "build", "-o", out, "./testdata/"+pkg).CombinedOutput(); err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	return out
}

// TestExecNamesTheNewProgram: a pid whose stacks were named while it ran
// one Go program execs another, which exits before its stack is named —
// as a short program traced under load does. Both Go programs have their
// text at 0x400000: the first one's mappings, still held, would name the
// second one's addresses as the first one's functions (CI saw fsync's
// stack named "internal/strconv.bigFtoa <- runtime.call262144 …"). The
// exec's record drops them and names the new text from the file the
// kernel loaded.
func TestExecNamesTheNewProgram(t *testing.T) {
	execer, leafpcs := goBuild(t, "execer"), goBuild(t, "leafpcs")
	cmd := exec.Command(execer, leafpcs)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() || lines.Text() != "ready" {
		t.Fatalf("execer: %q, want ready", lines.Text())
	}
	pid := uint32(cmd.Process.Pid)
	r := New()
	// A stack of the first program, named while it runs: its mappings
	// are read.
	r.Name(Taken{Tgid: pid, Native: []uint64{0x401000}})
	stdin.Write([]byte("go\n"))
	var start, end uint64
	var pcs []uint64
	if lines.Scan() {
		fmt.Sscan(lines.Text(), &start, &end)
	}
	for lines.Scan() {
		pc, _ := strconv.ParseUint(lines.Text(), 10, 64)
		pcs = append(pcs, pc)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if end == 0 || len(pcs) < 2 {
		t.Fatalf("leafpcs printed text %#x-%#x, stack %#x: want its text's ends and its stack", start, end, pcs)
	}
	named := func(r *Run) string {
		var s []string
		for _, fi := range r.table[r.Name(Taken{Tgid: pid, Native: pcs})] {
			s = append(s, r.frames[fi].Function)
		}
		return strings.Join(s, " <- ")
	}
	// The stale mappings are the bug: without the exec, the second
	// program's stack is named as the first one's functions.
	stale := named(r)
	t.Logf("before the exec record: %q", stale)
	if strings.Contains(stale, "main.leaf") {
		t.Fatalf("named from the first program's mappings as %q: the test would not see the bug", stale)
	}
	var st unix.Stat_t
	if err := unix.Stat(leafpcs, &st); err != nil {
		t.Fatal(err)
	}
	img := Image{StartCode: start, EndCode: end, Ino: st.Ino, Dev: unix.Major(st.Dev)<<20 | unix.Minor(st.Dev), Path: leafpcs}
	r.Exec(pid, img)
	if got := named(r); !strings.HasPrefix(got, "main.leaf <- main.main") {
		t.Errorf("after the exec, named %q: want main.leaf <- main.main first", got)
	}

	// A file of that name that is not the one the kernel loaded names
	// nothing, rather than names it wrongly.
	other := New()
	img.Ino++
	other.Exec(pid, img)
	if got := named(other); strings.Contains(got, "main.") {
		t.Errorf("with another file's identity, named %q: want no function named", got)
	}
}
