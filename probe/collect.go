//go:build linux

package probe

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cilium/ebpf"

	"github.com/tmpprobe/tmpprobe/results"
)

// Collect returns the records of every phase the kernel has seen since the
// last Collect, summed over CPUs, and removes them from the map. Use it
// when nothing is being traced (between batches): an update that lands
// between the read and the delete would be lost.
func (p *Probe) Collect() (map[uint32][]results.ClassRecord, error) {
	out := map[uint32][]results.ClassRecord{}
	for _, name := range statsMaps {
		m := p.coll.Maps[name]
		recs, done := collectBatches(m)
		addRecords(out, recs)
		if !done {
			rest, err := readStats(m, true)
			addRecords(out, rest)
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}

// statsMaps hold the class records: stats, and stats_spare for the keys
// stats could not allocate (bpf/tmpprobe.bpf.h). A key may be in both.
var statsMaps = []string{tmpprobeMapStats, tmpprobeMapStatsSpare}

func addRecords(into, recs map[uint32][]results.ClassRecord) {
	for phase, r := range recs {
		into[phase] = results.MergeRecords(into[phase], r)
	}
}

// collectBatches reads and clears m a batch of keys a syscall, where an
// Iterate and a Delete take three syscalls a key (a traced batch's ~50
// keys took 0.3–0.8 ms, a Python lab's 360 traced batches a tenth of a
// second more); done false where it could not read the whole map (a
// kernel without batch operations, before v5.6, or a hash bucket longer
// than a batch), and what it read is returned for the rest to be read
// one key at a time.
func collectBatches(m *ebpf.Map) (out map[uint32][]results.ClassRecord, done bool) {
	out = map[uint32][]results.ClassRecord{}
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		return out, false
	}
	const batch = 64
	keys := make([]tmpprobeClassKey, batch)
	values := make([]tmpprobeClassStats, batch*ncpu)
	var cursor ebpf.MapBatchCursor
	for {
		n, err := m.BatchLookupAndDelete(&cursor, keys, values, nil)
		for i := range n {
			out[keys[i].Phase] = append(out[keys[i].Phase], toRecord(keys[i], values[i*ncpu:(i+1)*ncpu]))
		}
		if errors.Is(err, ebpf.ErrKeyNotExist) {
			return out, true
		}
		if err != nil || n == 0 {
			return out, false
		}
	}
}

// Snapshot returns the running totals without clearing them, for reading
// while traced threads run (trace --interval): differences of snapshots
// lose nothing. A thread on a CPU in user mode now has its user time so
// far counted: a thread that spins alone on a CPU makes no syscall and
// is never switched out, and the map holds none of its time yet.
func (p *Probe) Snapshot() (map[uint32][]results.ClassRecord, error) {
	out, err := p.read(false)
	if err != nil {
		return nil, err
	}
	open := p.openUserTime()
	for phase := range p.userFloor {
		open[phase] += 0 // held to its floor below, open or not
	}
	for phase, ns := range open {
		recs := out[phase]
		i := slices.IndexFunc(recs, func(r results.ClassRecord) bool { return r.Class == results.ClassUser && r.Stage == "" })
		if i < 0 {
			recs = append(recs, results.ClassRecord{Class: results.ClassUser})
			i = len(recs) - 1
		}
		// What was open at the last snapshot may turn out not to have
		// been user time (a thread followed while runnable inside a
		// syscall): a later snapshot never says less than an earlier
		// one, so differences of snapshots stay whole.
		total := max(recs[i].TotalNs+ns, p.userFloor[phase])
		p.userFloor[phase] = total
		if total > 0 {
			recs[i].TotalNs = total
			out[phase] = recs
		}
	}
	return out, nil
}

// openUserTime is, by phase, the user time the threads hold and the map
// does not yet: since they got onto a CPU in user mode, if they are there
// now, and what they measured and have not added to the map (a thread
// adds it once a millisecond has gathered, user_time_flush).
func (p *Probe) openUserTime() map[uint32]uint64 {
	out := map[uint32]uint64{}
	now := monotonicNs()
	p.eachThread(func(st *tmpprobeThreadState) {
		out[st.Phase] += st.UserPending
		if st.UserSince != 0 && now > st.UserSince {
			out[st.Phase] += now - st.UserSince
		}
	})
	return out
}

func (p *Probe) read(clear bool) (map[uint32][]results.ClassRecord, error) {
	out := map[uint32][]results.ClassRecord{}
	for _, name := range statsMaps {
		recs, err := readStats(p.coll.Maps[name], clear)
		addRecords(out, recs)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

func readStats(m *ebpf.Map, clear bool) (map[uint32][]results.ClassRecord, error) {
	out := map[uint32][]results.ClassRecord{}
	err := readMap(m, "stats map", clear, func(key tmpprobeClassKey, percpu []tmpprobeClassStats) {
		out[key.Phase] = append(out[key.Phase], toRecord(key, percpu))
	})
	return out, err
}

// readMap hands each entry of m to each, then, with clear, deletes what
// it read (what what names in errors).
func readMap[K comparable, V any](m *ebpf.Map, what string, clear bool, each func(K, V)) error {
	var (
		key     K
		val     V
		keys    []K
		entries = m.Iterate()
	)
	for entries.Next(&key, &val) {
		each(key, val)
		keys = append(keys, key)
	}
	if err := entries.Err(); err != nil {
		return fmt.Errorf("reading %s: %w", what, err)
	}
	for i := 0; clear && i < len(keys); i++ {
		if err := m.Delete(&keys[i]); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return fmt.Errorf("clearing %s: %w", what, err)
		}
	}
	return nil
}

// ForgetThreads drops every thread state and stage start, e.g. after a
// worker died inside a region.
func (p *Probe) ForgetThreads() {
	p.forgetThreads()
	var sk tmpprobeFuncStageKey
	var ns uint64
	clearMap(p.coll.Maps[tmpprobeMapFuncStageStarts], &sk, &ns)
}

func clearMap[K comparable, V any](m *ebpf.Map, key *K, val *V) {
	var keys []K
	it := m.Iterate()
	for it.Next(key, val) {
		keys = append(keys, *key)
	}
	for i := range keys {
		m.Delete(&keys[i])
	}
}

// Drops returns the drop counters summed over CPUs, by reason (enum
// drop_reason: "no_start" for DROP_NO_START); all zero in a clean run.
func (p *Probe) Drops() (map[string]uint64, error) {
	out := map[string]uint64{}
	for r := range tmpprobeDropReasonNR_DROP_REASONS {
		name, ok := enumLabel(enumDrop, uint64(r))
		if !ok {
			name = fmt.Sprintf("drop_%d", r)
		}
		var percpu []uint64
		if err := p.coll.Maps[tmpprobeMapDrops].Lookup(uint32(r), &percpu); err != nil {
			return nil, fmt.Errorf("reading drop counters: %w", err)
		}
		var sum uint64
		for _, v := range percpu {
			sum += v
		}
		out[name] = sum
	}
	out["neighbours_unread"] = p.neighboursUnread
	// A program the kernel skipped because it was already running on that
	// CPU (interrupted, or preempted on a preemptible kernel) lost its
	// event: a syscall's entry or exit, a switch. Counted since v5.12.
	for _, c := range append([]*ebpf.Collection{p.coll}, p.colls...) {
		for _, prog := range c.Programs {
			if st, err := prog.Stats(); err == nil {
				out["recursion_misses"] += st.RecursionMisses
			}
		}
	}
	return out, nil
}

// UnseenSwitches counts the switches of traced threads onto a CPU that
// the kernel did not report (bpf/tmpprobe.bpf.h, switch_unseen): nothing
// was lost, each thread's time until a hook of its own found it running
// was settled from the scheduler's run time.
func (p *Probe) UnseenSwitches() (uint64, error) {
	var n uint64
	if err := p.coll.Variables[tmpprobeVarSwitchUnseenCount].Get(&n); err != nil {
		return 0, fmt.Errorf("reading the unseen switches: %w", err)
	}
	return n, nil
}

func toRecord(key tmpprobeClassKey, percpu []tmpprobeClassStats) results.ClassRecord {
	r := results.ClassRecord{Class: className(key.Class), Stage: stageName(key.Stage)}
	for _, s := range percpu {
		r.Add(cpuRecord(s))
	}
	return r
}

// cpuRecord is one CPU's slot of a class_stats entry as a record (its
// off-CPU labels and histogram slots that are not zero), for
// results.ClassRecord.Add to sum.
func cpuRecord(s tmpprobeClassStats) results.ClassRecord {
	r := results.ClassRecord{Calls: s.Calls, Errors: s.Errors, TotalNs: s.TotalNs, OffCPUNs: s.OffcpuNs, Bytes: s.Bytes}
	for i, v := range s.OffNs {
		if v > 0 {
			if r.OffNs == nil {
				r.OffNs = map[string]uint64{}
			}
			r.OffNs[offLabel(i)] += v
		}
	}
	for i, v := range s.Hist {
		if v > 0 {
			r.Hist = append(r.Hist, results.HistBucket{Slot: i, Count: uint64(v)})
		}
	}
	return r
}

// CollectNeighbours returns, by phase, the other tasks that took the CPU
// from a traced worker or used the watched devices since the last call,
// and removes them from the map (between batches, as Collect).
func (p *Probe) CollectNeighbours() (map[uint32][]results.Neighbour, error) {
	m := p.coll.Maps[tmpprobeMapNeighbours]
	sums := map[tmpprobeNeighbourKey]tmpprobeNeighbourStats{}
	// The iterator gives up (ErrIterationAborted) when the kernel's
	// next-key walk keeps restarting (it did while the BPF side could
	// store a key in the wrong bucket; see count_neighbour). A restart
	// hands out keys again: within a pass a key's value is its latest;
	// what a pass read is deleted, and a later pass reads the rest, or a
	// key counted anew. After three passes what was read is kept and the
	// give-up counted (Drops: neighbours_unread), never failing the run.
	for pass := 0; ; pass++ {
		read := map[tmpprobeNeighbourKey]tmpprobeNeighbourStats{}
		var (
			key tmpprobeNeighbourKey
			val tmpprobeNeighbourStats
		)
		entries := m.Iterate()
		for entries.Next(&key, &val) {
			read[key] = val
		}
		err := entries.Err()
		if err != nil && !errors.Is(err, ebpf.ErrIterationAborted) {
			return nil, fmt.Errorf("reading neighbour map: %w", err)
		}
		if err != nil && pass == 2 {
			p.neighboursUnread++
			err = nil
		}
		for k, v := range read {
			if err := m.Delete(&k); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
				return nil, fmt.Errorf("clearing neighbour map: %w", err)
			}
			s := sums[k]
			s.Count, s.Ns, s.Bytes = s.Count+v.Count, s.Ns+v.Ns, s.Bytes+v.Bytes
			sums[k] = s
		}
		if err == nil {
			break
		}
	}
	out := map[uint32][]results.Neighbour{}
	for k, v := range sums {
		kind := results.NeighbourCPU
		if k.Kind == tmpprobeNeighbourKindNEIGHBOUR_DISK {
			kind = results.NeighbourDisk
		}
		out[k.Phase] = append(out[k.Phase], results.Neighbour{Kind: kind, Comm: commString(k.Comm),
			PID: k.Pid, Cgroup: k.Cgroup, KernelThread: k.Kthread != 0, Count: v.Count, Ns: v.Ns, Bytes: v.Bytes})
	}
	for ph, l := range out {
		out[ph] = results.SumNeighbours(l)
	}
	return out, nil
}

func commString(c [16]int8) string {
	b := make([]byte, 0, len(c))
	for _, v := range c {
		if v == 0 {
			break
		}
		b = append(b, byte(v))
	}
	return string(b)
}
