package results

import (
	"maps"
	"slices"
	"strings"
)

// Every time per op tmpprobe prints of an arm — the breakdown's rows and
// totals, a WHY's gap and its terms — is one statistic, the one the
// table's throughput is: the median over the traced rounds, with the
// interval of the median over worker generations (ClusteredMedian). A
// pooled figure (all traced time ÷ all traced ops) is a mean that a few
// slow batches pull far from the median: under load, fsync's p99 of 54 ms
// against a p50 of 0.5 ms made a breakdown say 6958 µs/op where the table
// and TRACED allowed about 2460 (#42). Medians of parts do not add up to
// the median of their sum; what they leave is shown as the remainder
// (RemainderTerm), never spread over the parts.

// Terms of a decomposition besides the syscall classes.
const (
	// UserTerm is user space. Where the probe measured it (a traced
	// batch's user record carries on-CPU time: Run.UserMeasured), the
	// threads' time on a CPU outside syscalls; in runs before that, wall
	// time outside every syscall, less the time the thread waited there
	// for a CPU (which made a sleeping target's wait, or a second
	// thread's syscalls, user time: #39).
	UserTerm = "user space"
	// BetweenTerm is the threads' time off the CPU outside syscalls that
	// is no wait for a CPU (a major page fault, a wait between calls),
	// measured runs only: kept apart from user space, which is on-CPU
	// time, as the run-queue wait is.
	BetweenTerm = "off-CPU between calls"
	// RunQueueTerm is the time the threads waited for a CPU, preempted
	// (runnable) inside syscalls and between them: what neighbours on the
	// CPU cost, kept apart so it is never given as a syscall's or user
	// space's reason.
	RunQueueTerm = "run-queue wait"
	// RemainderTerm is the wall time no term accounts for: in a measured
	// round, what the syscalls, user space, the run-queue wait and the
	// off-CPU time between calls leave of its wall time (negative where
	// threads ran at once: their times add up past the wall); in a
	// decomposition, besides, what the medians of the terms leave of the
	// median of their sum.
	RemainderTerm = "remainder"
	// WallTerm is a round's whole time per op, the sum of its terms.
	WallTerm = "wall"
)

// RowKey names a row of the breakdown: a class, and a stage of it (""
// for the class itself).
type RowKey struct{ Class, Stage string }

// RowTime is a row's time per op in one traced batch, and the part of it
// off the CPU.
type RowTime struct{ Ns, OffNs float64 }

// preemptedNs is the time a record's threads waited for a CPU.
func preemptedNs(r *ClassRecord) uint64 {
	var ns uint64
	for l, v := range r.OffNs {
		if strings.HasPrefix(l, OffPreempted) {
			ns += v
		}
	}
	return ns
}

// roundTerms are one traced batch's additive terms per op: each syscall
// class less its run-queue wait, the run-queue wait, user space, and
// their sum, the wall time. measured says user space is the user record's
// on-CPU time (Run.UserMeasured): then the off-CPU time between calls is
// a term of its own and what none of them accounts for is the round's
// remainder; otherwise user space is what the syscalls leave of the wall
// time, as runs before #39 computed it, and reads back as they printed.
func roundTerms(b *Batch, ops float64, measured bool) map[string]float64 {
	t := map[string]float64{WallTerm: float64(b.WallNs) / ops}
	var kernel, queued float64
	var user *ClassRecord
	for i := range b.Records {
		r := &b.Records[i]
		if r.Stage != "" {
			continue
		}
		pre := float64(preemptedNs(r))
		queued += pre
		if r.Class == ClassUser {
			user = r
			continue
		}
		t[r.Class] += (float64(r.TotalNs) - pre) / ops
		kernel += float64(r.TotalNs)
	}
	t[RunQueueTerm] = queued / ops
	var cpu, off, offQueued float64
	if user != nil {
		cpu, off, offQueued = float64(user.TotalNs), float64(user.OffCPUNs), float64(preemptedNs(user))
	}
	if !measured {
		t[UserTerm] = (float64(b.WallNs)-kernel)/ops - offQueued/ops
		return t
	}
	t[UserTerm] = cpu / ops
	t[BetweenTerm] = (off - offQueued) / ops
	t[RemainderTerm] = (float64(b.WallNs) - kernel - cpu - off) / ops
	return t
}

// UserMeasured says the probe measured user space in run: a traced
// batch's user record carries on-CPU time. A run without it (saved
// before #39, or by a probe that does not measure it) keeps user space
// as the wall time the syscalls leave.
func (r *Run) UserMeasured() bool {
	for i := range r.Arms {
		if r.Arms[i].userMeasured() {
			return true
		}
	}
	return false
}

// userMeasured says a traced batch of a carries measured user time.
func (a *ArmResult) userMeasured() bool {
	for i := range a.Batches {
		b := &a.Batches[i]
		if !b.Traced {
			continue
		}
		for j := range b.Records {
			if r := &b.Records[j]; r.Class == ClassUser && r.Stage == "" && r.TotalNs > 0 {
				return true
			}
		}
	}
	return false
}

// roundRows are one traced batch's rows per op.
func roundRows(b *Batch, ops float64) map[RowKey]RowTime {
	rows := map[RowKey]RowTime{}
	for _, r := range b.Records {
		k := RowKey{r.Class, r.Stage}
		t := rows[k]
		t.Ns += float64(r.TotalNs) / ops
		t.OffNs += float64(r.OffCPUNs) / ops
		rows[k] = t
	}
	return rows
}

// tracedUnits are f's value in every traced round, zeros included (a
// syscall a batch did not make took it no time), each with its unit.
func (s *Summary) tracedUnits(f func(*RoundSample) float64) []Unit {
	var out []Unit
	for i := range s.Rounds {
		r := &s.Rounds[i]
		if r.Terms == nil {
			continue
		}
		if v := f(r); finite(v) {
			out = append(out, Unit{Unit: s.UnitOf(r), Value: v})
		}
	}
	return out
}

// IsSyscallTerm says a round's term is a syscall class's, not one of
// the terms named above.
func IsSyscallTerm(name string) bool {
	switch name {
	case WallTerm, UserTerm, RunQueueTerm, BetweenTerm, RemainderTerm:
		return false
	}
	return true
}

// TermEstimate is the median of a term over the traced rounds with its
// interval over worker generations; Point(0) where nothing was traced.
func (s *Summary) TermEstimate(term string) Estimate {
	u := s.tracedUnits(func(r *RoundSample) float64 { return r.Terms[term] })
	if len(u) == 0 {
		return Point(0)
	}
	return ClusteredMedian(u)
}

// TermMedian is TermEstimate's center.
func (s *Summary) TermMedian(term string) float64 { return s.TermEstimate(term).Center }

// tracedTimes sets the summary's times per op from its traced rounds:
// every row, and the wall, kernel and user totals, as medians.
func (s *Summary) tracedTimes() {
	s.TracedWall = s.TermEstimate(WallTerm)
	s.WallNsPerOp = s.TracedWall.Center
	s.UserNsPerOp = s.TermMedian(UserTerm)
	s.RunQueueNsPerOp = s.TermMedian(RunQueueTerm)
	s.BetweenNsPerOp = s.TermMedian(BetweenTerm)
	s.KernelNsPerOp = ClusteredMedian(s.tracedUnits(func(r *RoundSample) float64 {
		// In the terms' order, so the sum's float rounding is the same
		// every time.
		var k float64
		for _, name := range slices.Sorted(maps.Keys(r.Terms)) {
			if IsSyscallTerm(name) {
				k += r.Terms[name]
			}
		}
		return k
	})).Center
	for i := range s.Classes {
		c := &s.Classes[i]
		k := RowKey{c.Class, c.Stage}
		c.MeanNsPerOp, c.MeanOffNsPerOp = c.NsPerOp, c.OffNsPerOp
		c.NsPerOp = ClusteredMedian(s.tracedUnits(func(r *RoundSample) float64 { return r.Rows[k].Ns })).Center
		c.OffNsPerOp = ClusteredMedian(s.tracedUnits(func(r *RoundSample) float64 { return r.Rows[k].OffNs })).Center
		c.scaleLabels()
	}
}

// scaleLabels makes the off-CPU time by label add up to the row's
// off-CPU time: each label keeps its share of the row's pooled off-CPU
// time (exact counts of where the time went), applied to the median.
func (c *ClassSummary) scaleLabels() {
	if c.MeanOffNsPerOp <= 0 {
		return
	}
	k := c.OffNsPerOp / c.MeanOffNsPerOp
	for l, v := range c.OffByLabel {
		c.OffByLabel[l] = v * k
	}
}

// Tail is a row's slowest calls when few of them carry much of its time
// (#42: fsync's p99 a hundred times its p50 is a finding, not noise):
// the calls of MinNs or more, CallShare of its calls, took at least
// TimeShare of its time. "At least": the histogram knows each call only
// to its slot, so each is counted at its slot's low edge.
type Tail struct {
	MinNs     uint64
	CallShare float64
	TimeShare float64
}

// Tail thresholds: the slowest 5% of calls, at least 20 calls, and a
// tail said when it took a quarter of the time or more.
const (
	tailCalls    = 0.05
	tailMinCalls = 20
	tailTime     = 0.25
)

// tailOf finds r's tail, or nil when its slowest calls are no finding.
func tailOf(r *ClassRecord) *Tail {
	if r.Calls < tailMinCalls || r.TotalNs == 0 || len(r.Hist) == 0 {
		return nil
	}
	var total uint64
	bySlot := make([]uint64, HistSlots)
	for _, b := range r.Hist {
		if b.Slot >= 0 && b.Slot < HistSlots {
			bySlot[b.Slot] += b.Count
			total += b.Count
		}
	}
	// From the top down, the slots whose calls stay within the slowest
	// tailCalls of all.
	var calls uint64
	var lowNs float64
	slot := HistSlots
	for k := HistSlots - 1; k >= 0; k-- {
		if float64(calls+bySlot[k]) > tailCalls*float64(total) {
			break
		}
		calls += bySlot[k]
		lowNs += float64(bySlot[k]) * float64(HistLow(k))
		if bySlot[k] > 0 {
			slot = k
		}
	}
	if calls == 0 {
		return nil
	}
	t := &Tail{MinNs: HistLow(slot), CallShare: float64(calls) / float64(total), TimeShare: lowNs / float64(r.TotalNs)}
	if t.TimeShare < tailTime {
		return nil
	}
	return t
}
