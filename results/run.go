package results

import "fmt"

// ArmResult is everything measured for one case: every batch, traced or
// not, calibration and warm-up included, with the kernel records of the
// traced ones.
type ArmResult struct {
	CaseID
	Ops     int     `json:"ops_per_batch"` // of the measured batches
	Batches []Batch `json:"batches"`
	Error   string  `json:"error,omitempty"`
	Stderr  string  `json:"stderr,omitempty"`
	// Region is the number of the region a traced program marked that
	// the arm measured (its name is RegionArm's); nil for the whole
	// target of a trace and for every other arm. A program may mark
	// region 0.
	Region *uint32 `json:"region,omitempty"`
	// Children says the arm's processes were followed into the ones
	// they start (trace --follow; compare always is): a process's wait
	// for a child is the child's time, counted in the child's own calls
	// and user time (see waitsForChildren).
	Children bool `json:"children,omitempty"`
}

// Batch kinds. Only measured batches (kind "") enter the figures.
const (
	BatchMeasured  = ""
	BatchCalibrate = "calibrate" // sizing the batch to --min-batch
	BatchWarmup    = "warmup"    // one batch at the final size, before round 1
)

// Batch is one timed batch: Ops ops (modes) or round trips (buffers).
// WallNs is timed by the worker between its markers. Round is the
// measured round it belongs to (1-based; 0 for calibration and warm-up).
// Generation is the worker generation that ran it (1-based): the rounds
// one set of worker processes and one group directory served, see
// arms.Plan.WorkerRounds. Runs saved before it was recorded carry 0, and
// readers count generations by their warm-up batches instead.
type Batch struct {
	Kind       string `json:"kind,omitempty"`
	Round      int    `json:"round,omitempty"`
	Generation int    `json:"generation,omitempty"`
	Ops        int    `json:"ops"`
	Phase      uint32 `json:"phase,omitempty"`
	Traced     bool   `json:"traced"`
	WallNs     int64  `json:"wall_ns"`
	// RunQueueWaitNs is an untraced batch's run-queue wait: how long its
	// worker's thread, ready to run, waited for a CPU (the kernel's
	// sched_info run_delay, read by the worker around the batch); 0 when
	// not read. A traced batch's is in its records (RunQueueNs).
	RunQueueWaitNs int64         `json:"run_queue_wait_ns,omitempty"`
	Records        []ClassRecord `json:"records,omitempty"`
	// Neighbours are the other tasks that took the CPU from the batch's
	// worker or used its work dir's devices while it ran (traced only).
	Neighbours []Neighbour `json:"neighbours,omitempty"`
	// ExitStatus is a compared command's status as a shell reports it,
	// when not 0 (compare --ignore-failure counts such runs).
	ExitStatus int `json:"exit_status,omitempty"`
	// Stacks are the user stacks behind the batch's user time and its
	// syscalls (traced only; see Run.Stacks).
	Stacks []StackRecord `json:"stacks,omitempty"`
	// StacksTaken: a traced batch that took stacks, where the run's other
	// traced batches took none (rounds.StacksRound); its records are not
	// the syscall terms' (Summarize). Runs saved before took stacks in
	// every traced batch, and say false.
	StacksTaken bool `json:"stacks_taken,omitempty"`
}

// Measured reports whether the batch enters the figures.
func (b *Batch) Measured() bool { return b.Kind == BatchMeasured }

// CheckOneThread checks what a lab's traced batch is: one thread between
// its markers, timed by that thread on the probe's clock, so its syscalls
// fit inside its wall time, with slack for the per-op rounding of a CSV
// (ops is the arm's batch size). A batch that fails it counted a second
// thread's syscalls, or one syscall's time twice. A trace or a compare
// sums threads, and has no such bound.
func (b *Batch) CheckOneThread(ops int) error {
	// The syscall rows' time (a stage's is inside its syscall's), summed
	// in floats: a damaged file's totals may not fit 64 bits.
	var kernel float64
	for _, r := range b.Records {
		if r.Stage == "" && r.Class != ClassUser {
			kernel += float64(r.TotalNs)
		}
	}
	if wall := float64(b.WallNs); kernel > wall+wall/100+float64(ops) {
		return fmt.Errorf("kernel time %.0f ns above wall time %d ns: one thread cannot spend longer in syscalls than the batch took", kernel, b.WallNs)
	}
	return nil
}

// LabTrace is the lab of what 'tmpprobe trace' recorded: one arm for the
// whole traced target (one op = the whole run), then one per region the
// target marked itself (one op = one entry into it, see RegionArm).
const LabTrace = "trace"

// LabCompare is the lab of what 'tmpprobe compare' measured: one arm per
// command, named as the user named it, one op = one whole run of it (its
// process tree), and its ratios taken to the first command.
const LabCompare = "compare"

// OfCommand reports whether the arm measured a user's command (trace or
// compare) rather than a lab's op: one op is a whole run, or an entry into
// a region it marked, of a program of many threads and processes.
func (a CaseID) OfCommand() bool { return a.Lab == LabTrace || a.Lab == LabCompare }

// RegionArm names the arm of a marked region by its number (the phase the
// target passed, without the probe's region flag).
func RegionArm(region uint32) string { return fmt.Sprintf("region %d", region) }

// IsRegion reports whether the arm is a region a traced program marked
// rather than a whole target or a lab's case.
func (a *ArmResult) IsRegion() bool { return a.Region != nil }

// NameRegions sets the Region of a trace's region arms from their names,
// for a run.json written before the field and for a syscalls.csv, which
// has no column for it: in a trace the first arm is the whole target
// (whatever its command's name) and every other one is a region, named
// by RegionArm.
func NameRegions(run *Run) {
	for i := range run.Arms {
		a := &run.Arms[i]
		var n uint32
		if i == 0 || a.Lab != LabTrace || a.Region != nil {
			continue
		}
		if _, err := fmt.Sscanf(a.Arm, "region %d", &n); err == nil && RegionArm(n) == a.Arm {
			a.Region = &n
		}
	}
}

// MeasuredRounds is how many measured rounds a ran: the number of
// distinct rounds among its measured batches.
func MeasuredRounds(a *ArmResult) int {
	seen := map[int]bool{}
	for _, b := range a.Batches {
		if b.Kind == BatchMeasured {
			seen[b.Round] = true
		}
	}
	return len(seen)
}
