//go:build linux

package follow

import (
	"os"
	"sort"
	"time"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
)

// Result is a finished trace: records by phase, summed over the run, and
// the marked regions' records of each sample period, the rounds a diff of
// two traces compares.
type Result struct {
	// Wall is a launched command's time from its exec to its exit (see
	// Run), or how long the trace of other targets lasted.
	Wall    time.Duration
	Records map[uint32][]results.ClassRecord
	Samples []map[uint32][]results.ClassRecord
	// Neighbours are the other tasks that took the CPU from the target's
	// threads or used the watched devices during the trace, every phase
	// summed but the launcher's.
	Neighbours []results.Neighbour
	ExitCode   int // of a launched command; 128+signal when a signal ended it
	// Uncontained says why a launched command ran without a cgroup of its
	// own ("": it had one): then what it started and left running when
	// the trace ended (a double fork, a daemon) may survive it.
	Uncontained string
	// InFlight are the notes of the threads (of --pid, --tid) that were
	// inside a syscall when the trace began (results.NoteInFlight).
	InFlight []results.Note
	// Stacks are the user stacks the probe took, by phase (nil: none),
	// summed over the run as Records are.
	Stacks map[uint32][]results.StackRecord
	// Children says the target's children were followed (Spec.Follow).
	Children bool
}

// takeNeighbours takes the neighbours the probe counted during the trace:
// every phase summed but the launcher's, tmpprobe itself the observer.
func (r *Result) takeNeighbours(p Tracer) error {
	nbs, err := p.CollectNeighbours()
	if err != nil {
		return err
	}
	delete(nbs, LaunchPhase)
	self := uint32(os.Getpid())
	for _, l := range nbs {
		l = results.MarkObserver(l, func(pid uint32) bool { return pid == self })
		r.Neighbours = results.SumNeighbours(r.Neighbours, l)
	}
	return nil
}

// Arms turns a trace into results the report writers know: the whole
// target (every phase summed, one "op" = the whole run, with the trace's
// neighbours), then one entry per region the target marked itself (one op
// = one entry into the region).
func (r *Result) Arms(label string) []results.ArmResult {
	var all []results.ClassRecord
	var regions []uint32
	for ph, recs := range r.Records {
		for _, rec := range recs {
			if rec.Class != results.ClassRegion {
				all = results.MergeRecords(all, []results.ClassRecord{rec})
			}
		}
		if ph != Phase {
			regions = append(regions, ph)
		}
	}
	sort.Slice(regions, func(i, j int) bool { return regions[i] < regions[j] })
	out := []results.ArmResult{{
		CaseID:   results.CaseID{Lab: results.LabTrace, Arm: label, Runtime: "-"},
		Children: r.Children,
		Ops:      1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Phase: Phase, Traced: true, WallNs: r.Wall.Nanoseconds(), Records: all,
			Neighbours: r.Neighbours, Stacks: r.allStacks()}},
	}}
	for _, ph := range regions {
		var recs []results.ClassRecord
		var entries, inside uint64
		for _, rec := range r.Records[ph] {
			if rec.Class == results.ClassRegion {
				entries, inside = rec.Calls, rec.TotalNs
				continue
			}
			recs = append(recs, rec)
		}
		if entries == 0 {
			continue // a region still open at the end has no complete entry
		}
		region := ph &^ probe.RegionFlag
		a := results.ArmResult{
			CaseID:   results.CaseID{Lab: results.LabTrace, Arm: results.RegionArm(region), Runtime: "-"},
			Region:   &region,
			Children: r.Children,
			Ops:      int(entries),
			Batches:  r.regionRounds(ph),
		}
		if len(a.Batches) == 0 {
			a.Batches = []results.Batch{{Round: 1, Ops: int(entries), Phase: ph, Traced: true, WallNs: int64(inside), Records: recs}}
		}
		out = append(out, a)
	}
	return out
}

// allStacks are the stacks of every phase, summed, in the order of the
// run's table.
func (r *Result) allStacks() []results.StackRecord {
	var all []results.StackRecord
	for _, recs := range r.Stacks {
		all = results.MergeStackRecords(all, recs)
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].Stack != all[j].Stack {
			return all[i].Stack < all[j].Stack
		}
		return all[i].Class < all[j].Class
	})
	return all
}

// regionRounds are a region's samples as rounds: each one batch of the
// entries that ended in it, with the calls made since the last such batch
// (an entry's calls can land in the sample before its end). Their sum is
// the whole region.
func (r *Result) regionRounds(ph uint32) []results.Batch {
	var out []results.Batch
	var pending []results.ClassRecord
	for _, s := range r.Samples {
		var entries, inside uint64
		for _, rec := range s[ph] {
			if rec.Class == results.ClassRegion {
				entries, inside = rec.Calls, rec.TotalNs
				continue
			}
			pending = results.MergeRecords(pending, []results.ClassRecord{rec})
		}
		if entries > 0 {
			out = append(out, results.Batch{Round: len(out) + 1, Ops: int(entries), Phase: ph, Traced: true,
				WallNs: int64(inside), Records: pending})
			pending = nil
		}
	}
	if len(pending) > 0 && len(out) > 0 { // calls after the last entry ended
		last := &out[len(out)-1]
		last.Records = results.MergeRecords(last.Records, pending)
	}
	return out
}
