//go:build linux

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/pythons"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// stackFunctions are the functions (and their weight: samples or calls)
// of an arm's stacks of class, by frame, with the file they are in.
func stackFunctions(run *results.Run, arm, class string) map[string]uint64 {
	out := map[string]uint64{}
	for _, a := range run.Arms {
		if a.Arm != arm {
			continue
		}
		for _, b := range a.Batches {
			for _, r := range b.Stacks {
				if r.Class != class {
					continue
				}
				seen := map[string]bool{}
				for _, fi := range run.Stacks.Table[r.Stack] {
					f := run.Stacks.Frames[fi]
					key := f.Function + " @" + filepath.Base(f.File)
					if !seen[key] {
						seen[key] = true
						out[key] += r.Samples + r.Calls
					}
				}
			}
		}
	}
	return out
}

// leafOf is the leaf frame of an arm's stacks of class, where they all
// have the same one ("" where they differ or there are none).
func leafOf(run *results.Run, arm, class string) string {
	leaf := ""
	for _, a := range run.Arms {
		for _, b := range a.Batches {
			for _, r := range b.Stacks {
				if a.Arm != arm || r.Class != class {
					continue
				}
				f := run.Stacks.Frames[run.Stacks.Table[r.Stack][0]]
				l := f.Function + " (" + filepath.Base(f.File) + ":" + strconv.Itoa(f.Line) + ")"
				if leaf != "" && leaf != l {
					return ""
				}
				leaf = l
			}
		}
	}
	return leaf
}

// The Python functions behind NamedTemporaryFile's user time, in every
// interpreter version the labs read, from a real run: its user-time
// samples land in tempfile's NamedTemporaryFile, _mkstemp_inner and the
// wrapper's __getattr__ (3.11 on qualify it: _TemporaryFileWrapper.
// __getattr__), and its openat[create] is made in _mkstemp_inner.
func TestNamedTemporaryFileUserStacks(t *testing.T) {
	needBPF(t)
	for _, minor := range []string{"3.8", "3.11", "3.12", "3.13"} {
		t.Run(minor, func(t *testing.T) {
			in, ok := pythons.Pyenv(minor)
			if !ok {
				t.Fatalf("no pyenv CPython %s (%s)", minor, pythons.Root())
			}
			out := filepath.Join(t.TempDir(), "run")
			args := []string{"run", "NamedTemporaryFile", "TemporaryFile", "--runtime", "python", "--python", in.Path,
				"--rounds", "24", "--min-batch", "20ms", "--dir", t.TempDir(), "--out", out, "-q"}
			if code, stdout, stderr := inProcess(args...); code != 0 {
				t.Fatalf("%v: exit %d: %s", args, code, whyFailed(stdout, stderr))
			}
			run, err := runfile.LoadRun(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, n := range run.Meta.Notes {
				if n.Kind == results.NotePythonUnread || n.Kind == results.NoteStacksRefused {
					t.Errorf("note %+v", n)
				}
			}
			if run.Stacks == nil || run.Stacks.SamplePeriodNs == 0 || run.Stacks.EveryOf(results.ClassOpenatCreate) == 0 {
				t.Fatalf("stacks %+v: want user time sampled and openat[create]'s stacks taken", run.Stacks)
			}
			getattr := "_TemporaryFileWrapper.__getattr__ @tempfile.py"
			if minor == "3.8" {
				getattr = "__getattr__ @tempfile.py" // co_name only before 3.11
			}
			user := stackFunctions(run, "NamedTemporaryFile", results.ClassUser)
			for _, want := range []string{"NamedTemporaryFile @tempfile.py", "_mkstemp_inner @tempfile.py", getattr} {
				if user[want] == 0 {
					t.Errorf("NamedTemporaryFile's user-time samples name no %s: %v", want, user)
				}
			}
			if leaf := leafOf(run, "NamedTemporaryFile", results.ClassOpenatCreate); !strings.HasPrefix(leaf, "_mkstemp_inner (tempfile.py:") {
				t.Errorf("openat[create]'s call site %q, want _mkstemp_inner in tempfile.py", leaf)
			}
			for _, s := range results.SummarizeAll(run, arms.Knowledge().Baselines) {
				t.Logf("%s: TRACED %.2f, user time in %s", s.Arm, s.Observer.Center, topOf(stackFunctions(run, s.Arm, results.ClassUser)))
			}
		})
	}
}

// With Python attribution on (user time sampled, the costly calls'
// stacks taken), TemporaryFile's TRACED, a ratio of one run's paired
// rounds, stays at 0.80 or more. (The same run without them, for the
// log: what they cost.)
func TestTracedWithStacks(t *testing.T) {
	needBPF(t)
	python3, err := pythons.Python3()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	traced := map[bool]float64{}
	for _, stacks := range []bool{false, true} {
		out := filepath.Join(t.TempDir(), "run")
		args := []string{"run", "TemporaryFile", "--runtime", "python", "--python", python3, "--rounds", "40",
			"--dir", t.TempDir(), "--out", out, "-q"}
		if !stacks {
			args = append(args, "--no-stacks")
		}
		if code, stdout, stderr := inProcess(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, whyFailed(stdout, stderr))
		}
		run, err := runfile.LoadRun(out)
		if err != nil {
			t.Fatal(err)
		}
		if (run.Stacks != nil) != stacks {
			t.Fatalf("stacks %v: run.json's %+v", stacks, run.Stacks)
		}
		traced[stacks] = results.SummarizeAll(run, arms.Knowledge().Baselines)[0].Observer.Center
	}
	t.Logf("TemporaryFile's TRACED %.2f with stacks, %.2f without", traced[true], traced[false])
	if traced[true] < 0.80 {
		t.Errorf("TemporaryFile's TRACED %.2f with Python attribution on: want 0.80 or more (%.2f without)", traced[true], traced[false])
	}
}

// The call site behind fsync in a trace: the Python function that made
// it, and its line, then its callers; the Go function that called
// (*os.File).Sync, from its pclntab. Every fsync is counted and has its
// stack taken.
func TestTraceNamesFsyncCallSite(t *testing.T) {
	needBPF(t)
	dir := t.TempDir()
	gobin := filepath.Join(dir, "gopersist")
	if out, err := exec.Command("go", "build", "-o", gobin, "../../probe/testdata/gopersist").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	python3, err := pythons.Python3()
	if err != nil {
		t.Fatalf("python3: %v", err)
	}
	py := filepath.Join(dir, "app.py")
	if err := os.WriteFile(py, []byte(`import os, sys, tempfile


def persist(d, i):
    fd = os.open(os.path.join(d, "f%d" % i), os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"x")
    os.fsync(fd)
    os.close(fd)


def scratch():
    for _ in range(50):
        with tempfile.TemporaryFile() as f:
            f.write(b"y")


for i in range(5):
    persist(sys.argv[1], i)
scratch()
`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		argv []string
		leaf string
		in   string
	}{
		{[]string{python3, py, t.TempDir()}, "persist (app.py:7)", "<module> (app.py:18)"},
		{[]string{gobin, t.TempDir()}, "", "main.persist (main.go:19)"},
	} {
		out := filepath.Join(t.TempDir(), "run")
		args := append([]string{"trace", "-q", "--out", out, "--"}, tc.argv...)
		if code, stdout, stderr := inProcess(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, whyFailed(stdout, stderr))
		}
		run, err := runfile.LoadRun(out)
		if err != nil {
			t.Fatal(err)
		}
		var calls, withStack uint64
		for _, r := range run.Arms[0].Batches[0].Records {
			if r.Class == "fsync" && r.Stage == "" {
				calls = r.Calls
			}
		}
		var texts []string
		for _, r := range run.Arms[0].Batches[0].Stacks {
			if r.Class != "fsync" {
				continue
			}
			withStack += r.Calls
			var frames []string
			for _, fi := range run.Stacks.Table[r.Stack] {
				f := run.Stacks.Frames[fi]
				frames = append(frames, f.Function+" ("+filepath.Base(f.File)+":"+strconv.Itoa(f.Line)+")")
			}
			texts = append(texts, strings.Join(frames, " <- "))
		}
		name := filepath.Base(tc.argv[0])
		if calls != 5 || withStack != 5 || len(texts) != 1 {
			t.Fatalf("%s: %d fsyncs, %d with a stack, in %d stacks: want 5, 5, one", name, calls, withStack, len(texts))
		}
		if tc.leaf != "" && !strings.HasPrefix(texts[0], tc.leaf) || !strings.Contains(texts[0], tc.in) {
			t.Errorf("%s: fsync's stack %q: want it to start at %q and hold %q", name, texts[0], tc.leaf, tc.in)
		}
	}
	// --no-stacks takes none, and counts as before.
	out := filepath.Join(t.TempDir(), "run")
	if code, stdout, stderr := inProcess("trace", "-q", "--no-stacks", "--out", out, "--", gobin, t.TempDir()); code != 0 {
		t.Fatalf("--no-stacks: exit %d: %s", code, whyFailed(stdout, stderr))
	}
	run, err := runfile.LoadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	var fsyncs uint64
	for _, r := range run.Arms[0].Batches[0].Records {
		if r.Class == "fsync" && r.Stage == "" {
			fsyncs = r.Calls
		}
	}
	if run.Stacks != nil || len(run.Arms[0].Batches[0].Stacks) > 0 || fsyncs != 5 {
		t.Errorf("--no-stacks: stacks %+v, %d fsyncs: want none, and 5 fsyncs", run.Stacks, fsyncs)
	}
}

// topOf is the heaviest few of by, for a test's log.
func topOf(by map[string]uint64) string {
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return by[keys[i]] > by[keys[j]] || by[keys[i]] == by[keys[j]] && keys[i] < keys[j]
	})
	var parts []string
	for _, k := range keys[:min(len(keys), 6)] {
		parts = append(parts, fmt.Sprintf("%s %d", k, by[k]))
	}
	return strings.Join(parts, ", ")
}
