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
	StageBioWrite       = "bio_write"
	StageBioDiscard     = "bio_discard"
	StageBioFlush       = "bio_flush"
	StageBioFUA         = "bio_fua"
	StageDevWrite       = "dev_write"
	StageDevRead        = "dev_read"
	StageDevDiscard     = "dev_discard"
	StageDevFlush       = "dev_flush"
	StageJBD2Commit     = "jbd2_commit"
	StageJBD2Handle     = "jbd2_handle"
	StageExt4EvictInode = "ext4_evict_inode"
	StageExt4FreeInode  = "ext4_free_inode"
	StageExt4NewInode   = "ext4_new_inode"
)

// DevStagePrefix starts the name of every dev_* stage: requests on a
// watched device issued while the thread was inside the syscall, by kind.
const DevStagePrefix = "dev_"

// StageNames are the stages named above.
var StageNames = []string{
	StagePageFault, StageBioWrite, StageBioDiscard, StageBioFlush, StageBioFUA,
	StageDevWrite, StageDevRead, StageDevDiscard, StageDevFlush, StageJBD2Commit, StageJBD2Handle,
	StageExt4EvictInode, StageExt4FreeInode, StageExt4NewInode,
}

// DevStages are the dev_* stages: requests on a watched device issued
// while the thread was inside the syscall, one stage a kind.
var DevStages = []string{StageDevWrite, StageDevRead, StageDevDiscard, StageDevFlush}

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

// Facts results names: the host's facts preflight records, by the last
// part of their name in a diff (a fact of a work dir is "dirs[0].journal",
// a sysctl "sysctls.vm.dirty_ratio"): the JSON names of Meta's, a
// DirFacts', a BlockQueue's and a CgroupFacts' fields, the writeback
// sysctls, and the facts a diff adds of its own (the work dirs, the
// flags, the protocol). What a culprit ties to a fact is keyed on these
// (results/explain's evidence), and TestFactNamesAreFields fails on a
// name that is no longer a fact.
const (
	FactKernelRelease  = "kernel_release"
	FactKernelCmdline  = "kernel_cmdline"
	FactCPU            = "cpu"
	FactCPUs           = "cpus"
	FactCPUFreq        = "cpufreq"
	FactCPUFreqNow     = "cpufreq_now"
	FactPython         = "python"
	FactBackend        = "backend"
	FactTHP            = "thp"
	FactLoadAvg        = "loadavg_1m"
	FactPressure       = "pressure"
	FactNotes          = "notes"
	FactDir            = "dir"
	FactFreshOf        = "fresh_of"
	FactFSType         = "fs_type"
	FactSource         = "source"
	FactMountPoint     = "mount_point"
	FactMountOptions   = "mount_options"
	FactDev            = "dev"
	FactJournal        = "journal"
	FactFastCommit     = "fast_commit"
	FactDisk           = "disk"
	FactWriteCache     = "write_cache"
	FactFUA            = "fua"
	FactFSOptions      = "fs_options"
	FactOverlayUpper   = "overlay_upper"
	FactDevice         = "device"
	FactScheduler      = "scheduler"
	FactRotational     = "rotational"
	FactDiscardMax     = "discard_max_bytes"
	FactDiscardGran    = "discard_granularity"
	FactWBTLatency     = "wbt_lat_usec"
	FactNrRequests     = "nr_requests"
	FactReadAhead      = "read_ahead_kb"
	FactMaxSectors     = "max_sectors_kb"
	FactLoopBacking    = "loop_backing_file"
	FactLoopDIO        = "loop_dio"
	FactCPUMax         = "cpu_max"
	FactIOMax          = "io_max"
	FactMemoryMax      = "memory_max"
	FactDirtyBgBytes   = "dirty_background_bytes"
	FactDirtyBgRatio   = "dirty_background_ratio"
	FactDirtyBytes     = "dirty_bytes"
	FactDirtyRatio     = "dirty_ratio"
	FactDirtyExpire    = "dirty_expire_centisecs"
	FactDirtyWriteback = "dirty_writeback_centisecs"
	FactWorkDirs       = "work dirs"
	FactFlags          = "flags"
	FactProtocol       = "protocol"
)

// WritebackSysctls are the vm sysctls preflight records (as
// "vm."+name): when a write blocks or a flusher starts.
var WritebackSysctls = []string{FactDirtyBgBytes, FactDirtyBgRatio, FactDirtyBytes, FactDirtyRatio, FactDirtyExpire, FactDirtyWriteback}

// FactNames are the facts named above.
var FactNames = []string{
	FactKernelRelease, FactKernelCmdline, FactCPU, FactCPUs, FactCPUFreq, FactCPUFreqNow, FactPython, FactBackend, FactTHP,
	FactLoadAvg, FactPressure, FactNotes,
	FactDir, FactFreshOf, FactFSType, FactSource, FactMountPoint, FactMountOptions, FactDev, FactJournal, FactFastCommit,
	FactDisk, FactWriteCache, FactFUA, FactFSOptions, FactOverlayUpper,
	FactDevice, FactScheduler, FactRotational, FactDiscardMax, FactDiscardGran, FactWBTLatency, FactNrRequests,
	FactReadAhead, FactMaxSectors, FactLoopBacking, FactLoopDIO,
	FactCPUMax, FactIOMax, FactMemoryMax,
	FactDirtyBgBytes, FactDirtyBgRatio, FactDirtyBytes, FactDirtyRatio, FactDirtyExpire, FactDirtyWriteback,
	FactWorkDirs, FactFlags, FactProtocol,
}
