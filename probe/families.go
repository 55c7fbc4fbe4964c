//go:build linux

package probe

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

// familyOf is each tracepoint hook's family (tpHooks' names).
var familyOf = map[string]HookFamily{
	"sys_enter": FamilySyscalls, "sys_exit": FamilySyscalls,
	"sched_switch": FamilyScheduler, "sched_waking": FamilyScheduler,
	"irq_handler_entry": FamilyScheduler, "irq_handler_exit": FamilyScheduler,
	"softirq_entry": FamilyScheduler, "softirq_exit": FamilyScheduler,
	"sched_process_fork": FamilyProcesses, "sched_process_exec": FamilyProcesses, "sched_process_exit": FamilyProcesses,
	"page_fault_user": FamilyFaults, "page_fault_kernel": FamilyFaults,
	"block_bio_queue": FamilyBlock, "block_rq_complete": FamilyBlock, "block_rq_issue": FamilyBlock, "block_io_start": FamilyBlock,
	"jbd2_end_commit": FamilyJournal, "jbd2_start_commit": FamilyJournal, "jbd2_handle_start": FamilyJournal,
	"ext4_sync_file_exit": FamilyExt4, "ext4_sync_file_enter": FamilyExt4, "ext4_unlink_exit": FamilyExt4,
	"ext4_unlink_enter": FamilyExt4, "ext4_allocate_inode": FamilyExt4, "ext4_request_inode": FamilyExt4,
	"ext4_evict_inode": FamilyExt4, "ext4_free_inode": FamilyExt4,
}

// attaches says whether a probe of these families (Options.Families)
// attaches hook: every hook when none are named, else the syscalls' and
// theirs.
func attaches(families []HookFamily, hook string) bool {
	if families == nil || familyOf[hook] == FamilySyscalls {
		return true
	}
	for _, f := range families {
		if familyOf[hook] == f {
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
