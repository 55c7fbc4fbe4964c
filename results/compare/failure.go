package compare

import (
	"github.com/tmpprobe/tmpprobe/results"
)

// Failure is what an arm lost in NEW: Error is why its worker failed
// ("" when it did not), Rounds the measured rounds it has, of Planned
// (0: the run does not say); FailedRuns of Runs are a command's runs
// that exited non-zero (compare --ignore-failure) where OLD's had none.
type Failure struct {
	Error      string `json:"error,omitempty"`
	Rounds     int    `json:"rounds"`
	Planned    int    `json:"planned_rounds,omitempty"`
	FailedRuns int    `json:"failed_runs,omitempty"`
	Runs       int    `json:"runs,omitempty"`
}

// failureOf is what sn lost that so did not (nil: nothing).
func failureOf(so, sn *results.Summary, planned int) *Failure {
	if sn.Error != "" {
		return &Failure{Error: sn.Error, Rounds: sn.RoundCount, Planned: planned}
	}
	failedNew, runs := failedRuns(sn)
	if failedOld, _ := failedRuns(so); failedNew > 0 && failedOld == 0 {
		return &Failure{Rounds: sn.RoundCount, FailedRuns: failedNew, Runs: runs}
	}
	return nil
}

// failedRuns counts the measured batches of a command that exited
// non-zero, and all of them.
func failedRuns(s *results.Summary) (failed, all int) {
	for _, b := range s.Batches {
		if b.Kind == results.BatchMeasured {
			all++
			if b.ExitStatus != 0 {
				failed++
			}
		}
	}
	return failed, all
}
