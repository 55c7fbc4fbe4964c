//go:build linux

package probe_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/internal/pythons"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
)

// frameText is a stack as "f (file:line) <- ...", leaf first.
func frameText(st *results.Stacks, idx int) string {
	var parts []string
	for _, fi := range st.Table[idx] {
		f := st.Frames[fi]
		s := f.Function
		if f.File != "" {
			s += " (" + filepath.Base(f.File) + ":" + strconv.Itoa(f.Line) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " <- ")
}

// Every fsync of a Python function has its stack taken at the call, in
// every interpreter read, with its layout installed by the uprobe at
// the interpreter's entry: the function and its line, then its callers.
func TestPythonFsyncStacks(t *testing.T) {
	for _, in := range pythons.List() {
		t.Run(in.Name, func(t *testing.T) {
			p := probetest.Open(t, probe.Options{Stacks: &probe.StackOptions{All: []string{"fsync"}, Interpreters: []string{in.Path}}})
			if notes := p.StackNotes(); len(notes) > 0 {
				t.Fatalf("stacks refused: %+v", notes)
			}
			follow(t, p, in.Path, "testdata/persist.py", t.TempDir())
			want := "persist (persist.py:9) <- main (persist.py:16) <- <module> (persist.py:19)"
			if got := fsyncStacks(t, p); len(got) != 1 || got[want].Calls != 5 || got[want].Ns == 0 {
				t.Errorf("fsync's stacks %+v: want 5 calls, with their time, at %s", got, want)
			}
		})
	}
}

// fsyncStacks are the fsync records of phase 1 since the last collect,
// by their stack's text.
func fsyncStacks(t *testing.T, p *probe.Probe) map[string]results.StackRecord {
	t.Helper()
	stacks, err := p.CollectStacks()
	if err != nil {
		t.Fatal(err)
	}
	st := p.StackTable()
	out := map[string]results.StackRecord{}
	for _, r := range stacks[1] {
		if r.Class == "fsync" {
			out[frameText(st, r.Stack)] = r
		}
	}
	return out
}

// follow starts argv, which waits for a line on its stdin first (a
// shell's read before it execs the program), follows its threads in
// phase 1, lets it go and waits for it.
func follow(t *testing.T, p *probe.Probe, argv ...string) *os.ProcessState {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := p.TrackThreads([]int{cmd.Process.Pid}, 1, true); err != nil {
		t.Fatal(err)
	}
	stdin.Write([]byte("go\n"))
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return cmd.ProcessState
}

// User time sampled by Python function keeps the 3:1 cost ratio of
// heavy() to light() within 25%, in every interpreter read, and the
// samples sum to the user time the probe measured within 10%, which is
// the kernel's own (rusage, its ticks scaled to the scheduler's run time)
// within 10%. At 3989 Hz a run of 0.6 s is ~2400 samples and the ratio's
// sampling error ~5%. The loop makes no syscall: a switch back onto a CPU
// that the kernel did not report (switch_unseen) lost most of it in 1 run
// of 70 here, and in CI (136 ms measured of 723 sampled).
func TestPythonUserTimeShares(t *testing.T) {
	for _, in := range pythons.List() {
		t.Run(in.Name, func(t *testing.T) {
			p := probetest.Open(t, probe.Options{Stacks: &probe.StackOptions{SampleHz: 3989, Interpreters: []string{in.Path}}})
			ps := follow(t, p, "sh", "-c", "read _; exec "+in.Path+" testdata/ratio.py 1200")
			stacks, err := p.CollectStacks()
			if err != nil {
				t.Fatal(err)
			}
			recs, err := p.Collect()
			if err != nil {
				t.Fatal(err)
			}
			var user uint64
			for _, r := range recs[1] {
				if r.Class == results.ClassUser && r.Stage == "" {
					user = r.TotalNs
				}
			}
			st := p.StackTable()
			byLeaf := map[string]uint64{}
			var sampled uint64
			for _, r := range stacks[1] {
				if r.Class == results.ClassUser {
					byLeaf[st.Frames[st.Table[r.Stack][0]].Function] += r.Ns
					sampled += r.Ns
				}
			}
			heavy, light := byLeaf["heavy"], byLeaf["light"]
			ratio := float64(heavy) / float64(light)
			drops, _ := p.Drops()
			unseen, _ := p.UnseenSwitches()
			rusage := uint64(ps.UserTime())
			t.Logf("heavy %.1f ms, light %.1f ms of %.1f ms sampled (%.2f:1), %.1f ms measured, rusage %.1f ms; unresolved %v; drops %v; switches not reported %d",
				float64(heavy)/1e6, float64(light)/1e6, float64(sampled)/1e6, ratio, float64(user)/1e6, float64(rusage)/1e6, st.Unresolved, nonzero(drops), unseen)
			if light == 0 || ratio < 3*0.75 || ratio > 3*1.25 {
				t.Errorf("heavy:light = %.2f, want 3 within 25%%; by leaf %v", ratio, byLeaf)
			}
			if d := float64(sampled)/float64(user) - 1; user == 0 || d < -0.10 || d > 0.10 {
				t.Errorf("samples sum to %d ns, the measured user time is %d ns (%+.0f%%): want within 10%%", sampled, user, 100*d)
			}
			if d := float64(user)/float64(rusage) - 1; rusage == 0 || d < -0.10 || d > 0.10 {
				t.Errorf("the measured user time is %d ns, rusage's %d ns (%+.0f%%): want within 10%%", user, rusage, 100*d)
			}
		})
	}
}

// nonzero are the counters of m that are not 0.
func nonzero(m map[string]uint64) map[string]uint64 {
	out := map[string]uint64{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// Native call sites: a Go program's (frame pointers, named from its
// pclntab) and a C program's built with frame pointers (its symbol table
// and DWARF lines), each with the caller of the frameless syscall stub
// (Go's Syscall6, libc's fsync) taken from the stack pointer.
func TestNativeFsyncStacks(t *testing.T) {
	dir := t.TempDir()
	gobin, cbin := filepath.Join(dir, "gopersist"), filepath.Join(dir, "cpersist")
	if out, err := exec.Command("go", "build", "-o", gobin, "./testdata/gopersist").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	if out, err := exec.Command("cc", "-O1", "-g", "-fno-omit-frame-pointer", "-o", cbin, "testdata/cpersist.c").CombinedOutput(); err != nil {
		t.Fatalf("cc: %v: %s", err, out)
	}
	for bin, want := range map[string][]string{
		gobin: {"os.(*File).Sync", "main.persist (main.go:19)", "main.main (main.go:26)"},
		cbin:  {"persist (cpersist.c:17)", "main (cpersist.c:27)"},
	} {
		p := probetest.Open(t, probe.Options{Stacks: &probe.StackOptions{All: []string{"fsync"}}})
		follow(t, p, "sh", "-c", "read _; exec "+bin+" "+t.TempDir())
		got := fsyncStacks(t, p)
		for text, r := range got {
			t.Logf("%s: %d calls at %s", filepath.Base(bin), r.Calls, text)
			for _, w := range want {
				if !strings.Contains(text, w) {
					t.Errorf("%s: fsync stack %q names no %q", filepath.Base(bin), text, w)
				}
			}
		}
		if len(got) != 1 {
			t.Errorf("%s: %d fsync stacks, want every fsync at one", filepath.Base(bin), len(got))
		}
	}
}

// A child process keeps its parent's interpreter, and its layout: the
// fork hook copies it (a lab's fork server starts the interpreter, its
// workers run Python from their first instruction, never entering it).
func TestForkedChildKeepsPythonLayout(t *testing.T) {
	in, ok := pythons.Pyenv("3.12")
	if !ok {
		t.Fatal("no pyenv CPython 3.12")
	}
	p := probetest.Open(t, probe.Options{Stacks: &probe.StackOptions{All: []string{"fsync"}, Interpreters: []string{in.Path}}})
	prog := `import os, sys
sys.stdin.readline()
def in_child(d):
    fd = os.open(os.path.join(d, "c"), os.O_WRONLY | os.O_CREAT, 0o600)
    os.fsync(fd)
    os._exit(0)
pid = os.fork()
if pid == 0:
    in_child(sys.argv[1])
os.waitpid(pid, 0)
`
	follow(t, p, in.Path, "-c", prog, t.TempDir())
	want := "in_child (<string>:5) <- <module> (<string>:9)"
	if got := fsyncStacks(t, p); len(got) != 1 || got[want].Calls != 1 {
		t.Errorf("the child's fsync stacks %+v: want one at %s", got, want)
	}
}

// A probe that takes stacks takes none from an Attach after
// TakeStacks(false): the plain sys_enter and sys_exit programs count
// every fsync and walk no stack; after TakeStacks(true) it takes them
// again. A probe opened without stacks says it takes none.
func TestTakeStacksSwitches(t *testing.T) {
	in := pythons.List()[0]
	p := probetest.Open(t, probe.Options{Stacks: &probe.StackOptions{All: []string{"fsync"}, Interpreters: []string{in.Path}}})
	want := "persist (persist.py:9) <- main (persist.py:16) <- <module> (persist.py:19)"
	for _, stacks := range []bool{false, true} {
		p.Detach()
		if !p.TakeStacks(stacks) {
			t.Fatal("a probe opened with stacks says it takes none")
		}
		if err := p.Attach(); err != nil {
			t.Fatal(err)
		}
		follow(t, p, in.Path, "testdata/persist.py", t.TempDir())
		got := fsyncStacks(t, p)
		recs, err := p.Collect()
		if err != nil {
			t.Fatal(err)
		}
		calls := uint64(0)
		for _, r := range recs[1] {
			if r.Class == "fsync" && r.Stage == "" {
				calls = r.Calls
			}
		}
		if calls != 5 {
			t.Errorf("stacks %v: %d fsync calls counted, want 5", stacks, calls)
		}
		if stacks && (len(got) != 1 || got[want].Calls != 5) || !stacks && len(got) != 0 {
			t.Errorf("stacks %v: fsync's stacks %+v", stacks, got)
		}
	}
	if plain := probetest.Open(t, probe.Options{}); plain.TakeStacks(true) {
		t.Error("a probe opened without stacks says it takes them")
	}
}
