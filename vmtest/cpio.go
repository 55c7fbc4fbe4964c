// Package vmtest boots Debian's stock kernels (5.10, 6.1 and 6.12, x86-64
// and arm64) under QEMU with tmpprobe as the guest's workload and checks
// that every backend counts the same on each, and as strace does
// (vmtest_test.go, build tag vmtest). These files are the parts without
// QEMU: the initramfs writer, the Debian archive and kernel package
// lookups, and the console and strace parsers.
package vmtest

import (
	"fmt"
	"io"
)

// Cpio writes a "newc" cpio archive, the format the kernel unpacks as an
// initramfs (Documentation/driver-api/early-userspace/buffer-format.rst).
type Cpio struct {
	w   io.Writer
	ino uint32
	err error
}

// NewCpio starts an archive on w; Close writes the trailer.
func NewCpio(w io.Writer) *Cpio { return &Cpio{w: w, ino: 1} }

const (
	modeDir  = 0o040000
	modeFile = 0o100000
	modeChar = 0o020000
	modeLink = 0o120000
)

// Dir adds a directory.
func (c *Cpio) Dir(name string, perm uint32) { c.entry(name, modeDir|perm, 0, 0, nil) }

// File adds a regular file.
func (c *Cpio) File(name string, perm uint32, data []byte) { c.entry(name, modeFile|perm, 0, 0, data) }

// Symlink adds a symbolic link to target (the shared libraries' sonames).
func (c *Cpio) Symlink(name, target string) { c.entry(name, modeLink|0o777, 0, 0, []byte(target)) }

// CharDev adds a character device node, e.g. dev/console (5, 1), which the
// kernel opens for init's stdio before init could mount devtmpfs.
func (c *Cpio) CharDev(name string, perm, major, minor uint32) {
	c.entry(name, modeChar|perm, major, minor, nil)
}

// Close writes the trailer and returns the first error.
func (c *Cpio) Close() error {
	c.entry("TRAILER!!!", 0, 0, 0, nil)
	return c.err
}

func (c *Cpio) entry(name string, mode, rmajor, rminor uint32, data []byte) {
	if c.err != nil {
		return
	}
	nlink := uint32(1)
	if mode&modeDir != 0 {
		nlink = 2
	}
	// magic, ino, mode, uid, gid, nlink, mtime, filesize, devmajor,
	// devminor, rdevmajor, rdevminor, namesize, check.
	hdr := fmt.Sprintf("070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		c.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rmajor, rminor, len(name)+1, 0)
	c.ino++
	c.write([]byte(hdr))
	c.write(append([]byte(name), 0))
	c.pad(len(hdr) + len(name) + 1)
	c.write(data)
	c.pad(len(data))
}

func (c *Cpio) write(b []byte) {
	if c.err == nil {
		_, c.err = c.w.Write(b)
	}
}

// pad aligns to 4 bytes, as newc wants after the name and after the data.
func (c *Cpio) pad(n int) {
	if r := n % 4; r != 0 {
		c.write(make([]byte, 4-r))
	}
}
