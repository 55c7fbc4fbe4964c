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

// StockKernel is a Debian kernel the test boots: its metapackage, in the
// archive of a release and an architecture. A metapackage always points
// at the current build; the versioned package it depends on changes with
// every Debian kernel update, so it is looked up at run time.
type StockKernel struct {
	Meta string // linux-image-amd64
	Archive
	// CI: make vmtest boots it (and so CI); make vmtest-all boots all.
	CI bool
}

// Name names the kernel in subtests and TMPPROBE_VMTEST_KERNELS:
// bullseye/linux-image-amd64.
func (k StockKernel) Name() string { return k.Release + "/" + k.Meta }

// StockKernels are what make vmtest-all boots: Debian 11's 5.10 (the
// oldest tmpprobe runs on), 12's 6.1, and the 6.12 that bookworm-security
// serves to bookworm (the kernel of the next release), on x86-64; 12's 6.1
// and 6.12 on arm64. Under TCG an arm64 guest takes about twice as long as
// an x86-64 one, so make vmtest (and CI) boots the three x86-64 kernels
// and arm64's 6.12 (docs/kernels.md, "Testing the backends on stock
// kernels").
var StockKernels = []StockKernel{
	{"linux-image-amd64", Archive{"bullseye", "amd64"}, true},
	{"linux-image-amd64", Archive{"bookworm", "amd64"}, true},
	{"linux-image-6.12-amd64", Archive{"bookworm", "amd64"}, true},
	{"linux-image-6.12-arm64", Archive{"bookworm", "arm64"}, true},
	{"linux-image-arm64", Archive{"bookworm", "arm64"}, false},
}

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

// Kernel is a stock kernel unpacked from its package.
type Kernel struct {
	StockKernel
	Package string // the versioned package, linux-image-6.1.0-57-amd64
	Vmlinuz string // what QEMU boots: arm64's is an uncompressed Image
	Config  string // its boot/config-*: what it was built with
	// Modules are the guest's disk modules (virtio's block device, ext4
	// and what they depend on), uncompressed, in the order they load.
	Modules []string
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

// DiskModules are what the guest loads to mount its ext4 disk (a virtio
// block device on PCI) where the kernel has them as modules; what they
// depend on comes from their .modinfo.
var DiskModules = []string{"virtio_pci", "virtio_blk", "crc32c_generic", "ext4"}

// FetchKernel returns the current kernel of sk, cached under
// cache/<package>/ (vmlinuz, config and modules/). The first time it
// downloads the package (60–110 MB) and unpacks only boot/vmlinuz-*,
// boot/config-* and the disk modules: installing it would pull ~400 MB of
// initramfs tools and systemd.
func FetchKernel(cache string, sk StockKernel) (Kernel, error) {
	pkg, err := sk.Resolve(cache, sk.Meta)
	if err != nil {
		return Kernel{}, err
	}
	dir := filepath.Join(cache, pkg)
	k := Kernel{StockKernel: sk, Package: pkg, Vmlinuz: filepath.Join(dir, "vmlinuz"), Config: filepath.Join(dir, "config")}
	order := filepath.Join(dir, "modules", "order")
	if mods, err := os.ReadFile(order); err == nil {
		for _, m := range strings.Fields(string(mods)) {
			k.Modules = append(k.Modules, filepath.Join(dir, "modules", m))
		}
		_, errV := os.Stat(k.Vmlinuz)
		_, errC := os.Stat(k.Config)
		if errV == nil && errC == nil {
			return k, nil
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return k, err
	}
	dl, err := os.MkdirTemp(dir, "download-")
	if err != nil {
		return k, err
	}
	defer os.RemoveAll(dl)
	if err := sk.Download(cache, dl, pkg); err != nil {
		return k, err
	}
	debs, _ := filepath.Glob(filepath.Join(dl, "*.deb"))
	if len(debs) != 1 {
		return k, fmt.Errorf("apt-get download %s left %d .deb files", pkg, len(debs))
	}
	want := map[string]string{"./boot/vmlinuz-": k.Vmlinuz, "./boot/config-": k.Config}
	if err := extractBoot(debs[0], want); err != nil {
		return k, err
	}
	names, err := extractModules(debs[0], filepath.Join(dir, "modules"), DiskModules)
	if err != nil {
		return k, err
	}
	if err := os.WriteFile(order+".tmp", []byte(strings.Join(names, "\n")+"\n"), 0o644); err != nil {
		return k, err
	}
	if err := os.Rename(order+".tmp", order); err != nil {
		return k, err
	}
	k.Modules = nil
	for _, m := range names {
		k.Modules = append(k.Modules, filepath.Join(dir, "modules", m))
	}
	return k, nil
}

// extractBoot copies the files of a kernel .deb whose names start with a
// prefix of want to want[prefix], each through a temp name, so an
// interrupted run never leaves half a kernel in the cache.
func extractBoot(deb string, want map[string]string) error {
	var found map[string]bool
	err := debTar(deb, func(r io.Reader) (err error) {
		found, err = copyFromTar(r, want)
		return err
	})
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

// debTar hands read the tar of a package's files (dpkg-deb
// --fsys-tarfile), then drains it and waits for dpkg-deb.
func debTar(deb string, read func(io.Reader) error) error {
	cmd := exec.Command("dpkg-deb", "--fsys-tarfile", deb)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	err = read(out)
	io.Copy(io.Discard, out)
	if werr := cmd.Wait(); err == nil && werr != nil {
		err = fmt.Errorf("dpkg-deb --fsys-tarfile %s: %w", deb, werr)
	}
	return err
}

// debEach hands each entry of a package's files to each, in order.
func debEach(deb string, each func(h *tar.Header, r io.Reader) error) error {
	return debTar(deb, func(r io.Reader) error {
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := each(h, tr); err != nil {
				return err
			}
		}
	})
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
