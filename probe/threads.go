package probe

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
)

// The traced threads' states, kept as bpf/tmpprobe.bpf.h's thread_of,
// new_thread and forget_thread keep them: each in the slot of
// thread_slots its tid maps to, claimed in slot_owners, or in the threads
// hash where another thread holds that slot (the slot then marked in
// slots_spilled).

func (p *Probe) threadSlot(tid uint32) uint32 {
	return tid % p.coll.Maps[tmpprobeMapThreadSlots].MaxEntries()
}

// putThread makes st thread tid's state, as new_thread does.
func (p *Probe) putThread(tid uint32, st *tmpprobeThreadState) error {
	slots, owners := p.coll.Maps[tmpprobeMapThreadSlots], p.coll.Maps[tmpprobeMapSlotOwners]
	overflow := p.coll.Maps[tmpprobeMapThreads]
	slot := p.threadSlot(tid)
	st.Tid = tid
	var owner uint32
	err := owners.Update(slot, tid, ebpf.UpdateNoExist)
	if errors.Is(err, ebpf.ErrKeyExist) && owners.Lookup(slot, &owner) == nil && owner == tid {
		err = nil
	}
	switch {
	case err == nil:
		if err := overflow.Delete(tid); err != nil && !errors.Is(err, ebpf.ErrKeyNotExist) {
			return err
		}
		return slots.Put(slot, st)
	case errors.Is(err, ebpf.ErrKeyExist):
		if err := p.coll.Maps[tmpprobeMapSlotsSpilled].Put(slot, uint8(1)); err != nil {
			return err
		}
		return overflow.Put(tid, st)
	default:
		return fmt.Errorf("claiming slot %d: %w", slot, err)
	}
}

// eachThread hands every traced thread's state to each.
func (p *Probe) eachThread(each func(*tmpprobeThreadState)) {
	slots, owners := p.coll.Maps[tmpprobeMapThreadSlots], p.coll.Maps[tmpprobeMapSlotOwners]
	var slot, tid uint32
	var st tmpprobeThreadState
	it := owners.Iterate()
	for it.Next(&slot, &tid) {
		if slots.Lookup(slot, &st) == nil && st.Tid == tid && tid != 0 {
			each(&st)
		}
	}
	it = p.coll.Maps[tmpprobeMapThreads].Iterate()
	for it.Next(&tid, &st) {
		each(&st)
	}
}

// forgetThreads drops every thread state.
func (p *Probe) forgetThreads() {
	slots, owners := p.coll.Maps[tmpprobeMapThreadSlots], p.coll.Maps[tmpprobeMapSlotOwners]
	var slot, tid uint32
	var held []uint32
	it := owners.Iterate()
	for it.Next(&slot, &tid) {
		held = append(held, slot)
	}
	for _, slot := range held {
		slots.Put(slot, &tmpprobeThreadState{})
		owners.Delete(slot)
	}
	var st tmpprobeThreadState
	clearMap(p.coll.Maps[tmpprobeMapThreads], &tid, &st)
}
