package vmtest

import (
	"archive/tar"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// KernelMeta is the Debian metapackage that always points at the current
// stock kernel; the versioned package it depends on changes with every
// Debian kernel update, so it is looked up at run time.
const KernelMeta = "linux-image-amd64"

// ParseDepends finds the versioned image package in `apt-cache depends
// linux-image-amd64` output ("  Depends: linux-image-6.1.0-57-amd64").
func ParseDepends(out string) (string, error) {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		dep, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "Depends: ")
		if !ok {
			continue
		}
		dep = strings.Trim(dep, "<>")
		if strings.HasPrefix(dep, "linux-image-") && dep != KernelMeta {
			return dep, nil
		}
	}
	return "", fmt.Errorf("no linux-image-* dependency in:\n%s", out)
}

// KernelPackage resolves the versioned image package with apt-cache.
func KernelPackage() (string, error) {
	out, err := exec.Command("apt-cache", "depends", KernelMeta).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("apt-cache depends %s: %v: %s", KernelMeta, err, out)
	}
	return ParseDepends(string(out))
}

// FetchKernel returns the path of the stock kernel image, cached under
// cache/<package>/vmlinuz. The first time it downloads the package (~70 MB)
// and unpacks only boot/vmlinuz-*: installing the metapackage would pull
// ~400 MB of initramfs tools and systemd.
func FetchKernel(cache string) (string, error) {
	pkg, err := KernelPackage()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, pkg)
	vmlinuz := filepath.Join(dir, "vmlinuz")
	if _, err := os.Stat(vmlinuz); err == nil {
		return vmlinuz, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	dl, err := os.MkdirTemp(dir, "download-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dl)
	get := exec.Command("apt-get", "download", "-q", pkg)
	if os.Geteuid() == 0 {
		// apt drops to _apt for downloads, which cannot write here.
		get.Args = append(get.Args, "-o", "APT::Sandbox::User=root")
	}
	get.Dir = dl
	if out, err := get.CombinedOutput(); err != nil {
		return "", fmt.Errorf("apt-get download %s: %v: %s", pkg, err, out)
	}
	debs, _ := filepath.Glob(filepath.Join(dl, "*.deb"))
	if len(debs) != 1 {
		return "", fmt.Errorf("apt-get download %s left %d .deb files", pkg, len(debs))
	}
	if err := extractVmlinuz(debs[0], vmlinuz+".tmp"); err != nil {
		return "", err
	}
	return vmlinuz, os.Rename(vmlinuz+".tmp", vmlinuz)
}

// extractVmlinuz copies ./boot/vmlinuz-* out of a kernel .deb.
func extractVmlinuz(deb, dst string) error {
	cmd := exec.Command("dpkg-deb", "--fsys-tarfile", deb)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	found, err := copyFromTar(out, "./boot/vmlinuz-", dst)
	io.Copy(io.Discard, out)
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("dpkg-deb --fsys-tarfile %s: %w", deb, werr)
	}
	if err == nil && !found {
		err = errors.New("no boot/vmlinuz-* in " + deb)
	}
	return err
}

func copyFromTar(r io.Reader, prefix, dst string) (bool, error) {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if h.Typeflag != tar.TypeReg || !strings.HasPrefix(h.Name, prefix) {
			continue
		}
		f, err := os.Create(dst)
		if err != nil {
			return false, err
		}
		if _, err := io.Copy(f, tr); err != nil {
			f.Close()
			return false, err
		}
		return true, f.Close()
	}
}
