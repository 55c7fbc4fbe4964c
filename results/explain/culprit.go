package explain

import (
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// EnvChange is one fact of the environment that differs between two runs:
// a mount option, a block queue setting, a sysctl, the Python version.
type EnvChange struct {
	// Name is where the fact is in a run ("dirs[0].mount_options"),
	// Fact its name (results.Fact*), the last part of Name.
	Name string
	Fact string
	// Dir: a fact of a work dir, whose device's name or mount point
	// explains no change.
	Dir      bool
	Old, New string
	// Added and Removed are, for a list of options, what NEW has that OLD
	// had not, and what OLD had that NEW has not.
	Added, Removed []string
	// Explains are the arms (and the terms of them) the mechanism ties
	// this difference to; empty when it can explain no change.
	Explains []Explained
	// Move is set when the work dir moved to another file system
	// ("file system") or another device under it ("device"), Old and New
	// then its places ("tmpfs", "ext4 on vda"): the change stands for
	// every fact of the dir that came with it (StandsFor), and is said
	// once (#29). MarksAdded are what marks the file system it moved to
	// that the one it left lacked ("no journal", "mounted discard"),
	// MarksRemoved the other way.
	Move                     string
	MarksAdded, MarksRemoved []string
	StandsFor                []EnvChange
}

// Explained is an arm a difference can explain, through one of its terms
// (Term, "" when the difference moves every figure of the arm).
type Explained struct {
	Kind results.RunKind
	Arm  results.CaseID
	Term string
}

// optionToggled: NEW's option is OLD's turned the other way (nobarrier
// for barrier, data=writeback for data=ordered): one change, said once.
func optionToggled(opt string, others []string) bool {
	key, _, _ := strings.Cut(opt, "=")
	for _, o := range others {
		k, _, _ := strings.Cut(o, "=")
		if k == key || "no"+k == key || k == "no"+key {
			return true
		}
	}
	return false
}

// Causes are the change as causes ("NEW is mounted data=journal"); none
// when the fact cannot explain a change in time.
func (c EnvChange) Causes() []Cause {
	causes, _ := c.causes()
	return causes
}

// causes are a change as causes with what it moves; none when the fact
// cannot explain a change in time (a device's name, a mount point).
func (c EnvChange) causes() (causes []Cause, mechs []mechanism) {
	if c.Move != "" {
		// Another file system or device moves every mechanism.
		return []Cause{{Kind: CauseMove, Old: c.Old, New: c.New}}, []mechanism{mechAny}
	}
	if c.Added != nil || c.Removed != nil {
		for _, o := range c.Added {
			if m := optionMechanism(o); m.evidence != nil {
				causes, mechs = append(causes, Cause{Kind: CauseMounted, Option: o}), append(mechs, m)
			}
		}
		for _, o := range c.Removed {
			if m := optionMechanism(o); m.evidence != nil && !optionToggled(o, c.Added) {
				causes, mechs = append(causes, Cause{Kind: CauseUnmounted, Option: o}), append(mechs, m)
			}
		}
		return causes, mechs
	}
	m, ok := factMechanisms[c.Fact]
	if !ok {
		return nil, nil
	}
	return []Cause{c.FactCause()}, []mechanism{m}
}

// FactCause is the change of a fact as a cause, whatever it moves: its
// value from OLD to NEW, or the options added and removed.
func (c EnvChange) FactCause() Cause {
	if c.Added != nil || c.Removed != nil {
		return Cause{Kind: CauseOptions, Fact: c.Fact, Added: strings.Join(c.Added, ","), Removed: strings.Join(c.Removed, ",")}
	}
	return Cause{Kind: CauseFact, Fact: c.Fact, Old: results.OrNone(c.Old), New: results.OrNone(c.New)}
}

// moved says a detail changed enough to show in a sentence: a time that
// is a tenth or more of the term's change, a count that changed by 5% or
// more. detailText names exactly these.
func moved(d Detail, termNs float64) bool {
	delta := d.Delta()
	if d.Unit == "ns" {
		return math.Abs(delta) >= math.Max(0.1*math.Abs(termNs), 100)
	}
	return math.Abs(delta) >= 0.01 && math.Abs(delta) >= 0.05*math.Max(math.Abs(d.Old), math.Abs(d.New))
}

// weight is how much of term t the mechanism can explain, in ns per op:
// its moved details' times that show the mechanism at work (the whole
// term, for user space and a mechanism that moves it); a mechanism seen
// only in a moved count weighs 1 ns, ranked after any time.
func (m mechanism) weight(t Term) float64 {
	if (m.user && t.Name == results.UserTerm) || (t.Name == results.RunQueueTerm && m.evident(LabelSign(results.OffPreempted))) {
		return math.Abs(float64(t.Delta))
	}
	var w float64
	for _, d := range t.Details {
		if !moved(d, float64(t.Delta)) || !m.evident(d.Of) {
			continue
		}
		if d.Unit == "ns" {
			w += math.Abs(d.Delta())
		} else {
			w = math.Max(w, 1)
		}
	}
	return w
}

// counted says a count the mechanism moves changed in the term: exact,
// so the term is tied to it even when its time is within noise.
func (m mechanism) counted(t Term) bool {
	for _, d := range t.Details {
		if d.Unit != "ns" && moved(d, float64(t.Delta)) && m.evident(d.Of) {
			return true
		}
	}
	return false
}

// ranked are a term's culprits with how much of it each can explain.
type ranked struct {
	culprit Culprit
	weight  float64
}

// top are the culprits to name, those that can explain the most first, at
// most maxCulprits (a sentence with more names none a reader can act on).
func top(rs []ranked) []Culprit {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].weight > rs[j].weight })
	var out []Culprit
	for _, r := range rs {
		if len(out) == maxCulprits {
			break
		}
		if !slices.ContainsFunc(out, r.culprit.same) {
			out = append(out, r.culprit)
		}
	}
	return out
}

// TieCulprits ties, inside each term of a changed arm that it moved, the
// difference of the environment and the neighbours behind it: "NEW is
// mounted nobarrier" beside fsync's dev_flush/op 2 → 0, at most three a
// term, ranked by how much of the term their mechanism can explain. A
// fact that moves every figure (the kernel, the CPU, another file system
// under the dir) is tied to the arm, not to a term: the arm's headline
// names it (WorkCulprits). arm is the arm as env's Explains name it.
func TieCulprits(arm Explained, terms []Term, env []EnvChange, old, cur *results.Summary) {
	sumAbs := sumAbsDelta(terms)
	byTerm := make([][]ranked, len(terms))
	for ci := range env {
		causes, mechs := env[ci].causes()
		for pi, m := range mechs {
			if m.any {
				// It may explain the whole arm, through no one term.
				env[ci].Explains = appendOnce(env[ci].Explains, arm)
				continue
			}
			for ti := range terms {
				w := m.weight(terms[ti])
				if w == 0 || !(shown(terms[ti], ti, sumAbs) || m.counted(terms[ti])) {
					continue
				}
				byTerm[ti] = append(byTerm[ti], ranked{Culprit{Cause: &causes[pi]}, w})
				through := arm
				through.Term = terms[ti].Name
				env[ci].Explains = appendOnce(env[ci].Explains, through)
			}
		}
	}
	// A neighbour goes on the shown term it moved most, once: every
	// syscall waits on the same run queue and device.
	for _, nc := range NeighbourChanges(old, cur) {
		m := nc.mechanism()
		best, bw := -1, 0.0
		for ti := range terms {
			if w := m.weight(terms[ti]); shown(terms[ti], ti, sumAbs) && w > bw {
				best, bw = ti, w
			}
		}
		if best >= 0 {
			byTerm[best] = append(byTerm[best], ranked{Culprit{Neighbour: &nc}, bw})
		}
	}
	// A function whose user time moved user space's way is user space's
	// culprit, weighed by its own change (less than the whole term an
	// environment's cause that moves user space weighs).
	for ti := range terms {
		t := &terms[ti]
		if t.Name != results.UserTerm || !(shown(*t, ti, sumAbs)) {
			continue
		}
		for _, p := range t.Parts {
			if p.Function == "" || p.Noise || float64(p.Delta)*float64(t.Delta) <= 0 || !large(float64(p.Delta), math.Abs(float64(t.Delta))) {
				continue
			}
			c := &CodeChange{Function: p.Function, File: p.File, Line: p.Line, Delta: float64(p.Delta)}
			byTerm[ti] = append(byTerm[ti], ranked{Culprit{Code: c}, math.Abs(float64(p.Delta))})
		}
	}
	for ti := range terms {
		terms[ti].Culprits = top(byTerm[ti])
	}
}

// mechanism is what a neighbour moves: the run-queue wait (CPU), or the
// device and writeback waits (disk).
func (nc NeighbourChange) mechanism() mechanism {
	if nc.Kind == results.NeighbourDisk {
		return mechanism{evidence: slices.Concat(mechDevice.evidence, mechWriteback.evidence)}
	}
	return mechRunQueue
}

// WorkCulprits are the causes an arm's work headline names, at most
// three, ranked by how much they can explain: for work that changed, the
// differences whose mechanism moves those counts (discard beside
// discards); for the same work done slower, those whose mechanism moves
// the time per unit that headed it (a disk neighbour beside device time,
// a CPU neighbour beside the run-queue wait). A fact that moves every
// figure (another file system or device under the dir, the kernel, the
// CPU) can explain any of it. neighbours are the whole run's.
func WorkCulprits(w Work, env []EnvChange, neighbours []NeighbourChange) []Culprit {
	if !w.MoreOrLess() && w.Unit == nil {
		return nil // nothing said that a cause could explain
	}
	var rs []ranked
	evidence := map[Sign]float64{} // a stage or label → what it weighs
	switch {
	case w.MoreOrLess():
		for _, c := range w.Changed {
			if st := workStage[c.Name]; st != "" {
				evidence[StageSign(st)] += math.Abs(c.New - c.Old)
			}
		}
	case w.Unit != nil:
		evidence[w.Unit.Evidence] = math.Abs(w.Unit.Explains)
	}
	all := 0.0
	for _, v := range evidence {
		all += v
	}
	for _, e := range env {
		causes, mechs := e.causes()
		for i, m := range mechs {
			weight := 0.0
			for sign, v := range evidence {
				if m.evident(sign) {
					weight += v
				}
			}
			if m.any {
				weight = math.Max(all, 1) // it can explain whatever moved
			}
			if weight > 0 {
				rs = append(rs, ranked{Culprit{Cause: &causes[i]}, weight})
			}
		}
	}
	for i := range neighbours {
		nc := &neighbours[i]
		// A neighbour slows an op's work; it does not add to it.
		if !nc.Grew || w.Unit == nil {
			continue
		}
		m := nc.mechanism()
		weight := 0.0
		for sign, v := range evidence {
			if m.evident(sign) {
				weight += v
			}
		}
		if weight > 0 {
			rs = append(rs, ranked{Culprit{Neighbour: nc}, weight})
		}
	}
	// Specific causes before those that move everything, at equal weight.
	return top(rs)
}

// workStage is the stage whose mechanisms move a count of work.
var workStage = map[string]string{
	results.WorkFlushes: results.StageDevFlush, results.WorkDeviceWrites: results.StageDevWrite,
	results.WorkDiscards: results.StageDevDiscard, results.WorkDeviceReads: results.StageDevRead,
	results.WorkDeviceBytes: results.StageDevWrite, results.WorkJournalCommits: results.StageJBD2Commit,
	results.WorkPageFaults: results.StagePageFault,
}

func appendOnce[T comparable](list []T, v T) []T {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// NeighbourChange is a neighbour that appeared, grew, shrank or vanished
// between two runs of an arm, with its share in each.
type NeighbourChange struct {
	Kind string
	Name string // results.Neighbour's Name: "cpuhog (pid 4123)"
	// Verb is how it changed: "appeared", "grew", "shrank", "gone".
	Verb string
	// Grew: it appeared or grew in NEW.
	Grew bool
	// Share is its share of the run-queue wait (of the device time, for
	// a disk neighbour) on the side it grew on (NEW) or shrank from
	// (OLD); OldPerWall and NewPerWall its share of the traced time in
	// each; Requests its requests per op, the larger side's (disk).
	Share                  float64
	OldPerWall, NewPerWall float64
	Requests               float64
}

// NeighbourShareMin is the share of the run-queue wait or of the device
// time below which a neighbour is not named, in a diff or a footer: the
// scheduler's own threads and a stray daemon always take a little.
const NeighbourShareMin = 0.10

// NeighbourWallMin is the share of the traced time below which a
// run-queue wait moves no figure worth naming its neighbours for.
const NeighbourWallMin = 0.01

// NeighbourChanges compares the neighbours of an arm's traced batches in
// two runs: those that took a tenth or more of the run-queue wait or the
// device time on one side, and on the other at most half as much of the
// traced wall time (batches are sized by time, so per op and per wall
// time are alike for one arm; per wall time also holds for a whole run).
func NeighbourChanges(old, cur *results.Summary) []NeighbourChange {
	if old == nil || cur == nil || old.Traced == nil || cur.Traced == nil {
		return nil
	}
	type side struct {
		share   float64 // of the run-queue wait, or of the device time
		perWall float64 // ns per ns of traced wall time
		reqs    float64 // requests per op (disk)
		bytes   float64
		present bool
	}
	sides := map[string]*[2]side{}
	names := map[string]results.Neighbour{}
	for i, s := range []*results.Summary{old, cur} {
		ops, wall := float64(s.Traced.Ops), float64(s.Traced.WallNs)
		if ops == 0 || wall == 0 {
			continue
		}
		// The device time is the traced syscalls' and every disk
		// neighbour's, as the footer counts it: against its own time
		// alone each neighbour had 100%, and a comm several processes
		// share (a build's compilers) summed to more.
		rq, dev := results.RunQueueNs(s.Traced), results.DeviceNs(s.Traced)
		rqBase := results.WaitShareBase(rq, s.Traced.Neighbours)
		for _, n := range s.Traced.Neighbours {
			if n.Kind == results.NeighbourDisk {
				dev += n.Ns
			}
		}
		for _, n := range s.Traced.Neighbours {
			if n.Observer {
				continue // tmpprobe itself: the observer, not a neighbour
			}
			if n.Kind == results.NeighbourCPU && float64(rq)*100 < wall {
				continue // a run-queue wait under 1% of the time matters to no figure
			}
			// By comm: the same program is the same neighbour in two
			// runs whatever its pid (a build's compiler, tmpprobe itself).
			k := n.Kind + "/" + n.Comm
			if sides[k] == nil {
				sides[k] = &[2]side{}
			}
			if n.Ns > names[k].Ns {
				names[k] = n
			}
			total := rqBase
			if n.Kind == results.NeighbourDisk {
				total = dev
			}
			sd := &sides[k][i]
			sd.present = true
			sd.perWall += float64(n.Ns) / wall
			sd.reqs += float64(n.Count) / ops
			sd.bytes += float64(n.Bytes)
			if total > 0 {
				sd.share += float64(n.Ns) / float64(total)
			}
		}
	}
	var out []NeighbourChange
	for k, s := range sides {
		o, c := s[0], s[1]
		if math.Max(o.share, c.share) < NeighbourShareMin || math.Max(o.perWall, c.perWall) < NeighbourWallMin {
			continue
		}
		n := names[k]
		nc := NeighbourChange{Kind: n.Kind, Name: n.Name(), OldPerWall: o.perWall, NewPerWall: c.perWall, Requests: math.Max(o.reqs, c.reqs)}
		switch {
		case !o.present || c.perWall >= 2*o.perWall:
			nc.Verb, nc.Grew, nc.Share = "appeared", true, c.share
			if o.present {
				nc.Verb = "grew"
			}
		case !c.present || c.perWall <= 0.5*o.perWall:
			nc.Verb, nc.Share = "gone", o.share
			if c.present {
				nc.Verb = "shrank"
			}
		default:
			continue
		}
		out = append(out, nc)
	}
	sortChanges(out)
	return out
}

// sortChanges puts those NEW had more of first, then by name.
func sortChanges(out []NeighbourChange) {
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Grew != b.Grew {
			return a.Grew
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Kind < b.Kind
	})
}
