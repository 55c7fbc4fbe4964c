package pyinterp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/tmpprobe/tmpprobe/internal/procmaps"
)

// Process is one running CPython process.
type Process struct {
	*Interp
	Pid  int
	Bias uint64 // where the file's vaddr 0 is in the process
	// Reused counts code addresses found holding another code object
	// than when first read.
	Reused atomic.Int64

	mem   procmaps.Mem
	mu    sync.Mutex
	codes map[uint64]*Code
}

// Find looks for _PyRuntime in pid's executable and any libpython it has
// mapped: ErrNotPython where there is none, an error that says why where
// it is a CPython whose frames are not read.
func Find(pid int) (*Process, error) {
	maps, err := procmaps.Read(pid)
	if err != nil {
		return nil, err
	}
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	seen := map[string]bool{}
	for _, m := range maps {
		if m.Path == "" || seen[m.Path] {
			continue
		}
		seen[m.Path] = true
		if m.Path != exe && !pyName.MatchString(filepath.Base(m.Path)) {
			continue
		}
		in, err := OpenInterp(procmaps.FilePath(pid, m.Path))
		if errors.Is(err, ErrNotPython) {
			continue
		}
		if err != nil {
			return nil, err
		}
		bias, err := in.bias(maps, m.Path)
		if err != nil {
			return nil, err
		}
		return &Process{Interp: in, Pid: pid, Bias: bias, mem: procmaps.Mem{Pid: pid}, codes: map[uint64]*Code{}}, nil
	}
	return nil, ErrNotPython
}

// bias is where the file's vaddr 0 landed in the process.
func (in *Interp) bias(maps []procmaps.Mapping, path string) (uint64, error) {
	if in.exec {
		return 0, nil
	}
	align := max(in.first.Align, 1)
	for _, m := range maps {
		if m.Path == path && m.Offset == in.first.Off&^(align-1) {
			return m.Start - in.first.Vaddr&^(align-1), nil
		}
	}
	return 0, fmt.Errorf("%s: its first segment is not mapped", path)
}

// RuntimeAddr is the process's address of _PyRuntime.
func (p *Process) RuntimeAddr() uint64 { return p.Bias + p.Runtime }

// CodeTypeAddr is the process's address of PyCode_Type.
func (p *Process) CodeTypeAddr() uint64 { return p.Bias + p.CodeType }

// Layout is what the BPF walker needs for this process.
func (p *Process) Layout() Layout {
	l := p.Template()
	l.RuntimeAddr += p.Bias
	l.CodeTypeAddr += p.Bias
	return l
}

// Thread is one PyThreadState as user space reads it.
type Thread struct {
	Addr, ThreadID, NativeTID, Frame uint64
}

// Threads walks _PyRuntime's interpreters and their thread states,
// checking each state's interp back-pointer: a wrong offset shows here,
// not as silent garbage in BPF.
func (p *Process) Threads() ([]Thread, error) {
	o := p.Off
	interp, err := p.mem.U64(p.RuntimeAddr() + o.RuntimeInterpretersHead)
	if err != nil {
		return nil, err
	}
	var out []Thread
	for i := 0; interp != 0 && i < 8; i++ {
		ts, err := p.mem.U64(interp + o.InterpThreadsHead)
		if err != nil {
			return nil, err
		}
		for j := 0; ts != 0 && j < 1024; j++ {
			back, err := p.mem.U64(ts + o.TstateInterp)
			if err != nil {
				return nil, err
			}
			if back != interp {
				return nil, fmt.Errorf("thread state %#x: interp %#x, not %#x: wrong offsets for 3.%d", ts, back, interp, p.Minor)
			}
			t := Thread{Addr: ts}
			t.ThreadID, _ = p.mem.U64(ts + o.TstateThreadID)
			if o.TstateNativeThreadID != 0 {
				t.NativeTID, _ = p.mem.U64(ts + o.TstateNativeThreadID)
			}
			t.Frame, _ = p.mem.U64(ts + o.TstateFrame)
			if o.TstateFrameIsCframe != 0 && t.Frame != 0 {
				t.Frame, _ = p.mem.U64(t.Frame + o.CframeCurrentFrame)
			}
			out = append(out, t)
			if ts, err = p.mem.U64(ts + o.TstateNext); err != nil {
				return nil, err
			}
		}
		if interp, err = p.mem.U64(interp + o.InterpNext); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Validate checks the layout against the live process: thread states
// link back to their interpreter, native thread ids (3.11+) are threads
// of the process, and every frame of every thread names a code object.
// It returns the number of frames checked.
func (p *Process) Validate() (int, error) {
	threads, err := p.Threads()
	if err != nil {
		return 0, err
	}
	if len(threads) == 0 {
		return 0, errors.New("no thread states yet")
	}
	frames := 0
	for _, t := range threads {
		if p.Off.TstateNativeThreadID != 0 && t.NativeTID != 0 {
			if _, err := os.Stat(fmt.Sprintf("/proc/%d/task/%d", p.Pid, t.NativeTID)); err != nil {
				return frames, fmt.Errorf("thread state %#x: native_thread_id %d is no thread of %d", t.Addr, t.NativeTID, p.Pid)
			}
		}
		f := t.Frame
		for i := 0; f != 0 && i < 256; i++ {
			code, err := p.mem.U64(f + p.Off.FrameCode)
			if err != nil {
				return frames, err
			}
			prev, err := p.mem.U64(f + p.Off.FramePrevious)
			if err != nil {
				return frames, err
			}
			shim := false
			if p.Off.FrameIsInterp != 0 {
				var owner [1]byte
				if err := p.mem.ReadAt(owner[:], f+p.Off.FrameOwner); err != nil {
					return frames, err
				}
				shim = uint64(owner[0]) == p.Off.FrameOwnerCstack
			}
			if !shim {
				typ, err := p.mem.U64(code + p.Off.ObjectType)
				if err != nil {
					return frames, err
				}
				if typ != p.CodeTypeAddr() {
					return frames, fmt.Errorf("frame %#x: %#x is not a code object (type %#x, PyCode_Type %#x)", f, code, typ, p.CodeTypeAddr())
				}
				frames++
			}
			f = prev
		}
	}
	return frames, nil
}

// Code returns the code object now at addr. A kept answer is used only
// after its identity is read again (type, name, file and line table
// pointers, first line: one read), so an address freed and reused is
// named afresh rather than given the old name.
func (p *Process) Code(addr uint64) (*Code, error) {
	o := p.Off
	hdr := make([]byte, p.codeHeaderSize())
	if err := p.mem.ReadAt(hdr, addr); err != nil {
		return nil, err
	}
	u64 := func(off uint64) uint64 { return binary.LittleEndian.Uint64(hdr[off:]) }
	id := codeID{typ: u64(o.ObjectType), filename: u64(o.CodeFilename), name: u64(p.nameOffset()),
		linetable: u64(o.CodeLinetable), first: binary.LittleEndian.Uint32(hdr[o.CodeFirstLineno:])}
	if p.Minor >= 11 {
		id.size = u64(o.VarObjectSize)
	}
	if id.typ != p.CodeTypeAddr() {
		return nil, fmt.Errorf("%#x is not a code object", addr)
	}
	p.mu.Lock()
	c, ok := p.codes[addr]
	p.mu.Unlock()
	if ok {
		if c.id == id {
			return c, nil
		}
		p.Reused.Add(1)
	}
	c = &Code{minor: p.Minor, id: id, FirstLine: int(int32(id.first)), Units: int(id.size)}
	var err error
	if c.Qualname, err = p.unicode(id.name); err != nil {
		return nil, err
	}
	if c.Filename, err = p.unicode(id.filename); err != nil {
		return nil, err
	}
	if c.table, err = p.bytesObject(id.linetable); err != nil {
		return nil, err
	}
	p.mu.Lock()
	p.codes[addr] = c
	p.mu.Unlock()
	return c, nil
}

// unicode reads a compact str (every identifier and file name is one):
// PyASCIIObject.state holds kind (bits 2-4), compact (5), ascii (6) in
// every version 3.8-3.13; the characters follow the PyASCIIObject header
// (ascii) or the PyCompactUnicodeObject header (1, 2 or 4 bytes each).
func (p *Process) unicode(obj uint64) (string, error) {
	o := p.Off
	n, err := p.mem.U64(obj + o.UnicodeLength)
	if err != nil {
		return "", err
	}
	state, err := p.mem.U32(obj + o.UnicodeState)
	if err != nil {
		return "", err
	}
	kind, compact, ascii := (state>>2)&7, (state>>5)&1, (state>>6)&1
	if compact == 0 || n > 1<<16 {
		return "", fmt.Errorf("str at %#x: not compact or too long", obj)
	}
	start := o.UnicodeCompactSize
	if ascii == 1 {
		kind, start = 1, o.UnicodeASCIISize
	}
	b := make([]byte, n*uint64(kind))
	if err := p.mem.ReadAt(b, obj+start); err != nil {
		return "", err
	}
	s, ok := decodeStr(b, uint32(n), uint8(kind))
	if !ok {
		return "", fmt.Errorf("str at %#x: kind %d", obj, kind)
	}
	return s, nil
}

func (p *Process) bytesObject(obj uint64) ([]byte, error) {
	n, err := p.mem.U64(obj + p.Off.VarObjectSize)
	if err != nil {
		return nil, err
	}
	if n > 1<<20 {
		return nil, fmt.Errorf("bytes at %#x: %d bytes", obj, n)
	}
	b := make([]byte, n)
	return b, p.mem.ReadAt(b, obj+p.Off.BytesSval)
}
