//go:build linux

package probe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/ringbuf"

	"github.com/tmpprobe/tmpprobe/pyinterp"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/symbolize"
)

// StackOptions say which user stacks the probe takes (Options.Stacks):
// the call sites behind syscalls, and, sampled, the code behind user
// time. What they cost is the probe's, counted in TRACED as the rest.
type StackOptions struct {
	// All are the syscall classes whose every call has its stack taken;
	// Every takes one call in Every, drawn at random, of the classes
	// Sampled names, or where it names none of every other class (0:
	// none).
	All     []string
	Sampled []string
	Every   uint32
	// SampleHz samples each followed thread's user time this many times
	// a second of its CPU time (0: no sampler).
	SampleHz int
	Native   NativeMode
	// Interpreters are Python executables whose processes have their
	// frames' layout installed as they enter the interpreter (a uprobe
	// on it), before any Python code runs; one whose frames will not be
	// read is noted. AnyPython prepares every CPython installed where a
	// command may find it (pyinterp.Installed), noting none.
	Interpreters []string
	AnyPython    bool
}

// NativeMode says where a native stack is taken.
type NativeMode uint8

const (
	// NativeWhereNoPython, the default: a Python process's stack is its
	// Python frames (CPython's own C frames, without frame pointers,
	// would not unwind).
	NativeWhereNoPython NativeMode = iota
	NativeNever
	NativeAlways
)

// bpf is the mode as config.stack_native has it.
func (m NativeMode) bpf() uint8 {
	switch m {
	case NativeNever:
		return 0
	case NativeAlways:
		return 2
	}
	return 1
}

// stackVariant is the suffix of the sys_enter and sys_exit programs that
// take stacks (bpf/syscall.bpf.h, kind_sys_enter_stacks).
const stackVariant = "_stacks"

// stackConfig sets cfg's stack fields from so (nil: no stacks).
func stackConfig(cfg *tmpprobeConfig, so *StackOptions) {
	if so == nil {
		return
	}
	cfg.Stacks = true
	cfg.StackNative = so.Native.bpf()
	cfg.StackEvery = so.Every
	cfg.StackSomeAny = len(so.Sampled) == 0
	setClassBits(&cfg.StackAll, so.All)
	setClassBits(&cfg.StackSome, so.Sampled)
}

func setClassBits(bits *[len(tmpprobeConfig{}.StackAll)]uint64, classes []string) {
	for _, class := range classes {
		if c, ok := classNumber(class); ok && int(c) < 64*len(bits) {
			bits[c/64] |= 1 << (c % 64)
		}
	}
}

// checkStackOptions refuses a class no syscall is.
func checkStackOptions(so *StackOptions) error {
	if so == nil {
		return nil
	}
	for _, class := range append(slices.Clip(so.All), so.Sampled...) {
		if _, ok := classNumber(class); !ok {
			return fmt.Errorf("stacks of %q: no such syscall class on %s", class, archName)
		}
	}
	return nil
}

// classNumber is a class's number as the BPF side has it: a syscall's nr,
// or an enum pseudo_class.
func classNumber(name string) (uint16, bool) {
	if nr, ok := syscallNr(name); ok {
		return nr, true
	}
	for c, n := range pseudoClassNames {
		if n == name {
			return uint16(c), true
		}
	}
	return 0, false
}

// withStackPrograms makes sys_enter and sys_exit load the programs that
// take stacks.
func withStackPrograms(forms map[string]tpForm) {
	for _, hook := range []string{"sys_enter", "sys_exit"} {
		f := forms[hook]
		f.prog += stackVariant
		forms[hook] = f
	}
}

// loadPlainSyscallPrograms loads the sys_enter and sys_exit programs that
// take no stacks beside the ones that do, for the traced batches that
// take none (TakeStacks).
func (p *Probe) loadPlainSyscallPrograms() error {
	for _, hook := range []string{"sys_enter", "sys_exit"} {
		name := strings.TrimSuffix(progName(p.family, tpHook{Name: hook}, p.forms[hook]), stackVariant)
		prog, err := p.loadOne(name, "")
		if err != nil {
			return fmt.Errorf("loading %s: %w", name, err)
		}
		p.progs[name] = prog
	}
	return nil
}

// TakeStacks says whether the traced batches from the next Attach on take
// stacks, where the probe takes them at all (it reports whether it does).
// A lab takes them in traced batches of their own: the call-site walks
// and the sampler's ticks cost its cheapest arms 6% of their throughput
// here, which the batches the syscall terms come from then do not pay.
func (p *Probe) TakeStacks(on bool) bool {
	p.stacksOff = !on
	return p.stacks != nil
}

// stackMaps are the maps only stacks use: one entry each where no stacks
// are taken, so a run without them allocates nothing for them.
var stackMaps = []string{tmpprobeMapPyLayouts, tmpprobeMapPyTemplates, tmpprobeMapPyTstates, tmpprobeMapStackCounts,
	tmpprobeMapStackFrames, tmpprobeMapNativeStacks, tmpprobeMapCodesSeen}

func shrinkStackMaps(spec *ebpf.CollectionSpec) {
	for _, name := range stackMaps {
		spec.Maps[name].MaxEntries = 1
	}
	// A ring buffer is a power of two pages.
	spec.Maps[tmpprobeMapStackEvents].MaxEntries = uint32(os.Getpagesize())
}

// pyLayoutHooks keep a Python process's layout through fork, exec and
// exit (bpf/pyframes.bpf.h, PYTHON_TRACEPOINTS: kind_py_fork, ...),
// attached apart from the other hooks.
var pyLayoutHooks = []struct{ suffix, tp string }{
	{"_py_fork", "sched_process_fork"}, {"_py_exec", "sched_process_exec"}, {"_py_exit", "sched_process_exit"},
}

// stackState is what the probe keeps to take and name stacks.
type stackState struct {
	opts    StackOptions
	names   *symbolize.Run
	reader  *ringbuf.Reader
	flushMu sync.Mutex
	flushed chan struct{}
	done    chan struct{}

	mu    sync.Mutex
	named map[uint64]int // stack hash -> the run's table index

	sampler   *sampler
	uprobe    *ebpf.Program // uprobe_py_start; nil where refused
	uprobes   []link.Link
	apart     []link.Link // the layouts' fork, exec and exit hooks
	templates uint32
	prepared  map[string]bool
	notes     []results.Note
}

// startStacks starts what the probe needs to take stacks once its
// programs are loaded: the ring buffer's reader, the hooks that keep
// Python layouts through fork, exec and exit, the sampler's and the
// uprobe's programs, and the interpreters' uprobes. What the kernel
// refuses is a note, and the rest goes on.
func (p *Probe) startStacks(so StackOptions) error {
	rd, err := ringbuf.NewReader(p.coll.Maps[tmpprobeMapStackEvents])
	if err != nil {
		return fmt.Errorf("the stacks' ring buffer: %w", err)
	}
	s := &stackState{opts: so, names: symbolize.New(), reader: rd, flushed: make(chan struct{}), done: make(chan struct{}),
		named: map[uint64]int{}, prepared: map[string]bool{}}
	p.stacks = s
	go s.read(p)
	for _, h := range pyLayoutHooks {
		l, err := p.attachApart(h.suffix, h.tp)
		if err != nil {
			s.refused("layouts of Python processes through fork, exec and exit", err)
			break
		}
		s.apart = append(s.apart, l)
	}
	if so.SampleHz > 0 {
		prog, err := p.loadOne(tmpprobeProgPerfCpuSample, "")
		if err != nil {
			s.refused("user-time sampler", err)
		} else {
			s.sampler = &sampler{prog: prog, periodNs: uint64(1e9 / so.SampleHz)}
		}
	}
	if s.uprobe, err = p.loadOne(tmpprobeProgUprobePyStart, ""); err != nil {
		s.refused("uprobe on the interpreters' entry (layouts of Python processes)", err)
	}
	for _, exe := range so.Interpreters {
		if err := p.PreparePython(exe); err != nil {
			s.notes = append(s.notes, results.Note{Kind: results.NotePythonUnread, What: exe, Reason: err.Error()})
		}
	}
	if so.AnyPython {
		for _, exe := range pyinterp.Installed() {
			p.PreparePython(exe) // a shim, a version not read: its stacks are native
		}
	}
	return nil
}

func (s *stackState) refused(what string, err error) {
	s.notes = append(s.notes, results.Note{Kind: results.NoteStacksRefused, What: what, Reason: Refusal(err)})
}

// StackNotes are the notes of what taking stacks could not do: what the
// kernel refused, and the interpreters whose frames are not read.
func (p *Probe) StackNotes() []results.Note {
	var out []results.Note
	if p.stacksRefused != "" {
		out = append(out, results.Note{Kind: results.NoteStacksRefused, What: "stacks", Reason: p.stacksRefused})
	}
	if p.stacks != nil {
		out = append(out, p.stacks.notes...)
	}
	return out
}

// PreparePython makes the processes of a Python executable have their
// layout installed as they enter its interpreter: a uprobe_multi link on
// the file that holds its runtime, one per file (detaching a uprobe
// waits for an RCU grace period: 21 single uprobes took 2.6 s to close),
// given file offsets (an unstripped libpython's .symtab took ~0.3 s to
// parse for each). The error says why its frames will not be read: not
// a CPython, a version whose frames are not read, the kernel's refusal.
func (p *Probe) PreparePython(executable string) error {
	s := p.stacks
	if s == nil {
		return nil
	}
	if s.uprobe == nil {
		return errors.New("the kernel refused the uprobe on the interpreter's entry")
	}
	in, err := pyinterp.Prepare(executable)
	if err != nil {
		return err
	}
	if s.prepared[in.Path] {
		return nil
	}
	s.prepared[in.Path] = true
	ex, err := link.OpenExecutable(in.Path)
	if err != nil {
		return err
	}
	opts := &link.UprobeMultiOptions{}
	for _, e := range in.Entries {
		s.templates++
		t := tmpprobePyTemplate{L: bpfLayout(in.Template()), EntryVaddr: e.Vaddr}
		if err := p.coll.Maps[tmpprobeMapPyTemplates].Put(s.templates, &t); err != nil {
			return fmt.Errorf("its layout: %w", err)
		}
		opts.Addresses = append(opts.Addresses, e.FileOffset)
		opts.Cookies = append(opts.Cookies, uint64(s.templates))
	}
	l, err := ex.UprobeMulti(nil, s.uprobe, opts)
	if err != nil {
		return fmt.Errorf("uprobe_multi on %s: %s", in.Path, Refusal(err))
	}
	s.uprobes = append(s.uprobes, l)
	return nil
}

// InstallPython installs the layout of process pid's interpreter from
// its mappings now, where no uprobe did (a kernel without uprobe_multi,
// an interpreter not prepared): its stacks are Python's from then on.
func (p *Probe) InstallPython(pid int) error {
	if p.stacks == nil {
		return nil
	}
	proc, err := pyinterp.Find(pid)
	if errors.Is(err, pyinterp.ErrNotPython) {
		return nil
	}
	if err != nil {
		return err
	}
	l := bpfLayout(proc.Layout())
	return p.coll.Maps[tmpprobeMapPyLayouts].Put(uint32(pid), &l)
}

// bpfLayout is l as the BPF side's struct py_layout.
func bpfLayout(l pyinterp.Layout) tmpprobePyLayout {
	b := func(v bool) uint8 {
		if v {
			return 1
		}
		return 0
	}
	out := tmpprobePyLayout{
		RuntimeAddr: l.RuntimeAddr, RuntimeInterpretersHead: l.RuntimeInterpretersHead, InterpNext: l.InterpNext,
		InterpThreadsHead: l.InterpThreadsHead, TstateNext: l.TstateNext, TstateMatchOff: l.TstateMatchOff,
		TstateMatchKind: uint32(tmpprobeTstateMatchMATCH_NATIVE_TID), TstateFrame: l.TstateFrame,
		CframeCurrentFrame: l.CframeCurrentFrame, FramePrevious: l.FramePrevious, FrameCode: l.FrameCode,
		FrameInstr: l.FrameInstr, FrameOwner: l.FrameOwner, FrameReadSize: l.FrameReadSize,
		CodeAdaptive: l.CodeAdaptive, CodeTypeAddr: l.CodeTypeAddr, CodeReadSize: l.CodeReadSize,
		ObjectType: l.ObjectType, CodeName: l.CodeName, CodeFilename: l.CodeFilename,
		CodeFirstlineno: l.CodeFirstLineno, CodeLinetable: l.CodeLinetable, VarobjectSize: l.VarObjectSize,
		BytesSval: l.BytesSval, UnicodeLength: l.UnicodeLength, UnicodeState: l.UnicodeState,
		UnicodeAsciiSize: l.UnicodeASCIISize, UnicodeCompactSize: l.UnicodeCompactSize,
		CodeSizeIsUnits: b(l.CodeSizeIsUnits), Minor: l.Minor, TstateFrameIsCframe: b(l.FrameIsCframe),
		FrameIsInterp: b(l.FrameIsInterp), OwnerCstack: l.OwnerCstack, LastiShift: l.LastiShift,
	}
	if l.MatchPthreadSelf {
		out.TstateMatchKind = uint32(tmpprobeTstateMatchMATCH_PTHREAD_SELF)
	}
	return out
}

// read names what the ring buffer brings as it comes, while the
// processes, their mappings and their code objects are still there.
func (s *stackState) read(p *Probe) {
	defer close(s.done)
	var rec ringbuf.Record
	for {
		err := s.reader.ReadInto(&rec)
		switch {
		case errors.Is(err, ringbuf.ErrFlushed):
			s.flushed <- struct{}{}
			continue
		case err != nil:
			return // closed
		}
		s.handle(p, rec.RawSample)
	}
}

// sync returns once what the ring buffer held is named.
func (s *stackState) sync() {
	s.flushMu.Lock()
	defer s.flushMu.Unlock()
	if s.reader.Flush() == nil {
		<-s.flushed
	}
}

func (s *stackState) handle(p *Probe, raw []byte) {
	if len(raw) >= 4 && binary.LittleEndian.Uint32(raw) == uint32(tmpprobeStackBoundsEXEC_REC_MAGIC) {
		var r tmpprobeExecRec
		if binary.Read(bytes.NewReader(raw), binary.LittleEndian, &r) != nil {
			return
		}
		path, _, _ := bytes.Cut(r.Path[:], []byte{0})
		s.names.Exec(r.Tgid, symbolize.Image{StartCode: r.StartCode, EndCode: r.EndCode, Dev: r.Dev, Ino: r.Ino, Path: string(path)})
		return
	}
	if len(raw) >= 4 && binary.LittleEndian.Uint32(raw) == uint32(tmpprobeStackBoundsCODE_REC_MAGIC) {
		var r tmpprobeCodeRec
		if binary.Read(bytes.NewReader(raw), binary.LittleEndian, &r) != nil {
			return
		}
		s.names.AddCode(r.Tgid, r.Addr, int(r.Minor), &pyinterp.Record{Stamp: r.Stamp, FirstLine: r.Firstlineno,
			Units: r.Units, Name: r.Name[:], File: r.File[:], Table: r.Table[:], NameLen: r.NameLen,
			FileLen: r.FileLen, NameKind: r.NameKind, FileKind: r.FileKind, TableLen: r.TableLen})
		return
	}
	var k tmpprobeStackKey
	if binary.Read(bytes.NewReader(raw), binary.LittleEndian, &k) != nil {
		return
	}
	s.index(p, k.Hash, &k)
}

// index is a stack's index in the run's table, named now if it was not:
// from k, or where k is nil from the BPF side's copy.
func (s *stackState) index(p *Probe, hash uint64, k *tmpprobeStackKey) int {
	s.mu.Lock()
	idx, ok := s.named[hash]
	s.mu.Unlock()
	if ok {
		return idx
	}
	if k == nil {
		var kept tmpprobeStackKey
		if err := p.coll.Maps[tmpprobeMapStackFrames].Lookup(hash, &kept); err != nil {
			return s.names.Unnamed()
		}
		k = &kept
	}
	idx = s.names.Name(s.taken(p, k))
	s.mu.Lock()
	s.named[hash] = idx
	s.mu.Unlock()
	return idx
}

const codeAddrMask = 1<<tmpprobeStackBoundsCODE_ADDR_BITS - 1

// taken is k as the symbolizer takes it.
func (s *stackState) taken(p *Probe, k *tmpprobeStackKey) symbolize.Taken {
	flags := tmpprobeStackFlag(k.Flags)
	t := symbolize.Taken{Tgid: k.Tgid, Truncated: flags&tmpprobeStackFlagSF_TRUNCATED != 0}
	for i := 0; i < int(k.Nframes) && i < len(k.Frames); i++ {
		t.Python = append(t.Python, symbolize.PyFrame{Code: k.Frames[i] & codeAddrMask, Instr: int(k.Frames[i] >> tmpprobeStackBoundsCODE_ADDR_BITS), Stamp: k.Stamps[i]})
	}
	if flags&tmpprobeStackFlagSF_PYTHON != 0 && k.Nframes == 0 {
		switch {
		case flags&tmpprobeStackFlagSF_NO_TSTATE != 0:
			t.NoPython = "no Python thread state (a thread the interpreter does not know, or not yet)"
		case flags&tmpprobeStackFlagSF_READ_ERR != 0:
			t.NoPython = "Python frame unreadable"
		default:
			t.NoPython = "no Python frame (the interpreter starting or ending)"
		}
	}
	if flags&tmpprobeStackFlagSF_NATIVE != 0 {
		var ips [tmpprobeStackBoundsMAX_NATIVE_FRAMES]uint64
		if p.coll.Maps[tmpprobeMapNativeStacks].Lookup(uint32(k.NativeId), &ips) == nil {
			for _, ip := range ips {
				if ip == 0 {
					break
				}
				t.Native = append(t.Native, ip)
			}
		}
		t.LeafCaller = k.LeafRet
	}
	return t
}

// CollectStacks returns the stack records of every phase since the last
// Collect, and clears them (between batches, as Collect); nil without
// stacks.
func (p *Probe) CollectStacks() (map[uint32][]results.StackRecord, error) {
	return p.readStacks(true)
}

// SnapshotStacks returns the stacks' running totals by phase without
// clearing them (a trace, while its target runs).
func (p *Probe) SnapshotStacks() (map[uint32][]results.StackRecord, error) {
	return p.readStacks(false)
}

func (p *Probe) readStacks(clear bool) (map[uint32][]results.StackRecord, error) {
	s := p.stacks
	if s == nil {
		return nil, nil
	}
	s.sync()
	read := map[uint32][]results.StackRecord{}
	err := readMap(p.coll.Maps[tmpprobeMapStackCounts], "the stack counts", clear, func(key tmpprobeStackCountKey, val tmpprobeStackCount) {
		r := results.StackRecord{Class: className(key.Class), Stack: s.index(p, key.Hash, nil), Ns: val.Ns, OffCPUNs: val.OffNs}
		if key.Class == uint16(tmpprobePseudoClassCLASS_USER) {
			r.Samples = val.Count
		} else {
			r.Calls = val.Count
		}
		read[key.Phase] = append(read[key.Phase], r)
	})
	// Stacks BPF told apart (by an instruction) can be one when named
	// (by a line): one record each.
	out := map[uint32][]results.StackRecord{}
	for phase, recs := range read {
		out[phase] = results.MergeStackRecords(nil, recs)
	}
	return out, err
}

// StackTable is how the run took its stacks and the frames and stacks
// its records index so far; nil when it takes none.
func (p *Probe) StackTable() *results.Stacks {
	s := p.stacks
	if s == nil {
		return nil
	}
	t := &results.Stacks{}
	if s.sampler != nil && s.sampler.err == nil {
		t.SamplePeriodNs = s.sampler.periodNs
	}
	rate := func(classes []string, every uint32) {
		for _, class := range classes {
			if t.EveryClass == nil {
				t.EveryClass = map[string]uint32{}
			}
			t.EveryClass[class] = every
		}
	}
	if len(s.opts.Sampled) == 0 {
		t.Every = s.opts.Every
	} else {
		rate(s.opts.Sampled, s.opts.Every)
	}
	rate(s.opts.All, 1)
	s.names.Fill(t)
	return t
}

// stopStacks closes what startStacks started; uprobes in parallel, each
// waiting for its grace period.
func (s *stackState) stop() {
	s.reader.Close()
	<-s.done
	if s.sampler != nil {
		s.sampler.close()
	}
	var wg sync.WaitGroup
	for _, l := range append(s.uprobes, s.apart...) {
		wg.Add(1)
		go func() { defer wg.Done(); l.Close() }()
	}
	wg.Wait()
}
