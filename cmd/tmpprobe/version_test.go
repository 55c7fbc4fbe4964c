//go:build linux

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/probe"
)

// tmpprobe --version names the build from what the go command stamped into
// it. The stamp needs a real checkout (cmd/go does not take a git worktree,
// whose .git is a file, for one), so the test copies the tree under test
// into a fresh repository, commits it and builds there: once clean, once
// with an uncommitted change.
func TestVersion(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git: nothing to stamp a revision from")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := git("-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	tmp := t.TempDir()
	src := filepath.Join(tmp, "src")
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		b, err := os.ReadFile(filepath.Join(root, f))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(src, f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "tree under test")
	rev := git("rev-parse", "HEAD")

	obj, err := os.ReadFile(filepath.Join(root, "probe", probe.ObjectFile))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(obj)
	objHash := hex.EncodeToString(sum[:])[:16]

	version := func(arg string) string {
		t.Helper()
		exe := filepath.Join(tmp, "tmpprobe")
		// -buildvcs=true on the command line wins over a GOFLAGS that
		// turns stamping off, and fails loudly if it cannot stamp.
		build := exec.Command("go", "build", "-buildvcs=true", "-o", exe, "./cmd/tmpprobe")
		build.Dir = src
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(exe, arg)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Fatalf("tmpprobe %s: %v\n%s", arg, err, stderr.String())
		}
		return stdout.String()
	}

	clean := version("--version")
	t.Logf("tmpprobe --version:\n%s", clean)
	for _, want := range []string{
		"revision  " + rev + " (",
		", clean\n",
		"go        " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n",
		"bpf       sha256:" + objHash + " ",
	} {
		if !strings.Contains(clean, want) {
			t.Errorf("tmpprobe --version lacks %q", want)
		}
	}
	if first := strings.SplitN(clean, "\n", 2)[0]; !strings.HasPrefix(first, "tmpprobe v") {
		t.Errorf("first line %q: want the module version cmd/go derives from the commit", first)
	}

	if err := os.WriteFile(filepath.Join(src, "README.md"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dirty := version("version")
	if !strings.Contains(dirty, "revision  "+rev+" (") || !strings.Contains(dirty, ", dirty: uncommitted changes\n") {
		t.Errorf("tmpprobe version with an uncommitted change:\n%s\nwant revision %s, dirty", dirty, rev)
	}
}
