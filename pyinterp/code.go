package pyinterp

import "encoding/binary"

// Code is what a code object says of itself: its name, file and line
// table.
type Code struct {
	Qualname  string // co_qualname (3.11+), else co_name
	Filename  string
	FirstLine int
	Units     int // code units (3.11+: Py_SIZE of the code object), 0 if unknown
	table     []byte
	minor     int
	id        codeID
}

// codeID is what tells two code objects at one address apart: CPython
// frees code objects (a module's top-level code once imported, exec'd
// code) and its allocator gives their memory to new ones.
type codeID struct {
	typ, filename, name, linetable uint64
	first                          uint32
	size                           uint64
}

// Mix is bpf/pyframes.bpf.h's mix(): the stamp of a code object and the
// hash of a stack are made of it.
func Mix(h, v uint64) uint64 {
	h = (h ^ v) * 0x9E3779B97F4A7C15
	return h ^ (h >> 29)
}

// Stamp is what the BPF side computes for this code object when a stack
// holding it is first taken (stamp_step): equal stamps say the object
// user space read is the one the stack held.
func (c *Code) Stamp() uint32 {
	return uint32(Mix(Mix(c.id.name, c.id.filename), uint64(c.id.first))) | 1
}

// Record is a code object as BPF copied it when a stack first held it
// (bpf/tmpprobe.h, struct code_rec): its strings' characters as far as
// the copy reaches, their lengths in characters and their kinds (bytes a
// character, 0 when the str was not read), the line table's bytes and
// its whole length.
type Record struct {
	Stamp              uint32
	FirstLine          int32
	Units              uint32
	Name, File, Table  []byte
	NameLen, FileLen   uint32
	NameKind, FileKind uint8
	TableLen           uint32
}

// FromRecord is the code object a record describes, of an interpreter
// of minor version minor; complete says its names and its whole line
// table fit in the copy (else the object itself is read, if it is still
// there: Process.Code).
func FromRecord(minor int, r *Record) (c *Code, complete bool) {
	name, nameOK := decodeStr(r.Name, r.NameLen, r.NameKind)
	file, fileOK := decodeStr(r.File, r.FileLen, r.FileKind)
	n := min(int(r.TableLen), len(r.Table))
	c = &Code{Qualname: name, Filename: file, FirstLine: int(r.FirstLine), Units: int(r.Units),
		table: append([]byte(nil), r.Table[:n]...), minor: minor}
	return c, nameOK && fileOK && int(r.TableLen) <= len(r.Table)
}

// decodeStr decodes n characters of kind bytes each (CPython's compact
// str: 1 Latin-1, 2 UCS-2, 4 UCS-4) from b, as many as b holds.
func decodeStr(b []byte, n uint32, kind uint8) (string, bool) {
	if kind != 1 && kind != 2 && kind != 4 {
		return "", false
	}
	k := int(kind)
	copied := min(int(n)*k, len(b)) / k
	r := make([]rune, copied)
	for i := range r {
		switch k {
		case 1:
			r[i] = rune(b[i])
		case 2:
			r[i] = rune(binary.LittleEndian.Uint16(b[2*i:]))
		case 4:
			r[i] = rune(binary.LittleEndian.Uint32(b[4*i:]))
		}
	}
	return string(r), copied == int(n)
}

// Line is the source line of the instruction at idx (in code units), -1
// where the compiler recorded none.
func (c *Code) Line(idx int) int {
	switch {
	case c.minor <= 9:
		return lnotabLine(c.table, c.FirstLine, idx*2)
	case c.minor == 10:
		return linetable310Line(c.table, c.FirstLine, idx*2)
	default:
		return locationsLine(c.table, c.FirstLine, idx)
	}
}
