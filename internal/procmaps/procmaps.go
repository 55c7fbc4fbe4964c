// Package procmaps reads another process's address space as the kernel
// shows it: its mappings (/proc/PID/maps) and its memory
// (process_vm_readv).
package procmaps

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Mapping is one line of /proc/PID/maps.
type Mapping struct {
	Start, End, Offset uint64
	Perms              string
	Path               string
}

// Read reads /proc/PID/maps.
func Read(pid int) ([]Mapping, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Mapping
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		start, end, ok := strings.Cut(fields[0], "-")
		s, err1 := strconv.ParseUint(start, 16, 64)
		e, err2 := strconv.ParseUint(end, 16, 64)
		off, err3 := strconv.ParseUint(fields[2], 16, 64)
		if !ok || err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("/proc/%d/maps: bad line %q", pid, sc.Text())
		}
		m := Mapping{Start: s, End: e, Offset: off, Perms: fields[1]}
		if len(fields) >= 6 {
			m.Path = strings.Join(fields[5:], " ")
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

// Find returns the mapping that holds addr.
func Find(maps []Mapping, addr uint64) (Mapping, bool) {
	for _, m := range maps {
		if addr >= m.Start && addr < m.End {
			return m, true
		}
	}
	return Mapping{}, false
}

// FilePath is where pid's mapped file path can be opened from here: its
// mount namespace may not be ours (a container's).
func FilePath(pid int, path string) string {
	return fmt.Sprintf("/proc/%d/root%s", pid, path)
}

// Mem reads process Pid's memory.
type Mem struct{ Pid int }

// ReadAt fills b from addr; a short read is an error.
func (m Mem) ReadAt(b []byte, addr uint64) error {
	if len(b) == 0 {
		return nil
	}
	local := []unix.Iovec{{Base: &b[0], Len: uint64(len(b))}}
	remote := []unix.RemoteIovec{{Base: uintptr(addr), Len: len(b)}}
	n, err := unix.ProcessVMReadv(m.Pid, local, remote, 0)
	if err != nil {
		return fmt.Errorf("reading pid %d at %#x: %w", m.Pid, addr, err)
	}
	if n != len(b) {
		return fmt.Errorf("reading pid %d at %#x: %d of %d bytes", m.Pid, addr, n, len(b))
	}
	return nil
}

// U64 reads a little-endian 64-bit word.
func (m Mem) U64(addr uint64) (uint64, error) {
	var b [8]byte
	if err := m.ReadAt(b[:], addr); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b[:]), nil
}

// U32 reads a little-endian 32-bit word.
func (m Mem) U32(addr uint64) (uint32, error) {
	var b [4]byte
	if err := m.ReadAt(b[:], addr); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b[:]), nil
}
