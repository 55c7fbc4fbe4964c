package results

import "strings"

// The work an op does, counted: what a diff holds fixed to tell "more
// work" from "the same work, slower" (#29). Counts are exact (a syscall's
// calls are strace's), so where timings move with the machine they
// decide what the timings cannot. Each is a key of WorkPerOp.
const (
	WorkFlushes        = "flushes"          // dev_flush: cache flushes (and FUA writes) on the device
	WorkDeviceWrites   = "device writes"    // dev_write requests
	WorkDeviceReads    = "device reads"     // dev_read requests
	WorkDiscards       = "discards"         // dev_discard requests
	WorkDeviceBytes    = "device bytes"     // written and read (a discard's are no data moved)
	WorkJournalCommits = "journal commits"  // jbd2_commit: shared by the ops a commit covers
	WorkInodesAlloc    = "inodes allocated" // ext4_new_inode
	WorkInodesFreed    = "inodes freed"     // ext4_free_inode
	WorkPageFaults     = "page faults"
	// A syscall's own work is "<class> calls" and "<class> bytes".
	workCalls = " calls"
	workBytes = " bytes"
)

// stageWork names the work a stage counts, summed over the syscalls it
// happened in.
var stageWork = map[string]string{
	StageDevFlush: WorkFlushes, StageDevWrite: WorkDeviceWrites, StageDevDiscard: WorkDiscards,
	StageDevRead: WorkDeviceReads, StageJBD2Commit: WorkJournalCommits, StageExt4NewInode: WorkInodesAlloc,
	StageExt4FreeInode: WorkInodesFreed, StagePageFault: WorkPageFaults,
}

// WorkPerOp is the work of records over ops, per op: each syscall's calls
// (and bytes, where it counts them), the device's requests by kind and
// their bytes, journal commits, inodes allocated and freed, page faults;
// not device I/O that only happened beside a syscall.
func WorkPerOp(recs []ClassRecord, ops float64) map[string]float64 {
	out := map[string]float64{}
	if ops <= 0 {
		return out
	}
	for _, r := range recs {
		switch {
		case r.Stage == "" && r.Class != ClassUser:
			out[r.Class+workCalls] += float64(r.Calls) / ops
			if r.Bytes > 0 {
				out[r.Class+workBytes] += float64(r.Bytes) / ops
			}
		case r.Class != ClassUser && !canWaitFor(r.Class, r.Stage):
			// Device I/O beside a syscall that cannot wait for it (see
			// canWaitFor): another task's, not this op's work.
		case stageWork[r.Stage] != "":
			out[stageWork[r.Stage]] += float64(r.Calls) / ops
			if (r.Stage == StageDevWrite || r.Stage == StageDevRead) && r.Bytes > 0 {
				out[WorkDeviceBytes] += float64(r.Bytes) / ops
			}
		}
	}
	return out
}

// WorkIsBytes says a work key counts bytes, not events.
func WorkIsBytes(key string) bool { return strings.HasSuffix(key, workBytes) }

// WorkCallsOf is the syscall class whose calls a work key counts, "" for
// any other key.
func WorkCallsOf(key string) string {
	class, ok := strings.CutSuffix(key, workCalls)
	if !ok {
		return ""
	}
	return class
}
