package vmtest

import (
	"archive/tar"
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// GuestTool is a program the guest runs besides tmpprobe: strace, whose
// counts the guest's runs are held to. It comes from Debian's bookworm
// packages for the guest's architecture with the shared libraries it
// needs (glibc's loader among them), unpacked into a tree the initramfs
// takes whole.
const GuestTool = "strace"

// ParseDependsAll lists every package `apt-cache depends PKG` names as a
// dependency (virtual ones, in <>, left out).
func ParseDependsAll(out string) []string {
	var deps []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(sc.Text()), "|"))
		dep, ok := strings.CutPrefix(line, "Depends: ")
		if ok && !strings.HasPrefix(dep, "<") {
			deps = append(deps, dep)
		}
	}
	return deps
}

// closure is pkg and everything it depends on, through the archive.
func (a Archive) closure(cache, pkg string) ([]string, error) {
	seen := map[string]bool{pkg: true}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out, err := exec.Command("apt-cache", append(a.aptOptions(cache), "depends", p)...).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("apt-cache depends %s (%s %s): %v: %s", p, a.Release, a.Arch, err, out)
		}
		for _, d := range ParseDependsAll(string(out)) {
			if !seen[d] {
				seen[d] = true
				queue = append(queue, d)
			}
		}
	}
	var out []string
	for p := range seen {
		out = append(out, p)
	}
	return out, nil
}

// GuestFile reports whether a path of a package goes into the guest: the
// tool itself, and shared objects (not glibc's gconv and audit modules).
func GuestFile(name string) bool {
	name = strings.TrimPrefix(name, ".")
	if name == "/usr/bin/"+GuestTool {
		return true
	}
	if !strings.HasPrefix(name, "/lib") && !strings.HasPrefix(name, "/usr/lib") {
		return false
	}
	return strings.Contains(path.Base(name), ".so") && !strings.Contains(name, "/gconv/") && !strings.Contains(name, "/audit/")
}

// FetchGuestTool unpacks GuestTool and its libraries for a's architecture
// into cache/guest-<release>-<arch>/root (once) and returns that root.
func FetchGuestTool(cache string, a Archive) (string, error) {
	dir := filepath.Join(cache, "guest-"+a.Release+"-"+a.Arch)
	root := filepath.Join(dir, "root")
	if _, err := os.Stat(filepath.Join(root, "usr", "bin", GuestTool)); err == nil {
		return root, nil
	}
	if err := a.update(cache); err != nil {
		return "", err
	}
	pkgs, err := a.closure(cache, GuestTool)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	dl, err := os.MkdirTemp(dir, "download-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dl)
	if err := a.Download(cache, dl, pkgs...); err != nil {
		return "", err
	}
	tmp := root + ".tmp"
	os.RemoveAll(tmp)
	debs, _ := filepath.Glob(filepath.Join(dl, "*.deb"))
	for _, deb := range debs {
		if err := unpackGuestFiles(deb, tmp); err != nil {
			return "", err
		}
	}
	os.RemoveAll(root)
	return root, os.Rename(tmp, root)
}

// unpackGuestFiles copies a package's GuestFile files and symlinks under root.
func unpackGuestFiles(deb, root string) error {
	return debEach(deb, func(h *tar.Header, r io.Reader) error {
		if !GuestFile(h.Name) {
			return nil
		}
		dst := filepath.Join(root, filepath.Clean("/"+h.Name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		switch h.Typeflag {
		case tar.TypeSymlink:
			return os.Symlink(h.Linkname, dst)
		case tar.TypeReg:
			f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
			if err != nil {
				return err
			}
			_, err = io.Copy(f, r)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			return err
		}
		return nil
	})
}
