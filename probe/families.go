//go:build linux

package probe

import "strings"

// HookFamily is a family of hooks that serve one concern, which make
// bench prices apart (#40): enabled alone on top of the syscall hooks,
// which every traced batch needs (its markers and its syscalls), against
// those alone.
type HookFamily string

// The hook families. Neighbours is not a family of hooks but of work in
// them (config.count_neighbours, in the scheduler's and the block
// layer's hooks).
const (
	FamilySyscalls   HookFamily = "syscalls"   // sys_enter, sys_exit: markers, syscall time
	FamilyScheduler  HookFamily = "scheduler"  // sched_switch, sched_waking, irq and softirq context: off-CPU time and its labels
	FamilyProcesses  HookFamily = "processes"  // fork, exec, exit: following threads and children
	FamilyFaults     HookFamily = "faults"     // page faults
	FamilyBlock      HookFamily = "block"      // bios and requests: device time
	FamilyJournal    HookFamily = "journal"    // jbd2 commits and handles
	FamilyExt4       HookFamily = "ext4"       // ext4's stages: fsync, unlink, inode allocation and freeing
	FamilyNeighbours HookFamily = "neighbours" // who else took the CPU and the disk
)

// HookFamilies are the families besides the syscalls', in the order make
// bench prints them.
var HookFamilies = []HookFamily{FamilyScheduler, FamilyProcesses, FamilyFaults, FamilyBlock, FamilyJournal, FamilyExt4, FamilyNeighbours}

// familyPrefixes are the families by the prefix of their hooks' names
// (tpHooks'), longest first: the tracepoints' own subsystems.
var familyPrefixes = []struct {
	prefix string
	family HookFamily
}{
	{"sched_process_", FamilyProcesses},
	{"sys_", FamilySyscalls},
	{"sched_", FamilyScheduler}, {"irq_", FamilyScheduler}, {"softirq_", FamilyScheduler},
	{"page_fault_", FamilyFaults},
	{"block_", FamilyBlock},
	{"jbd2_", FamilyJournal},
	{"ext4_", FamilyExt4},
}

// familyOf is a tracepoint hook's family; "" for none.
func familyOf(hook string) HookFamily {
	for _, p := range familyPrefixes {
		if strings.HasPrefix(hook, p.prefix) {
			return p.family
		}
	}
	return ""
}

// attaches says whether a probe of these families (Options.Families)
// attaches hook: every hook when none are named, else the syscalls' and
// theirs.
func attaches(families []HookFamily, hook string) bool {
	if families == nil || familyOf(hook) == FamilySyscalls {
		return true
	}
	for _, f := range families {
		if familyOf(hook) == f {
			return true
		}
	}
	return false
}

// countsNeighbours says whether the probe counts neighbours.
func (o Options) countsNeighbours() bool {
	if o.NoNeighbours {
		return false
	}
	if o.Families == nil {
		return true
	}
	for _, f := range o.Families {
		if f == FamilyNeighbours {
			return true
		}
	}
	return false
}
