// Package symbolize names the user stacks the probe takes, once, where
// the run is measured: a Python frame (a code object and an instruction)
// from the code object BPF copied when a stack first held it, or from
// the live process; a native address from the ELF symbol table, Go's
// pclntab and DWARF line tables of the file mapped there. It keeps a
// run's frames and stacks deduplicated, as results.Stacks holds them.
package symbolize

import (
	"fmt"
	"strings"
	"sync"

	"github.com/tmpprobe/tmpprobe/pyinterp"
	"github.com/tmpprobe/tmpprobe/results"
)

// PyFrame is one Python frame as BPF took it: the code object's address,
// its instruction's index in code units, and the code object's stamp
// when the stack was first taken (0: it held no code object then).
type PyFrame struct {
	Code  uint64
	Instr int
	Stamp uint32
}

// Taken is one stack as BPF took it, of process Tgid: its Python frames
// and its native return addresses, leaf first; LeafCaller, the caller of
// a frameless leaf, not on the frame-pointer chain; NoPython says why a
// Python process's stack has no Python frame, Truncated that frames
// past the last were dropped.
type Taken struct {
	Tgid       uint32
	Python     []PyFrame
	Native     []uint64
	LeafCaller uint64
	NoPython   string
	Truncated  bool
}

// Why a frame could not be named, as results.Stacks.Unresolved counts
// them.
const (
	WhyCodeGone     = "code object gone before it was read"
	WhyNotCode      = "no code object there when taken"
	WhyNoStack      = "no stack"
	WhyStackNotRead = "stack not read in time"
)

type codeKey struct {
	tgid  uint32
	addr  uint64
	stamp uint32
}

// Run is one run's naming: what it has learnt of code objects and
// processes, and the frames and stacks named so far.
type Run struct {
	mu       sync.Mutex
	codes    map[codeKey]*pyinterp.Code
	pythons  map[uint32]*pyinterp.Process // nil: not Python, or gone
	natives  map[uint32]*process
	objs     objects
	frames   []results.Frame
	frameIdx map[results.Frame]int
	table    []results.Stack
	stackIdx map[string]int
	// unresolved counts the frames of the stacks named that could not
	// be named, by why.
	unresolved map[string]uint64
}

// New starts a run's naming.
func New() *Run {
	return &Run{codes: map[codeKey]*pyinterp.Code{}, pythons: map[uint32]*pyinterp.Process{},
		natives: map[uint32]*process{}, objs: objects{byID: map[string]*object{}},
		frameIdx: map[results.Frame]int{}, stackIdx: map[string]int{}, unresolved: map[string]uint64{}}
}

// AddCode keeps a code object BPF copied, of process tgid running
// CPython 3.minor. One copied in part (a long name or line table) is
// read whole from the process, where it is still there unchanged.
func (r *Run) AddCode(tgid uint32, addr uint64, minor int, rec *pyinterp.Record) {
	c, complete := pyinterp.FromRecord(minor, rec)
	if !complete {
		if p := r.python(tgid); p != nil {
			if full, err := p.Code(addr); err == nil && full.Stamp() == rec.Stamp {
				c = full
			}
		}
	}
	r.mu.Lock()
	r.codes[codeKey{tgid, addr, rec.Stamp}] = c
	r.mu.Unlock()
}

// python is tgid's interpreter as user space reads it; nil where the
// process is gone or not Python.
func (r *Run) python(tgid uint32) *pyinterp.Process {
	r.mu.Lock()
	p, ok := r.pythons[tgid]
	r.mu.Unlock()
	if ok {
		return p
	}
	p, err := pyinterp.Find(int(tgid))
	if err != nil {
		p = nil
	}
	r.mu.Lock()
	r.pythons[tgid] = p
	r.mu.Unlock()
	return p
}

// Exec tells that process tgid became the program img at an exec (the
// ring buffer brings it in order: the stacks after it are the new
// program's). What was learnt of the old one is dropped (its mappings
// would name the new one's addresses wrongly: a Go program exec'd by a
// Go program has its text where the first had), the new mappings are
// read now, while a short program likely still lives, and its
// executable is opened, which names its text once it has exited.
func (r *Run) Exec(tgid uint32, img Image) {
	p := &process{pid: int(tgid), exe: img}
	p.refresh(&r.objs)
	p.exeObj = img.open(&r.objs, p.pid)
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.pythons, tgid)
	r.natives[tgid] = p
	for k := range r.codes {
		if k.tgid == tgid {
			delete(r.codes, k)
		}
	}
}

// Name names t and returns its index in the run's table; the frames that
// could not be named are counted by why (Fill).
func (r *Run) Name(t Taken) int {
	var frames []results.Frame
	unresolved := func(f results.Frame, reason string) {
		frames = append(frames, f)
		r.mu.Lock()
		r.unresolved[reason]++
		r.mu.Unlock()
	}
	for _, pf := range t.Python {
		f, reason := r.pyFrame(t.Tgid, pf)
		if reason != "" {
			unresolved(f, reason)
			continue
		}
		frames = append(frames, f)
	}
	if len(t.Native) > 0 {
		p := r.native(t.Tgid)
		for i, addr := range t.Native {
			f, reason := p.frame(&r.objs, addr, i > 0)
			if reason != "" {
				unresolved(f, reason)
			} else {
				frames = append(frames, f)
			}
			if i == 0 && t.LeafCaller != 0 && (len(t.Native) < 2 || t.Native[1] != t.LeafCaller) {
				f, reason := p.frame(&r.objs, t.LeafCaller, true)
				if reason != "" {
					unresolved(f, reason)
				} else {
					frames = append(frames, f)
				}
			}
		}
	}
	if len(frames) == 0 {
		reason, kind := t.NoPython, results.FramePython
		if reason == "" {
			reason, kind = WhyNoStack, results.FrameNative
		}
		unresolved(results.Frame{Function: "?", Kind: kind, Module: reason}, reason)
	}
	if t.Truncated {
		frames = append(frames, results.Frame{Function: "?", Kind: results.FramePython, Module: "frames beyond the deepest kept"})
	}
	return r.intern(frames)
}

// Unnamed is the index of a stack BPF counted that was never read (its
// copy lost: the ring buffer and the stack map full).
func (r *Run) Unnamed() int {
	r.mu.Lock()
	r.unresolved[WhyStackNotRead]++
	r.mu.Unlock()
	return r.intern([]results.Frame{{Function: "?", Kind: results.FrameNative, Module: WhyStackNotRead}})
}

func (r *Run) pyFrame(tgid uint32, pf PyFrame) (results.Frame, string) {
	f := results.Frame{Function: "?", Kind: results.FramePython}
	if pf.Stamp == 0 {
		f.Module = WhyNotCode
		return f, WhyNotCode
	}
	r.mu.Lock()
	c, ok := r.codes[codeKey{tgid, pf.Code, pf.Stamp}]
	r.mu.Unlock()
	if !ok {
		// Its copy was not sent (the ring buffer was full): the object
		// itself, if it is still there unchanged.
		if p := r.python(tgid); p != nil {
			if live, err := p.Code(pf.Code); err == nil && live.Stamp() == pf.Stamp {
				c, ok = live, true
			}
		}
	}
	if !ok || (c.Units > 0 && pf.Instr >= c.Units) {
		f.Module = WhyCodeGone
		return f, WhyCodeGone
	}
	f.Function, f.File, f.Line = c.Qualname, c.Filename, c.Line(pf.Instr)
	if f.Line < 0 {
		f.Line = 0 // the compiler recorded none (an artificial instruction)
	}
	return f, ""
}

// native is tgid's mappings, read again for each new stack: an exec
// maps another program at the same pid.
func (r *Run) native(tgid uint32) *process {
	r.mu.Lock()
	p := r.natives[tgid]
	if p == nil {
		p = &process{pid: int(tgid)}
		r.natives[tgid] = p
	}
	r.mu.Unlock()
	p.mu.Lock()
	p.refresh(&r.objs)
	p.mu.Unlock()
	return p
}

func (r *Run) intern(frames []results.Frame) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	var key strings.Builder
	stack := make(results.Stack, len(frames))
	for i, f := range frames {
		idx, ok := r.frameIdx[f]
		if !ok {
			idx = len(r.frames)
			r.frames = append(r.frames, f)
			r.frameIdx[f] = idx
		}
		stack[i] = idx
		fmt.Fprintf(&key, "%d,", idx)
	}
	idx, ok := r.stackIdx[key.String()]
	if !ok {
		idx = len(r.table)
		r.table = append(r.table, stack)
		r.stackIdx[key.String()] = idx
	}
	return idx
}

// Fill sets s's frames, table and unresolved counts to the run's so far
// (copies: the run goes on naming).
func (r *Run) Fill(s *results.Stacks) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s.Frames = append([]results.Frame(nil), r.frames...)
	s.Table = nil
	for _, st := range r.table {
		s.Table = append(s.Table, append(results.Stack(nil), st...))
	}
	s.Unresolved = nil
	for why, n := range r.unresolved {
		if s.Unresolved == nil {
			s.Unresolved = map[string]uint64{}
		}
		s.Unresolved[why] = n
	}
}
