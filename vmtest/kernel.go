package vmtest

import (
	"archive/tar"
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// StockKernels are the Debian metapackages whose kernels the test boots:
// bookworm's own 6.1, and the 6.12 that bookworm-security serves to
// bookworm (the kernel of the next release, the newest Debian ships).
// A metapackage always points at the current build; the versioned package
// it depends on changes with every Debian kernel update, so it is looked
// up at run time.
var StockKernels = []string{"linux-image-amd64", "linux-image-6.12-amd64"}

// ParseDepends finds the versioned image package in `apt-cache depends
// META` output ("  Depends: linux-image-6.1.0-57-amd64").
func ParseDepends(out, meta string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		dep, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Depends: ")
		if !ok {
			continue
		}
		dep = strings.Trim(dep, "<>")
		if strings.HasPrefix(dep, "linux-image-") && dep != meta {
			return dep, nil
		}
	}
	return "", fmt.Errorf("no linux-image-* dependency in:\n%s", out)
}

// KernelPackage resolves a metapackage's versioned image package with
// apt-cache.
func KernelPackage(meta string) (string, error) {
	out, err := exec.Command("apt-cache", "depends", meta).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("apt-cache depends %s: %v: %s", meta, err, out)
	}
	return ParseDepends(string(out), meta)
}

// Kernel is a stock kernel unpacked from its package.
type Kernel struct {
	Package string // the versioned package, linux-image-6.1.0-57-amd64
	Vmlinuz string
	Config  string // its boot/config-*: what it was built with
}

// HasConfig reports whether the kernel was built with option=y.
func (k Kernel) HasConfig(option string) (bool, error) {
	b, err := os.ReadFile(k.Config)
	if err != nil {
		return false, err
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		if string(line) == option+"=y" {
			return true, nil
		}
	}
	return false, nil
}

// FetchKernel returns the current kernel of meta, cached under
// cache/<package>/ (vmlinuz and config). The first time it downloads the
// package (70–110 MB) and unpacks only boot/vmlinuz-* and boot/config-*:
// installing it would pull ~400 MB of initramfs tools and systemd.
func FetchKernel(cache, meta string) (Kernel, error) {
	pkg, err := KernelPackage(meta)
	if err != nil {
		return Kernel{}, err
	}
	dir := filepath.Join(cache, pkg)
	k := Kernel{Package: pkg, Vmlinuz: filepath.Join(dir, "vmlinuz"), Config: filepath.Join(dir, "config")}
	_, errV := os.Stat(k.Vmlinuz)
	_, errC := os.Stat(k.Config)
	if errV == nil && errC == nil {
		return k, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return k, err
	}
	dl, err := os.MkdirTemp(dir, "download-")
	if err != nil {
		return k, err
	}
	defer os.RemoveAll(dl)
	get := exec.Command("apt-get", "download", "-q", pkg)
	if os.Geteuid() == 0 {
		// apt drops to _apt for downloads, which cannot write here.
		get.Args = append(get.Args, "-o", "APT::Sandbox::User=root")
	}
	get.Dir = dl
	if out, err := get.CombinedOutput(); err != nil {
		return k, fmt.Errorf("apt-get download %s: %v: %s", pkg, err, out)
	}
	debs, _ := filepath.Glob(filepath.Join(dl, "*.deb"))
	if len(debs) != 1 {
		return k, fmt.Errorf("apt-get download %s left %d .deb files", pkg, len(debs))
	}
	want := map[string]string{"./boot/vmlinuz-": k.Vmlinuz, "./boot/config-": k.Config}
	if err := extractBoot(debs[0], want); err != nil {
		return k, err
	}
	return k, nil
}

// extractBoot copies the files of a kernel .deb whose names start with a
// prefix of want to want[prefix], each through a temp name, so an
// interrupted run never leaves half a kernel in the cache.
func extractBoot(deb string, want map[string]string) error {
	cmd := exec.Command("dpkg-deb", "--fsys-tarfile", deb)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	found, err := copyFromTar(out, want)
	io.Copy(io.Discard, out)
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("dpkg-deb --fsys-tarfile %s: %w", deb, werr)
	}
	for prefix, dst := range want {
		if err == nil && !found[prefix] {
			err = errors.New("no " + prefix + "* in " + deb)
		}
		if err == nil {
			err = os.Rename(dst+".tmp", dst)
		}
		os.Remove(dst + ".tmp")
	}
	return err
}

// copyFromTar writes the first regular file under each prefix of want to
// want[prefix] + ".tmp" and says which prefixes it found.
func copyFromTar(r io.Reader, want map[string]string) (map[string]bool, error) {
	found := map[string]bool{}
	tr := tar.NewReader(r)
	for len(found) < len(want) {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return found, err
		}
		for prefix, dst := range want {
			if h.Typeflag != tar.TypeReg || found[prefix] || !strings.HasPrefix(h.Name, prefix) {
				continue
			}
			f, err := os.Create(dst + ".tmp")
			if err != nil {
				return found, err
			}
			if _, err := io.Copy(f, tr); err != nil {
				f.Close()
				return found, err
			}
			if err := f.Close(); err != nil {
				return found, err
			}
			found[prefix] = true
		}
	}
	return found, nil
}
