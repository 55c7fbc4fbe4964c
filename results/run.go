package results

import (
	"fmt"
	"strings"
)

// ArmResult is everything measured for one case: every batch, traced or
// not, calibration and warm-up included, with the kernel records of the
// traced ones.
type ArmResult struct {
	CaseID
	Ops     int     `json:"ops_per_batch"` // of the measured batches
	Batches []Batch `json:"batches"`
	Error   string  `json:"error,omitempty"`
	Stderr  string  `json:"stderr,omitempty"`
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
	Kind       string        `json:"kind,omitempty"`
	Round      int           `json:"round,omitempty"`
	Generation int           `json:"generation,omitempty"`
	Ops        int           `json:"ops"`
	Phase      uint32        `json:"phase,omitempty"`
	Traced     bool          `json:"traced"`
	WallNs     int64         `json:"wall_ns"`
	Records    []ClassRecord `json:"records,omitempty"`
	// Neighbours are the other tasks that took the CPU from the batch's
	// worker or used its work dir's devices while it ran (traced only).
	Neighbours []Neighbour `json:"neighbours,omitempty"`
	// ExitStatus is a compared command's status as a shell reports it,
	// when not 0 (compare --ignore-failure counts such runs).
	ExitStatus int `json:"exit_status,omitempty"`
}

// Measured reports whether the batch enters the figures.
func (b *Batch) Measured() bool { return b.Kind == BatchMeasured }

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

// IsRegion reports whether an arm of LabTrace is a marked region rather
// than the whole target.
func (a CaseID) IsRegion() bool {
	return a.Lab == LabTrace && strings.HasPrefix(a.Arm, "region ")
}
