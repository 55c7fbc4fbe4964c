package results

// The names below are the probe's: the classes, stages and off-CPU labels
// it reports, which bpf/tmpprobe.h's enums define. results cannot read the
// BPF object (the probe imports results, not the other way), so each name
// it keys on is spelled once here, listed in ClassNames, StageNames or
// OffLabels, and probe's TestGoTablesMatchCEnums checks every listed one
// against the names the probe derives from the compiled enums: a name
// changed on one side fails there, not as a row that silently never
// matches.

// Classes results names. The pseudo classes are the probe's names for
// enum pseudo_class (probe takes them from here); write is a syscall's.
const (
	ClassUser          = "user"            // outside any syscall: user space
	ClassRegion        = "region"          // a marked region's entries and the time inside it
	ClassOpenatTmpfile = "openat[tmpfile]" // openat with O_TMPFILE
	ClassOpenatCreate  = "openat[create]"  // openat with O_CREAT|O_EXCL
	ClassWrite         = "write"
)

// ClassNames are the classes named above.
var ClassNames = []string{ClassUser, ClassRegion, ClassOpenatTmpfile, ClassOpenatCreate, ClassWrite}

// Stages results names: enum stage's enumerators, lower case, without
// STAGE_.
const (
	StagePageFault      = "page_fault"
	StageDevWrite       = "dev_write"
	StageDevRead        = "dev_read"
	StageDevDiscard     = "dev_discard"
	StageDevFlush       = "dev_flush"
	StageJBD2Commit     = "jbd2_commit"
	StageExt4EvictInode = "ext4_evict_inode"
	StageExt4FreeInode  = "ext4_free_inode"
	StageExt4NewInode   = "ext4_new_inode"
)

// DevStagePrefix starts the name of every dev_* stage: requests on a
// watched device issued while the thread was inside the syscall, by kind.
const DevStagePrefix = "dev_"

// StageNames are the stages named above.
var StageNames = []string{
	StagePageFault, StageDevWrite, StageDevRead, StageDevDiscard, StageDevFlush, StageJBD2Commit,
	StageExt4EvictInode, StageExt4FreeInode, StageExt4NewInode,
}

// Off-CPU labels: how the thread left the CPU (preempted, sleep =
// interruptible, blocked = uninterruptible) and, when it slept, who woke
// it (enum off_state and enum off_waker).
const (
	OffPreempted      = "preempted"
	OffSleep          = "sleep"
	OffSleepJBD2      = "sleep/jbd2"
	OffSleepIRQ       = "sleep/irq"
	OffSleepKworker   = "sleep/kworker"
	OffSleepOther     = "sleep/other"
	OffBlocked        = "blocked"
	OffBlockedJBD2    = "blocked/jbd2"
	OffBlockedIRQ     = "blocked/irq"
	OffBlockedKworker = "blocked/kworker"
	OffBlockedOther   = "blocked/other"
)

// OffLabels are every off-CPU label the probe reports, in the order of the
// CSV columns that hold them.
var OffLabels = []string{
	OffPreempted, OffSleep, OffSleepJBD2, OffSleepIRQ, OffSleepKworker, OffSleepOther,
	OffBlocked, OffBlockedJBD2, OffBlockedIRQ, OffBlockedKworker, OffBlockedOther,
}
