//go:build linux

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// #37: make uninstall with a glob in DESTDIR removed every match of it.
// The Makefile quotes the path: DESTDIR names one directory, a quote in
// it included, and install and uninstall touch that one alone.
func TestInstallPathIsOnePath(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make")
	}
	base := t.TempDir()
	others := []string{"a1", "a2"}
	for _, d := range others {
		p := filepath.Join(base, d, "bin", "tmpprobe")
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("another"), 0o755)
	}
	make := func(target, destdir string) {
		t.Helper()
		cmd := exec.Command("make", "-s", "-C", "../..", target, "DESTDIR="+destdir, "BINDIR=/bin")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make %s DESTDIR=%q: %v\n%s", target, destdir, err, out)
		}
	}
	if _, err := os.Stat("../../tmpprobe"); err != nil {
		t.Skip("no ./tmpprobe built in the clone")
	}
	for _, destdir := range []string{filepath.Join(base, "a*"), filepath.Join(base, "it's here")} {
		make("install", destdir)
		if _, err := os.Stat(filepath.Join(destdir, "bin", "tmpprobe")); err != nil {
			t.Errorf("make install DESTDIR=%q: %v", destdir, err)
		}
		make("uninstall", destdir)
		if _, err := os.Stat(filepath.Join(destdir, "bin", "tmpprobe")); !os.IsNotExist(err) {
			t.Errorf("make uninstall DESTDIR=%q left it: %v", destdir, err)
		}
	}
	for _, d := range others {
		if _, err := os.Stat(filepath.Join(base, d, "bin", "tmpprobe")); err != nil {
			t.Errorf("make uninstall DESTDIR=%q removed %s's: %v", filepath.Join(base, "a*"), d, err)
		}
	}
}
