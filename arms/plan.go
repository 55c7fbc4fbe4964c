//go:build linux

package arms

import (
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// Defaults of the rounds protocol, and the labs' published method.
const (
	DefaultRounds   = 40
	DefaultMinBatch = 10 * time.Millisecond
	// DefaultWorkerRounds makes 10 worker generations of 40 rounds: the
	// generation is the unit of every interval (results.UnitSummaries),
	// summarized by its median. Four rounds, not two: the median of two is
	// their mean and takes a preempted batch in full. Over five runs each
	// of the modes lab (python, on a host at load 5–15), intervals over
	// generations of four held another run's median in 81% of pairs on
	// /tmp and 88% on /dev/shm, over generations of two in 73% and 85%,
	// over rounds in 63% and 82%.
	DefaultWorkerRounds = 4
	// FreshWarmup is a later generation's warm-up batch, a quarter of the
	// case's batch: the first measured batch of a generation, over the
	// others of its generation and half, came out 0.98–1.04× (medians
	// over the modes lab's 162 generation × half × case of a run on
	// /dev/shm, two runs each) after a whole batch, a quarter and a
	// twentieth alike; a twentieth left a tail (mean 1.09× in one run of
	// Python's). The first generation's warm-up stays a whole batch,
	// after calibration.
	FreshWarmup = 0.25

	SeedOpsModes      = 1000 // lab 45: n=1000 ops a batch
	SeedBatchesModes  = 5    // lab 45: 5 repeats, p50
	SeedRoundsBuffers = 7    // lab 87: 7 rounds a size, p50
)

// Plan is what to run: every arm × runtime × dir × parameter is one case,
// run by its own worker process.
type Plan struct {
	Arms     []Arm
	Runtimes []Runtime
	Dirs     []string
	Payloads []int // modes lab
	Sizes    []int // buffers lab
	Chunk    int
	SpoolMax int

	Protocol string        // results.ProtocolRounds (default) or ProtocolSeed
	Rounds   int           // measured rounds; 0: the protocol's default
	MinBatch time.Duration // rounds: each case's batch lasts at least this
	Ops      int           // > 0: every batch is this many ops (round trips), no calibration
	Seed     uint64        // rounds: the seed of the order
	// Baseline runs untraced batches beside the traced ones; headline
	// ops/s and ratios come from them.
	Baseline     bool
	BatchTimeout time.Duration // kill a worker whose start or batch outlasts this
	// WorkerRounds is how many rounds a worker process and its group's
	// directory serve before fresh ones take over (0: the whole run).
	WorkerRounds int
	// Until > 0 stops a case once its headline intervals (its ratio to
	// the lab's baseline, its observer effect) are each at most this wide
	// ((hi − lo) ÷ median): each later generation runs only the cases
	// still wider, with their group's baseline, and the rounds end when
	// none is left, or at Rounds.
	Until float64
}

// Case is one arm × runtime × dir × parameter.
type Case struct {
	Arm     Arm
	Runtime Runtime
	Dir     string
	Payload int
	Size    int
}

// ID is the case's identity in a run.
func (c Case) ID() results.CaseID {
	return results.CaseID{Lab: c.Arm.Lab, Arm: c.Arm.Name, Runtime: c.Runtime.Name, Dir: c.Dir, PayloadBytes: c.Payload, SizeBytes: c.Size}
}

// Cases lists the plan's cases in report order.
func (p *Plan) Cases() []Case {
	var out []Case
	for _, dir := range p.Dirs {
		for _, rt := range p.Runtimes {
			for _, a := range p.Arms {
				params := p.Payloads
				if a.Lab == LabBuffers {
					params = p.Sizes
				}
				for _, v := range params {
					c := Case{Arm: a, Runtime: rt, Dir: dir}
					if a.Lab == LabBuffers {
						c.Size = v
					} else {
						c.Payload = v
					}
					out = append(out, c)
				}
			}
		}
	}
	return out
}

// Groups splits the indexes of Cases into the groups a lab's ratios
// compare: the peers results pairs (same lab, runtime, dir and parameter).
func (p *Plan) Groups() [][]int {
	cases := p.Cases()
	idx := make([]int, len(cases))
	for i := range idx {
		idx[i] = i
	}
	return results.GroupInOrder(idx, func(i int) results.CaseID {
		return cases[i].ID().Peer()
	})
}

// RoundsFor is how many measured rounds a case of lab runs.
func (p *Plan) RoundsFor(lab string) int {
	switch {
	case p.Rounds > 0:
		return p.Rounds
	case p.Protocol != results.ProtocolSeed:
		return DefaultRounds
	case lab == LabBuffers:
		return SeedRoundsBuffers
	}
	return SeedBatchesModes
}

// Describe is the plan's protocol as run.json records it.
func (p *Plan) Describe() results.Protocol {
	d := results.Protocol{Name: p.Protocol, Rounds: p.Rounds, FixedOps: p.Ops}
	if p.Protocol != results.ProtocolSeed {
		d.Name, d.Seed, d.Rounds, d.MinBatchNs = results.ProtocolRounds, p.Seed, p.RoundsFor(""), p.MinBatch.Nanoseconds()
		d.WorkerRounds = p.WorkerRounds
		if d.WorkerRounds == 0 || d.WorkerRounds > d.Rounds {
			d.WorkerRounds = d.Rounds
		}
		d.FreshWarmup, d.Until = FreshWarmup, p.Until
	}
	return d
}
