package pyinterp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// debugOffsets313 mirrors 3.13's _Py_DebugOffsets (Include/internal/
// pycore_runtime.h), the first member of _PyRuntimeState, statically
// initialised: readable from the file's .data before any process runs
// it. Its own layout holds within a minor version only (3.14 adds
// members), so a reader needs a mirror per minor version; what it spares
// is every offset inside the interpreter's structures.
type debugOffsets313 struct {
	Cookie       [8]byte
	Version      uint64
	FreeThreaded uint64
	RuntimeState struct {
		Size, Finalizing, InterpretersHead uint64
	}
	InterpreterState struct {
		Size, ID, Next, ThreadsHead, GC, ImportsModules, Sysdict, Builtins,
		CevalGil, GilRuntimeState, GilEnabled, GilLocked, GilHolder uint64
	}
	ThreadState struct {
		Size, Prev, Next, Interp, CurrentFrame, ThreadID, NativeThreadID,
		DatastackChunk, Status uint64
	}
	InterpreterFrame struct {
		Size, Previous, Executable, InstrPtr, Localsplus, Owner uint64
	}
	CodeObject struct {
		Size, Filename, Name, Qualname, Linetable, Firstlineno, Argcount,
		Localsplusnames, Localspluskinds, CoCodeAdaptive uint64
	}
	PyObject struct {
		Size, ObType uint64
	}
	TypeObject struct {
		Size, TpName, TpRepr, TpFlags uint64
	}
	TupleObject struct {
		Size, ObItem, ObSize uint64
	}
	ListObject struct {
		Size, ObItem, ObSize uint64
	}
	DictObject struct {
		Size, MaKeys, MaValues uint64
	}
	FloatObject struct {
		Size, ObFval uint64
	}
	LongObject struct {
		Size, LvTag, ObDigit uint64
	}
	BytesObject struct {
		Size, ObSize, ObSval uint64
	}
	UnicodeObject struct {
		Size, State, Length, ASCIIObjectSize uint64
	}
}

var debugCookie = []byte("xdebugpy")

// errFreeThreaded: 3.13t's frames and thread states are laid out
// otherwise, and the walker does not read them.
var errFreeThreaded = errors.New("a free-threaded build (3.13t): its frames are not read")

// parseDebugOffsets decodes a 3.13 _Py_DebugOffsets into Offsets; what it
// does not publish comes from base (the header table): the value of
// FRAME_OWNED_BY_CSTACK and PyCompactUnicodeObject's size. It returns
// PY_VERSION_HEX too.
func parseDebugOffsets(buf []byte, base Offsets) (Offsets, uint64, error) {
	var d debugOffsets313
	if err := binary.Read(bytes.NewReader(buf), binary.LittleEndian, &d); err != nil {
		return Offsets{}, 0, err
	}
	if !bytes.Equal(d.Cookie[:], debugCookie) {
		return Offsets{}, 0, fmt.Errorf("no _Py_DebugOffsets cookie at _PyRuntime (%q)", d.Cookie[:])
	}
	if d.FreeThreaded != 0 {
		return Offsets{}, 0, errFreeThreaded
	}
	o := base
	o.RuntimeInterpretersHead = d.RuntimeState.InterpretersHead
	o.InterpNext = d.InterpreterState.Next
	o.InterpThreadsHead = d.InterpreterState.ThreadsHead
	o.TstateNext = d.ThreadState.Next
	o.TstateInterp = d.ThreadState.Interp
	o.TstateThreadID = d.ThreadState.ThreadID
	o.TstateNativeThreadID = d.ThreadState.NativeThreadID
	o.TstateFrame = d.ThreadState.CurrentFrame
	o.TstateFrameIsCframe = 0
	o.FrameIsInterp = 1
	o.FramePrevious = d.InterpreterFrame.Previous
	o.FrameCode = d.InterpreterFrame.Executable
	o.FrameInstr = d.InterpreterFrame.InstrPtr
	o.FrameOwner = d.InterpreterFrame.Owner
	o.CodeAdaptive = d.CodeObject.CoCodeAdaptive
	o.CodeQualname = d.CodeObject.Qualname
	o.CodeLinetable = d.CodeObject.Linetable
	o.CodeFilename = d.CodeObject.Filename
	o.CodeName = d.CodeObject.Name
	o.CodeFirstLineno = d.CodeObject.Firstlineno
	o.ObjectType = d.PyObject.ObType
	o.VarObjectSize = d.BytesObject.ObSize
	o.BytesSval = d.BytesObject.ObSval
	o.UnicodeLength = d.UnicodeObject.Length
	o.UnicodeState = d.UnicodeObject.State
	o.UnicodeASCIISize = d.UnicodeObject.ASCIIObjectSize
	return o, d.Version, nil
}
