//go:build linux

// Package probe loads the BPF programs, attaches them, hands out the marker
// cookie and turns the kernel maps into results.ClassRecords.
package probe

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"

	"tmpprobe/results"
)

// Hook is one tracepoint tmpprobe attaches to. Required hooks make the
// probe fail when they cannot attach; optional ones are reported as missing.
type Hook struct {
	Name     string
	Required bool
	Why      string
}

// Hooks in attach order: exits before entries, so no enter is ever seen
// without the matching exit hook already in place.
var Hooks = []Hook{
	{"sys_exit", true, "syscall time"},
	{"sched_switch", true, "off-CPU time"},
	{"sched_waking", false, "who woke a thread (off-CPU labels)"},
	{"irq_handler_exit", false, "irq context for wakers"},
	{"irq_handler_entry", false, "irq context for wakers"},
	{"softirq_exit", false, "softirq context for wakers"},
	{"softirq_entry", false, "softirq context for wakers"},
	{"sched_process_fork", false, "follow new threads and children (trace)"},
	{"sched_process_exit", false, "forget threads that exit inside a region"},
	{"page_fault_user", false, "page faults in user space"},
	{"page_fault_kernel", false, "page faults inside syscalls"},
	{"block_bio_queue", false, "bios a thread queued"},
	{"block_rq_complete", false, "device time of requests"},
	{"block_rq_issue", false, "device time of requests"},
	{"jbd2_end_commit", false, "journal commits"},
	{"jbd2_start_commit", false, "journal commits"},
	{"jbd2_handle_start", false, "journal handles a thread started"},
	{"ext4_sync_file_exit", false, "ext4 fsync stage"},
	{"ext4_sync_file_enter", false, "ext4 fsync stage"},
	{"ext4_unlink_exit", false, "ext4 unlink stage"},
	{"ext4_unlink_enter", false, "ext4 unlink stage"},
	{"ext4_evict_inode", false, "which syscall evicts the inode"},
	{"ext4_free_inode", false, "which syscall frees the inode"},
	{"sys_enter", true, "syscall time and markers"},
}

// Family is how the tracepoint hooks are attached: tp_btf (BTF-typed raw
// tracepoints, the cheapest) or raw_tp (for kernels without BTF).
type Family string

const (
	FamilyTpBtf Family = "tp_btf"
	FamilyRawTp Family = "raw_tp"
)

// Probe is a loaded, possibly attached, set of BPF programs for one run.
type Probe struct {
	Cookie  uint64
	Family  Family
	Missing []string // optional hooks that could not attach, with the reason
	coll    *ebpf.Collection
	spec    *ebpf.CollectionSpec
	links   []link.Link
}

// Options are set in the programs before they load.
type Options struct {
	// TargetCgroup traces every thread of this cgroup (v2 id) in phase
	// TracePhase, without markers (trace --cgroup).
	TargetCgroup uint64
	TracePhase   uint32
	// CountErrnos records failed calls per errno (trace --errors).
	CountErrnos bool
}

// Open loads the programs of the first family the kernel accepts. Nothing
// is attached yet.
func Open(opts Options) (*Probe, error) {
	cookie, err := newCookie()
	if err != nil {
		return nil, err
	}
	var errs []string
	for _, fam := range []Family{FamilyTpBtf, FamilyRawTp} {
		p, err := load(fam, cookie, opts)
		if err == nil {
			return p, nil
		}
		errs = append(errs, fmt.Sprintf("%s: %v", fam, oneLine(err)))
	}
	return nil, fmt.Errorf("loading BPF programs failed (%s); see 'tmpprobe check'", strings.Join(errs, "; "))
}

func newCookie() (uint64, error) {
	var b [8]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return 0, fmt.Errorf("marker cookie: %w", err)
		}
		// 63 bits: lseek's offset is a signed off_t and must stay positive.
		if c := binary.LittleEndian.Uint64(b[:]) >> 1; c != 0 {
			return c, nil
		}
	}
}

func load(fam Family, cookie uint64, opts Options) (*Probe, error) {
	spec, err := loadTmpprobe()
	if err != nil {
		return nil, err
	}
	prefix := string(fam) + "_"
	for name := range spec.Programs {
		if !strings.HasPrefix(name, prefix) {
			delete(spec.Programs, name)
		}
	}
	for name, v := range map[string]any{
		"cookie": cookie, "target_cgroup": opts.TargetCgroup,
		"trace_phase": opts.TracePhase, "count_errnos": opts.CountErrnos,
	} {
		if err := spec.Variables[name].Set(v); err != nil {
			return nil, fmt.Errorf("setting %s: %w", name, err)
		}
	}
	coll, err := ebpf.NewCollection(spec)
	if err != nil {
		var ve *ebpf.VerifierError
		if errors.As(err, &ve) && os.Getenv("TMPPROBE_VERIFIER_LOG") != "" {
			fmt.Fprintf(os.Stderr, "%+v\n", ve)
		}
		return nil, err
	}
	return &Probe{Cookie: cookie, Family: fam, coll: coll, spec: spec}, nil
}

// Attach attaches every hook; a required hook that fails detaches all.
func (p *Probe) Attach() error {
	if len(p.links) > 0 {
		return nil
	}
	p.Missing = p.Missing[:0]
	for _, h := range Hooks {
		prog := p.coll.Programs[string(p.Family)+"_"+h.Name]
		if prog == nil {
			continue
		}
		l, err := p.attachOne(h.Name, prog)
		if err != nil {
			if h.Required {
				p.Detach()
				return fmt.Errorf("attach %s/%s: %v", p.Family, h.Name, oneLine(err))
			}
			p.Missing = append(p.Missing, fmt.Sprintf("%s (%s): %v", h.Name, h.Why, oneLine(err)))
			continue
		}
		p.links = append(p.links, l)
	}
	return nil
}

func (p *Probe) attachOne(tp string, prog *ebpf.Program) (link.Link, error) {
	if p.Family == FamilyTpBtf {
		return link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceRawTp})
	}
	return link.AttachRawTracepoint(link.RawTracepointOptions{Name: tp, Program: prog})
}

// Attached reports whether the hooks are live.
func (p *Probe) Attached() bool { return len(p.links) > 0 }

// Detach closes every link; the programs and maps stay loaded, so an
// untraced batch runs with no tracepoint enabled and Attach can follow.
func (p *Probe) Detach() {
	for _, l := range p.links {
		l.Close()
	}
	p.links = p.links[:0]
}

// Close detaches and unloads everything.
func (p *Probe) Close() {
	p.Detach()
	if p.coll != nil {
		p.coll.Close()
		p.coll = nil
	}
}

// Collect returns the records of every phase the kernel has seen since the
// last Collect, summed over CPUs, and removes them from the map.
func (p *Probe) Collect() (map[uint32][]results.ClassRecord, error) {
	m := p.coll.Maps["stats"]
	out := map[uint32][]results.ClassRecord{}
	var (
		key     tmpprobeClassKey
		percpu  []tmpprobeClassStats
		keys    []tmpprobeClassKey
		entries = m.Iterate()
	)
	for entries.Next(&key, &percpu) {
		out[key.Phase] = append(out[key.Phase], toRecord(key, percpu))
		keys = append(keys, key)
	}
	if err := entries.Err(); err != nil {
		return nil, fmt.Errorf("reading stats map: %w", err)
	}
	for i := range keys {
		if err := m.Delete(&keys[i]); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return nil, fmt.Errorf("clearing stats map: %w", err)
		}
	}
	return out, nil
}

// WatchDevices sets the block devices whose requests and journal commits
// are matched to traced syscalls (kernel dev_t encoding, see KernelDev).
func (p *Probe) WatchDevices(devs []uint32) error {
	for _, d := range devs {
		if err := p.coll.Maps["watched_devs"].Put(d, uint8(1)); err != nil {
			return fmt.Errorf("watching device %d:%d: %w", d>>20, d&0xfffff, err)
		}
	}
	return nil
}

// KernelDev turns a user-space dev_t (stat's st_dev) into the kernel's
// MKDEV encoding (major << 20 | minor) that tracepoints carry.
func KernelDev(major, minor uint32) uint32 { return major<<20 | minor }

// ForgetThreads drops every thread state, e.g. after a worker died inside a
// region.
func (p *Probe) ForgetThreads() {
	m := p.coll.Maps["threads"]
	var tid uint32
	var keys []uint32
	it := m.Iterate()
	var v tmpprobeThreadState
	for it.Next(&tid, &v) {
		keys = append(keys, tid)
	}
	for _, k := range keys {
		m.Delete(&k)
	}
}

// DropNames names the drop counters of bpf/tmpprobe.h, in order.
var DropNames = []string{"no_start", "nr_mismatch", "stats_full", "threads_full"}

// Drops returns the drop counters summed over CPUs; all zero in a clean run.
func (p *Probe) Drops() (map[string]uint64, error) {
	out := map[string]uint64{}
	for i, name := range DropNames {
		var percpu []uint64
		if err := p.coll.Maps["drops"].Lookup(uint32(i), &percpu); err != nil {
			return nil, fmt.Errorf("reading drop counters: %w", err)
		}
		var sum uint64
		for _, v := range percpu {
			sum += v
		}
		out[name] = sum
	}
	return out, nil
}

func toRecord(key tmpprobeClassKey, percpu []tmpprobeClassStats) results.ClassRecord {
	r := results.ClassRecord{Class: ClassName(key.Class), Stage: StageName(key.Stage)}
	var hist [results.HistSlots]uint64
	var off [16]uint64
	for _, s := range percpu {
		r.Calls += s.Calls
		r.Errors += s.Errors
		r.TotalNs += s.TotalNs
		r.OffCPUNs += s.OffcpuNs
		r.Bytes += s.Bytes
		for i, v := range s.OffNs {
			off[i] += v
		}
		for i, v := range s.Hist {
			hist[i] += uint64(v)
		}
	}
	for i, v := range off {
		if v > 0 {
			if r.OffNs == nil {
				r.OffNs = map[string]uint64{}
			}
			r.OffNs[OffLabel(i)] += v
		}
	}
	for i, v := range hist {
		if v > 0 {
			r.Hist = append(r.Hist, results.HistBucket{Slot: i, Count: v})
		}
	}
	return r
}

func oneLine(err error) string {
	s := err.Error()
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
