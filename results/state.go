package results

import "strings"

// State variables: what the file system and the machine were like while a
// round's traced batch ran, as its records measured them. They change
// from one generation to the next (where a fresh directory lands, what
// was deleted in the last minute, who else runs), and a ratio that moves
// with one of them across a run describes that state as much as its arms.
const (
	// StateInodeAlloc is ns per ext4 inode allocation (ext4_new_inode):
	// on an ext4 without a journal a create skips every inode deleted in
	// the last minute, and the cost ranges from ~5 to hundreds of µs.
	StateInodeAlloc = "ext4 inode allocation"
	// StateDevice is ns per op of device requests issued inside syscalls.
	StateDevice = "device time"
	// StateRunQueue is ns per op spent preempted inside syscalls, waiting
	// for a CPU.
	StateRunQueue = "run-queue wait"
)

// StateNames are the state variables, in the order reports try them.
var StateNames = []string{StateInodeAlloc, StateDevice, StateRunQueue}

// StatePer is what a state variable is per: one allocation, or one op.
func StatePer(name string) string {
	if name == StateInodeAlloc {
		return "create"
	}
	return "op"
}

// StateSum is a state variable's ns over a count (allocations or ops),
// kept apart so that rounds and arms pool by summing.
type StateSum struct {
	Ns, Count float64
}

// Add pools two sums.
func (a StateSum) Add(b StateSum) StateSum { return StateSum{a.Ns + b.Ns, a.Count + b.Count} }

// PerCount is ns per allocation or op; 0 with no count.
func (a StateSum) PerCount() float64 {
	if a.Count == 0 {
		return 0
	}
	return a.Ns / a.Count
}

// roundState is a traced batch's state variables.
func roundState(b *Batch, ops float64) map[string]StateSum {
	st := map[string]StateSum{}
	for _, r := range b.Records {
		switch {
		case r.Stage == StageExt4NewInode:
			st[StateInodeAlloc] = st[StateInodeAlloc].Add(StateSum{float64(r.TotalNs), float64(r.Calls)})
		case strings.HasPrefix(r.Stage, DevStagePrefix):
			st[StateDevice] = st[StateDevice].Add(StateSum{Ns: float64(r.TotalNs)})
		case r.Stage == "" && r.Class != ClassUser:
			st[StateRunQueue] = st[StateRunQueue].Add(StateSum{Ns: float64(r.OffNs[OffPreempted])})
		}
	}
	for _, k := range []string{StateDevice, StateRunQueue} {
		s := st[k]
		s.Count = ops
		st[k] = s
	}
	return st
}
