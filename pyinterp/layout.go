package pyinterp

// Layout is where one process's CPython keeps what the BPF walker reads:
// bpf/tmpprobe.h's struct py_layout, which the probe fills from it.
type Layout struct {
	RuntimeAddr             uint64 // &_PyRuntime (a file vaddr in a Template)
	RuntimeInterpretersHead uint32
	InterpNext              uint32
	InterpThreadsHead       uint32
	TstateNext              uint32
	// TstateMatchOff is the thread state's member that names its thread:
	// native_thread_id, the kernel's tid (3.11+), or thread_id,
	// pthread_self() (3.8-3.10; MatchPthreadSelf).
	TstateMatchOff     uint32
	MatchPthreadSelf   bool
	TstateFrame        uint32
	CframeCurrentFrame uint32
	FramePrevious      uint32
	FrameCode          uint32
	FrameInstr         uint32
	FrameOwner         uint32
	FrameReadSize      uint32
	CodeAdaptive       uint32
	CodeTypeAddr       uint64 // &PyCode_Type (a file vaddr in a Template)
	CodeReadSize       uint32
	ObjectType         uint32
	CodeName           uint32 // co_qualname where it exists, else co_name
	CodeFilename       uint32
	CodeFirstLineno    uint32
	CodeLinetable      uint32
	VarObjectSize      uint32
	BytesSval          uint32
	UnicodeLength      uint32
	UnicodeState       uint32
	UnicodeASCIISize   uint32
	UnicodeCompactSize uint32
	CodeSizeIsUnits    bool // 3.11+
	Minor              uint8
	FrameIsCframe      bool // 3.11, 3.12: tstate->cframe->current_frame
	FrameIsInterp      bool // 3.11+: _PyInterpreterFrame, the instruction a pointer
	OwnerCstack        uint8
	LastiShift         uint8 // 3.8, 3.9: f_lasti counts bytes
}

// Template is the layout with the file's vaddrs where addresses go: a
// uprobe at one of Entries adds the load bias it sees, and Process.Layout
// the bias the process's mappings show.
func (in *Interp) Template() Layout {
	o := in.Off
	l := Layout{
		RuntimeAddr:             in.Runtime,
		RuntimeInterpretersHead: uint32(o.RuntimeInterpretersHead),
		InterpNext:              uint32(o.InterpNext),
		InterpThreadsHead:       uint32(o.InterpThreadsHead),
		TstateNext:              uint32(o.TstateNext),
		TstateFrame:             uint32(o.TstateFrame),
		CframeCurrentFrame:      uint32(o.CframeCurrentFrame),
		FramePrevious:           uint32(o.FramePrevious),
		FrameCode:               uint32(o.FrameCode),
		FrameInstr:              uint32(o.FrameInstr),
		FrameOwner:              uint32(o.FrameOwner),
		CodeAdaptive:            uint32(o.CodeAdaptive),
		CodeTypeAddr:            in.CodeType,
		CodeReadSize:            uint32(in.codeHeaderSize()),
		ObjectType:              uint32(o.ObjectType),
		CodeName:                uint32(in.nameOffset()),
		CodeFilename:            uint32(o.CodeFilename),
		CodeFirstLineno:         uint32(o.CodeFirstLineno),
		CodeLinetable:           uint32(o.CodeLinetable),
		VarObjectSize:           uint32(o.VarObjectSize),
		BytesSval:               uint32(o.BytesSval),
		UnicodeLength:           uint32(o.UnicodeLength),
		UnicodeState:            uint32(o.UnicodeState),
		UnicodeASCIISize:        uint32(o.UnicodeASCIISize),
		UnicodeCompactSize:      uint32(o.UnicodeCompactSize),
		FrameIsCframe:           o.TstateFrameIsCframe != 0,
		FrameIsInterp:           o.FrameIsInterp != 0,
		OwnerCstack:             uint8(o.FrameOwnerCstack),
		CodeSizeIsUnits:         in.Minor >= 11,
		Minor:                   uint8(in.Minor),
	}
	l.TstateMatchOff = uint32(o.TstateNativeThreadID)
	if o.TstateNativeThreadID == 0 {
		l.TstateMatchOff, l.MatchPthreadSelf = uint32(o.TstateThreadID), true
	}
	// The read covers every member used and no more: a frame at the end
	// of a mapped page must not fail it.
	end := max(o.FramePrevious, o.FrameCode, o.FrameInstr) + 8
	if o.FrameIsInterp != 0 {
		end = max(end, o.FrameOwner+1)
	}
	l.FrameReadSize = uint32(end)
	if in.Minor <= 9 {
		l.LastiShift = 1 // f_lasti counts bytes before 3.10
	}
	return l
}

func (in *Interp) nameOffset() uint64 {
	if in.Off.CodeQualname != 0 {
		return in.Off.CodeQualname
	}
	return in.Off.CodeName
}

func (in *Interp) codeHeaderSize() uint64 {
	o := in.Off
	return max(o.ObjectType, o.VarObjectSize, o.CodeFilename, o.CodeName, o.CodeQualname, o.CodeLinetable, o.CodeFirstLineno) + 8
}
