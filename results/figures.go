package results

import (
	"math"
	"strconv"
)

// Figures are an arm's headline figures with their 95% intervals, as
// run.json, arms.csv and 'report --format json' carry them.
type Figures struct {
	Rounds   int       `json:"rounds"`
	OpsPerS  Estimate  `json:"ops_per_s"`
	MBPerS   *Estimate `json:"mb_per_s,omitempty"`
	Ratio    *Estimate `json:"ratio,omitempty"`
	Observer *Estimate `json:"observer,omitempty"`
	// Neighbours are the other tasks that took the CPU or used the disk
	// during the measured traced batches, summed (each batch has its
	// own); their shares are of RunQueueNs (CPU) and of DeviceNs plus
	// their own device time (disk).
	Neighbours []Neighbour `json:"neighbours,omitempty"`
	RunQueueNs uint64      `json:"run_queue_ns,omitempty"`
	DeviceNs   uint64      `json:"device_ns,omitempty"`
	// TracedNsPerOp is the traced wall time per op: the median over the
	// traced rounds, with its interval, as the breakdown prints it.
	TracedNsPerOp *Estimate `json:"traced_ns_per_op,omitempty"`
	// Times are the times per op a syscalls.csv recorded of the run it
	// came from (medians over its traced rounds), for a run rebuilt from
	// one; nil otherwise.
	Times *RecordedTimes `json:"-"`
}

// RecordedTimes are an arm's times per op as a syscalls.csv carries them.
type RecordedTimes struct {
	WallNs, KernelNs, UserNs, RunQueueNs, BetweenNs float64
	Rows                                            map[RowKey]RowTime
	// Functions, Sites and UnsampledNs are the code figures (code.go):
	// each function's time per op, each call site's part of its class
	// (by the stack index the reader gave it), and the user time no
	// sample stood for.
	Functions   map[FuncKey]float64
	Sites       map[SiteKey]SiteTime
	UnsampledNs float64
}

// Headline gathers the summary's headline figures.
func (s *Summary) Headline() Figures {
	f := Figures{Rounds: s.RoundCount, OpsPerS: s.OpsPerS, MBPerS: known(s.MBPerS()),
		Ratio: known(s.Ratio), Observer: known(s.Observer), TracedNsPerOp: known(s.TracedWall)}
	if s.Traced != nil && len(s.Traced.Neighbours) > 0 {
		f.Neighbours, f.RunQueueNs, f.DeviceNs = s.Traced.Neighbours, RunQueueNs(s.Traced), DeviceNs(s.Traced)
	}
	return f
}

// known is e, or nil to leave a figure the arm does not have out of JSON.
func known(e Estimate) *Estimate {
	if !e.Known() {
		return nil
	}
	return &e
}

// NsPerOp is a per-op time; machine-readable output carries it as integer
// ns (finer is below the clock's resolution).
type NsPerOp float64

func (v NsPerOp) MarshalJSON() ([]byte, error) {
	return strconv.AppendInt(nil, int64(math.Round(float64(v))), 10), nil
}
