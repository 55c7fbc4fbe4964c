//go:build linux

// Package probe loads the BPF programs, picks an attach backend, attaches,
// hands out the marker cookie and turns the kernel maps into
// results.ClassRecords.
package probe

import (
	"errors"
	"fmt"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
	"github.com/cilium/ebpf/rlimit"

	"github.com/tmpprobe/tmpprobe/internal/marker"
	"github.com/tmpprobe/tmpprobe/results"
)

// tpHook is one tracepoint tmpprobe attaches to. Required hooks make the
// probe fail when they cannot attach; optional ones are reported as missing.
type tpHook struct {
	Name     string
	Required bool
	Why      string
	// Classic is the event's group where the object has a classic
	// tracepoint program for the hook (tracepoint_<name>), the last resort
	// where neither tp_btf nor raw_tp loads.
	Classic string
}

// tpHooks in attach order: exits before entries, so no enter is ever seen
// without the matching exit hook already in place. The function backends'
// hooks attach just before sys_enter, exits first as well.
var tpHooks = []tpHook{
	{"sys_exit", true, "syscall time", ""},
	{"sched_switch", true, "off-CPU time", ""},
	{"sched_waking", false, "who woke a thread (off-CPU labels)", ""},
	{"irq_handler_exit", false, "irq context for wakers", ""},
	{"irq_handler_entry", false, "irq context for wakers", ""},
	{"softirq_exit", false, "softirq context for wakers", ""},
	{"softirq_entry", false, "softirq context for wakers", ""},
	{"sched_process_fork", false, "follow new threads and children (trace)", ""},
	{"sched_process_exec", false, "a launched command starts (trace)", ""},
	{"sched_process_exit", false, "forget threads that exit inside a region", ""},
	{"page_fault_user", false, "page faults in user space", ""},
	{"page_fault_kernel", false, "page faults inside syscalls", ""},
	{"block_bio_queue", false, "bios a thread queued", ""},
	{"block_rq_complete", false, "device time of requests", ""},
	{"block_rq_issue", false, "device time of requests", ""},
	{"block_io_start", false, "other processes' requests on the work dirs' devices (neighbours)", ""},
	{"jbd2_end_commit", false, "journal commits", "jbd2"},
	{"jbd2_start_commit", false, "journal commits", "jbd2"},
	{"jbd2_handle_start", false, "journal handles a thread started", ""},
	{"ext4_sync_file_exit", false, "ext4 fsync stage", ""},
	{"ext4_sync_file_enter", false, "ext4 fsync stage", ""},
	{"ext4_unlink_exit", false, "ext4 unlink stage", ""},
	{"ext4_unlink_enter", false, "ext4 unlink stage", ""},
	{"ext4_allocate_inode", false, "ext4 inode allocation stage", ""},
	{"ext4_request_inode", false, "ext4 inode allocation stage", ""},
	{"ext4_evict_inode", false, "which syscall evicts the inode", ""},
	{"ext4_free_inode", false, "which syscall frees the inode", ""},
	{"sys_enter", true, "syscall time and markers", ""},
}

// tpFamily is how the tracepoint hooks are attached: tp_btf (BTF-typed raw
// tracepoints, the cheapest) or raw_tp (for kernels without BTF).
type tpFamily string

const (
	familyTpBtf tpFamily = "tp_btf"
	familyRawTp tpFamily = "raw_tp"
	// familyClassic are the classic tracepoint programs of the hooks that
	// have one (tpHook.Classic), taken one by one, never as a family.
	familyClassic tpFamily = "tracepoint"
)

// Options choose how the probe attaches; the rest are set in the programs
// before they load.
type Options struct {
	Attach Backend // "" is auto
	// TargetCgroup traces every thread of this cgroup (v2 id) in phase
	// TracePhase, without markers (trace --cgroup).
	TargetCgroup uint64
	TracePhase   uint32
	// CountErrnos records failed calls per errno (trace --errors).
	CountErrnos bool
	// AnyDevice matches block I/O and journal commits on every device to
	// the traced syscalls, not just the work dirs' (trace).
	AnyDevice bool
	// NoNeighbours leaves out who else took the CPU and the disk during
	// traced batches (for measuring what counting them costs).
	NoNeighbours bool
	// LaunchPhase is where a launched command's threads are traced until
	// they exec: tmpprobe's launcher, not the command (trace -- CMD).
	LaunchPhase uint32
	// CompareTaskState also reads each switched-out thread's state from
	// the task, as kernels before v5.18 must, and counts where it says
	// another off-CPU cause than sched_switch's prev_state (the stages
	// task_state_read and task_state_differs). Needs prev_state (v5.18).
	CompareTaskState bool
	// Families, when set, attach only the syscall hooks and these
	// families' (make bench prices each family apart, #40); the hooks
	// left out are not missing, and what they measure is not counted.
	Families []HookFamily
	// Cut runs only part of every program, to price the parts (make
	// bench): CutAll returns at once, attached where the real ones
	// attach, the floor of what the hooks cost; CutAfterThread and
	// CutAfterClock stop sys_enter and sys_exit once they have found the
	// traced thread, and read the clock. Such a probe counts nothing.
	Cut Cut
	// Stacks, when set, takes user stacks (StackOptions); a kernel that
	// refuses their programs leaves the probe without them, noted
	// (StackNotes).
	Stacks *StackOptions
}

// Cut is how much of every program runs (bpf/tmpprobe.h, enum cost_cut).
type Cut = tmpprobeCostCut

const (
	CutNone        = tmpprobeCostCutCUT_NONE
	CutAll         = tmpprobeCostCutCUT_ALL
	CutAfterThread = tmpprobeCostCutCUT_AFTER_THREAD
	CutAfterClock  = tmpprobeCostCutCUT_AFTER_CLOCK
)

// Skipped is a backend auto tried and could not use.
type Skipped struct {
	Backend Backend
	Verdict Verdict
	Reason  string
}

// Probe is a loaded, possibly attached, set of BPF programs for one run.
type Probe struct {
	Cookie  uint64
	Backend Backend
	Skipped []Skipped // backends tried before this one, in autoOrder
	Missing []string  // hooks not attached, with the reason

	family         tpFamily
	forms          map[string]tpForm        // each hook's arguments on this kernel
	rawHooks       map[string]bool          // hooks on raw_tp where tp_btf did not attach
	classicHooks   map[string]bool          // hooks on classic tracepoints (tpHook.Classic)
	owned          []string                 // syscalls timed by the backend's function hooks
	coll           *ebpf.Collection         // maps and required tracepoint programs
	colls          []*ebpf.Collection       // every program loaded on its own
	progs          map[string]*ebpf.Program // tracepoint programs by name
	spec           *ebpf.CollectionSpec     // every program, for loadOne
	unmountTracefs func()
	cache          *btf.Cache
	funcs          []funcProgs  // one program pair per function hook
	multi          *kprobeMulti // or, for kprobe, kprobe.multi links
	noMulti        string       // why kprobe uses single kprobes
	unavailable    []string     // hooks that did not load, with the reason
	links          []link.Link
	execClock      link.Link    // StartExecClock's, apart from links
	families       []HookFamily // Options.Families: nil, every hook
	// neighboursUnread counts the batches whose neighbour map could not
	// be read whole (CollectNeighbours).
	neighboursUnread uint64
	inFlight         []results.Note // TrackThreads' threads blocked in a syscall
	stacks           *stackState    // nil: no stacks taken
	// stacksOff: the next Attach takes no stacks (TakeStacks), though
	// the probe can.
	stacksOff     bool
	stacksRefused string // why the kernel would not load the stacks' programs
	// userFloor is, by phase, the user time the last Snapshot said.
	userFloor map[uint32]uint64
}

// BackendError is why a backend cannot be used here.
type BackendError struct {
	Backend Backend
	Err     error
}

func (e *BackendError) Error() string {
	return fmt.Sprintf("%s backend: %s", e.Backend, Refusal(e.Err))
}

func (e *BackendError) Unwrap() error { return e.Err }

// Open loads the programs of the chosen backend and proves them with a
// trial attach and detach; auto takes the first of autoOrder that passes.
// Nothing is attached when it returns.
func Open(opts Options) (*Probe, error) {
	if err := checkKernel(btf.NewCache()); err != nil {
		return nil, err
	}
	if err := checkStackOptions(opts.Stacks); err != nil {
		return nil, err
	}
	if err := raiseMemlock(); err != nil {
		return nil, err
	}
	cookie, err := marker.NewCookie()
	if err != nil {
		return nil, err
	}
	order := []Backend{opts.Attach}
	if opts.Attach == "" || opts.Attach == BackendAuto {
		order = autoOrder
	}
	var skipped []Skipped
	var lastErr error
	for _, b := range order {
		p, err := openBackend(b, cookie, opts)
		if err == nil {
			p.Skipped = skipped
			return p, nil
		}
		var missing *missingProgramError
		if errors.As(err, &missing) {
			return nil, &BackendError{b, err} // every backend loads this object
		}
		lastErr = &BackendError{b, err}
		skipped = append(skipped, Skipped{b, Classify(err), errText(err)})
	}
	if len(order) == 1 {
		return nil, lastErr
	}
	var why []string
	for _, s := range skipped {
		why = append(why, fmt.Sprintf("%s: %s: %s", s.Backend, s.Verdict, s.Reason))
	}
	return nil, fmt.Errorf("no attach backend works (%s); see 'tmpprobe check': %w", strings.Join(why, "; "), errors.Unwrap(lastErr))
}

func openBackend(b Backend, cookie uint64, opts Options) (_ *Probe, err error) {
	var plan funcPlan
	cache := btf.NewCache()
	unmount := func() {}
	if b == BackendKprobe {
		unmount = mountTracefs()
		defer func() {
			if err != nil {
				unmount()
			}
		}()
	}
	if b != BackendTracepoint {
		var err error
		if plan, err = planFuncHooks(b, cache); err != nil {
			return nil, err
		}
		if err := refusedEarly(b, plan, cache); err != nil {
			return nil, err
		}
	}
	p, err := loadTracepoints(newConfig(cookie, plan.owned, opts), cache)
	if err != nil {
		return nil, err
	}
	p.Backend, p.owned, p.unmountTracefs, p.families = b, plan.ownedNames, unmount, opts.Families
	p.unavailable = append(p.unavailable, plan.unavailable...)
	hooks, notes, err := funcPrograms(p.spec, b, plan.hooks)
	if err != nil {
		p.Close()
		return nil, err
	}
	p.unavailable = append(p.unavailable, notes...)
	if err := p.loadFuncBackend(hooks); err != nil {
		p.Close()
		return nil, err
	}
	if opts.Stacks != nil && p.stacksRefused == "" {
		if err := p.startStacks(*opts.Stacks); err != nil {
			p.Close()
			return nil, err
		}
	}
	if err := p.Attach(); err != nil {
		p.Close()
		return nil, err
	}
	p.Detach()
	return p, nil
}

// raiseMemlock lifts RLIMIT_MEMLOCK where the kernel charges BPF maps and
// programs to it (before v5.11, which charges the memory cgroup instead):
// there the default 64 KiB, or Debian 11's 8 MiB, refuses the maps with
// EPERM. On a later kernel it changes nothing.
func raiseMemlock() error {
	if err := rlimit.RemoveMemlock(); err != nil {
		return fmt.Errorf("raising RLIMIT_MEMLOCK, which this kernel charges BPF maps to: %w", err)
	}
	return nil
}

// Describe says how the probe is attached, for reports (backend detail).
func (p *Probe) Describe() string {
	tp := "tracepoints via " + string(p.family)
	if n := len(p.rawHooks); n > 0 && p.family == familyTpBtf {
		tp += fmt.Sprintf(" (raw_tp for %d of modules)", n)
	}
	if n := len(p.classicHooks); n > 0 {
		tp += fmt.Sprintf(" (classic tracepoints for %d)", n)
	}
	entry, exit := p.Backend.families()
	if entry == "" {
		return tp
	}
	stages := 0
	for _, h := range p.hooked() {
		if h.syscall == "" {
			stages++
		}
	}
	switch {
	case p.multi != nil:
		entry, exit = "kprobe.multi", "kretprobe.multi"
	case p.noMulti != "":
		tp += "; single kprobes, no kprobe.multi: " + p.noMulti
	}
	return fmt.Sprintf("%s+%s on %d syscalls and %d stages, %s", entry, exit, len(p.owned), stages, tp)
}

// taskStateBound is how often, measured where a kernel has both, the
// task's state read in sched_switch named another off-CPU cause than
// prev_state (docs/kernels.md, "Kernels and architectures", which gives
// the command and the runs).
const taskStateBound = "where a kernel has both, they disagreed on 0 of 15,026 switches measured (under 0.02% at 95% confidence; docs/kernels.md, \"Kernels and architectures\")"

// OlderForms are the report's notes of the hooks this kernel has in an
// older form and what the probe reads instead.
func (p *Probe) OlderForms() []results.Note {
	var out []results.Note
	for _, h := range tpHooks {
		f := p.forms[h.Name]
		switch {
		case f.older == "":
		case h.Name == "sched_switch":
			out = append(out, results.Note{Kind: results.NoteOlderForm, What: h.Name, Reason: taskStateBound})
		default:
			out = append(out, results.Note{Kind: results.NoteOlderForm, What: h.Name, Reason: f.older})
		}
	}
	return out
}

// Attached reports whether the hooks are live.
func (p *Probe) Attached() bool { return len(p.links) > 0 }

// Detach closes every link, entries first; the programs and maps stay
// loaded, so an untraced batch runs with no hook enabled and Attach can
// follow.
func (p *Probe) Detach() {
	if s := p.stacks; s != nil && s.sampler != nil {
		s.sampler.enable(false)
	}
	for i := len(p.links) - 1; i >= 0; i-- {
		p.links[i].Close()
	}
	p.links = p.links[:0]
}

// Close detaches and unloads everything, and unmounts tracefs if the probe
// mounted it.
func (p *Probe) Close() {
	p.Detach()
	if p.stacks != nil {
		p.stacks.stop()
		p.stacks = nil
	}
	if p.execClock != nil {
		p.execClock.Close()
		p.execClock = nil
	}
	if p.unmountTracefs != nil {
		p.unmountTracefs()
		p.unmountTracefs = nil
	}
	for _, c := range p.colls {
		c.Close()
	}
	p.colls, p.funcs, p.multi, p.progs = nil, nil, nil, nil
	if p.coll != nil {
		p.coll.Close()
		p.coll = nil
	}
}

// WatchDevices sets the block devices whose requests and journal commits
// are matched to traced syscalls, in the kernel's MKDEV encoding
// (major<<20 | minor) that tracepoints carry and preflight gives.
func (p *Probe) WatchDevices(devs []uint32) error {
	for _, d := range devs {
		if err := p.coll.Maps[tmpprobeMapWatchedDevs].Put(d, uint8(1)); err != nil {
			return fmt.Errorf("watching device %d:%d: %w", d>>20, d&0xfffff, err)
		}
	}
	return nil
}
