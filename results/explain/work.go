package explain

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// The first thing a diff says of an arm (#29): did each op do more work,
// or the same work more slowly? Counts are exact where timings move with
// the machine, so they decide it; what moved in time is then said per
// unit of that work — µs per syscall, device µs per request, run-queue
// wait per op — where a person can tell a disk that got slower from a
// workload that asked more of it.

// Verdicts on an arm's work.
const (
	WorkMore      = "more work"
	WorkLess      = "less work"
	WorkOther     = "other work" // some counts up, others down
	WorkSame      = "same work"
	WorkUnjudged  = "work not judged" // too few samples a side
	sameSlower    = "same work, slower"
	sameFaster    = "same work, faster"
	maxWorkShown  = 2
	maxCulprits   = 3
	unitTimeShare = 0.25 // of Δ wall, for a mechanism to head the sentence
)

// WorkCount is one count of an arm's work per op (a results.Work* key, or
// a syscall's calls or bytes) in two runs.
type WorkCount struct {
	Name    string  `json:"name"`
	Old     float64 `json:"old"`
	New     float64 `json:"new"`
	Changed bool    `json:"changed"`
	// From is the code a syscall's calls came from, on the side that
	// made more of them (TopSite): "from persist (app.py:4) ← main
	// (app.py:10)"; "" where no stack was taken.
	From string `json:"from,omitempty"`
}

// Pct is the change in percent of Old: ±Inf from or to nothing new.
func (w WorkCount) Pct() float64 {
	if w.Old == 0 {
		if w.New == 0 {
			return 0
		}
		return math.Inf(1)
	}
	return 100 * (w.New/w.Old - 1)
}

// Text says the count in a sentence: "discards/op 0 → 1", "fsync
// calls/op 1 → 2", "write bytes/op 400 → 800".
func (w WorkCount) Text(unit string) string {
	if results.WorkIsBytes(w.Name) {
		return fmt.Sprintf("%s/%s %s → %s", w.Name, unit, results.Size(w.Old), results.Size(w.New))
	}
	s := fmt.Sprintf("%s/%s %s → %s", w.Name, unit, results.Count(w.Old), results.Count(w.New))
	if w.From != "" {
		s += " " + w.From
	}
	return s
}

// Work is what a diff found of one arm's work per op.
type Work struct {
	Verdict string `json:"verdict"`
	// Changed are the counts that changed (Counts' Changed ones), the
	// largest relative change first.
	Changed []WorkCount `json:"changed,omitempty"`
	// Unit is what a time per unit of work heads the sentence (Slower or
	// faster), for a diff to say when it moved in every arm that does
	// that work.
	Unit   *UnitTime `json:"unit_time,omitempty"`
	Slower bool      `json:"-"`
	// Device is what a diff says of a device's time per request that
	// heads it; nil when none does.
	Device *DeviceNote `json:"-"`
	// Culprits are the causes the headline names.
	Culprits []Culprit `json:"-"`
}

// NewWork says an arm's work verdict from its counts, each judged
// (Changed) by the caller.
func NewWork(counts []WorkCount, judged bool) Work {
	if !judged {
		return Work{Verdict: WorkUnjudged}
	}
	w := Work{Verdict: WorkSame}
	up, down := false, false
	for _, c := range counts {
		if c.Changed {
			w.Changed = append(w.Changed, c)
			up, down = up || c.New > c.Old, down || c.New < c.Old
		}
	}
	sort.SliceStable(w.Changed, func(i, j int) bool {
		a, b := math.Abs(w.Changed[i].Pct()), math.Abs(w.Changed[j].Pct())
		if a != b {
			return a > b
		}
		if pa, pb := workRank(w.Changed[i].Name), workRank(w.Changed[j].Name); pa != pb {
			return pa < pb
		}
		return w.Changed[i].Name < w.Changed[j].Name
	})
	switch {
	case up && down:
		w.Verdict = WorkOther
	case up:
		w.Verdict = WorkMore
	case down:
		w.Verdict = WorkLess
	}
	return w
}

// workOrder ranks counts that changed alike (each from nothing): what
// costs a device or a journal most first, bytes, which restate requests,
// and page faults last.
var workOrder = []string{results.WorkFlushes, results.WorkDiscards, results.WorkJournalCommits, results.WorkDeviceWrites,
	results.WorkDeviceReads, results.WorkInodesAlloc, results.WorkInodesFreed}

func workRank(name string) int {
	if i := slices.Index(workOrder, name); i >= 0 {
		return i
	}
	switch {
	case results.WorkCallsOf(name) != "":
		return len(workOrder)
	case name == results.WorkPageFaults:
		return len(workOrder) + 2
	}
	return len(workOrder) + 1 // bytes
}

// MoreOrLess reports whether the arm's work per op changed.
func (w Work) MoreOrLess() bool {
	return w.Verdict == WorkMore || w.Verdict == WorkLess || w.Verdict == WorkOther
}

// UnitTime is a time per unit of work in two runs: µs per call of a
// syscall, device µs per request of a kind, µs per inode allocated, or a
// time per op (run-queue wait, user space, an off-CPU cause).
type UnitTime struct {
	Name string `json:"name"` // "device time per flush", "fsync"
	// Per is the unit of work ("flush", "call", "create"), "" for a time
	// per op.
	Per string  `json:"per,omitempty"`
	Old float64 `json:"old_ns"`
	New float64 `json:"new_ns"`
	// Explains is how much of Δ wall per op the change accounts for:
	// the change per unit × NEW's units per op.
	Explains float64 `json:"explains_ns_per_op"`
	// Evidence is what the time is of, for the culprits whose mechanism
	// moves it.
	Evidence  Sign `json:"-"`
	mechanism bool
}

// Text says it: "device time per flush 210 → 440 µs", "run-queue wait
// +12 µs/op".
func (u UnitTime) Text(unit string) string {
	if u.Per == "" {
		return fmt.Sprintf("%s %s µs/%s", u.Name, results.SignedMicros(u.New-u.Old), unit)
	}
	s := fmt.Sprintf("%s %s → %s µs", u.Name, results.Micros(u.Old), results.Micros(u.New))
	if !strings.HasSuffix(u.Name, " per "+u.Per) {
		s += " per " + u.Per
	}
	return s
}

// devicePer names a device request kind's unit.
var devicePer = map[string]string{
	results.StageDevFlush: "flush", results.StageDevWrite: "device write",
	results.StageDevDiscard: "discard", results.StageDevRead: "device read",
}

// UnitTimes are the times per unit of work of an arm in two runs, with
// how much of the change of its wall time per op each accounts for,
// largest first: the mechanisms (device time per request, ext4 inode
// allocation per create, journal commit time per commit, run-queue wait)
// before the syscalls' time per call, user space and off-CPU causes.
func UnitTimes(old, cur *results.Summary) []UnitTime {
	var out []UnitTime
	per := func(name, per string, evidence Sign, mech bool, sum func(*results.Summary) (ns, n float64)) {
		on, oc := sum(old)
		nn, nc := sum(cur)
		if oc <= 0 || nc <= 0 {
			return
		}
		u := UnitTime{Name: name, Per: per, Old: on / oc, New: nn / nc, Evidence: evidence, mechanism: mech}
		u.Explains = (u.New - u.Old) * nc
		out = append(out, u)
	}
	stage := func(st string) func(*results.Summary) (float64, float64) {
		return func(s *results.Summary) (ns, n float64) {
			for _, c := range s.Classes {
				if c.Stage == st {
					ns, n = ns+c.NsPerOp, n+c.CallsPerOp
				}
			}
			return ns, n
		}
	}
	for _, st := range []string{results.StageDevFlush, results.StageDevWrite, results.StageDevDiscard, results.StageDevRead} {
		per("device time per "+devicePer[st], devicePer[st], StageSign(st), true, stage(st))
	}
	per("ext4 inode allocation", "create", StageSign(results.StageExt4NewInode), true, stage(results.StageExt4NewInode))
	per("journal commit time", "commit", StageSign(results.StageJBD2Commit), true, stage(results.StageJBD2Commit))
	rq := UnitTime{Name: RunQueueWait, Old: runQueuePerOp(old), New: runQueuePerOp(cur), Evidence: LabelSign(results.OffPreempted), mechanism: true}
	rq.Explains = rq.New - rq.Old
	out = append(out, rq)
	for _, c := range cur.Classes {
		if c.IsSyscall() && !c.Overlapped {
			class := c.Class
			per(class, "call", Sign{Class: class}, false, func(s *results.Summary) (float64, float64) {
				r := s.Class(class)
				return r.NsPerOp, r.CallsPerOp
			})
		}
	}
	user := UnitTime{Name: results.UserTerm, Old: old.UserNsPerOp, New: cur.UserNsPerOp, Evidence: Sign{User: true}}
	user.Explains = user.New - user.Old
	out = append(out, user)
	sort.SliceStable(out, func(i, j int) bool { return math.Abs(out[i].Explains) > math.Abs(out[j].Explains) })
	return out
}

// runQueuePerOp is an arm's run-queue wait per op: its threads' time off
// the CPU while preempted, in syscalls and between them.
func runQueuePerOp(s *results.Summary) float64 {
	var ns float64
	for _, c := range s.Classes {
		if c.Stage != "" || c.Overlapped {
			continue
		}
		for l, v := range c.OffByLabel {
			if strings.HasPrefix(l, results.OffPreempted) {
				ns += v
			}
		}
	}
	return ns
}

// HeadUnit is the time per unit of work that heads a "same work" change
// of deltaNs per op: the finest mechanism that accounts for a quarter of
// it or more — a device's time per request before ext4's inode
// allocation and the run-queue wait, and those before the journal
// commit that holds a flush — else the time (per call of a syscall, user
// space) that accounts for the most; ok false when none moved its way.
// units are UnitTimes', largest first.
func HeadUnit(units []UnitTime, deltaNs float64) (UnitTime, bool) {
	for tier := 1; tier <= 4; tier++ {
		for _, u := range units {
			if u.tier() != tier || u.Explains*deltaNs <= 0 {
				continue
			}
			if tier == 4 || math.Abs(u.Explains) >= unitTimeShare*math.Abs(deltaNs) {
				return u, true
			}
		}
	}
	return UnitTime{}, false
}

// tier ranks what a time per unit of work says: 1 a device, 2 ext4's
// inode allocation or the run queue, 3 a journal commit, 4 a syscall or
// user space.
func (u UnitTime) tier() int {
	switch {
	case !u.mechanism:
		return 4
	case u.IsDeviceTime():
		return 1
	case u.Evidence == StageSign(results.StageJBD2Commit):
		return 3
	}
	return 2
}

// Pick chooses what heads the sentence of an arm that did the same work
// and changed by deltaNs per op: the time per unit of work that accounts
// for it (HeadUnit). Work that changed heads it itself.
func (w *Work) Pick(deltaNs float64, units []UnitTime) {
	w.Unit = nil
	if w.Verdict != WorkSame || deltaNs == 0 {
		return
	}
	if u, ok := HeadUnit(units, deltaNs); ok {
		w.Unit = &u
		w.Slower = deltaNs > 0
	}
}

// Headed says the work has a headline: it changed, or a time per unit of
// it heads the sentence.
func (w Work) Headed() bool { return w.MoreOrLess() || w.Unit != nil }

// Headline says it: "more work: discards/op 0 → 1 (NEW is mounted
// discard)", or for the same work, what got slower per unit of it: "same
// work, slower: device time per flush 210 → 440 µs (every arm that
// flushes; the device vda, not the workload)"; "" for the same work at
// the same speed. unit names what an op is.
func (w Work) Headline(unit string) string {
	var h string
	switch {
	case w.MoreOrLess():
		var parts []string
		for i, c := range w.Changed {
			if i == maxWorkShown {
				parts = append(parts, fmt.Sprintf("%d more", len(w.Changed)-i))
				break
			}
			parts = append(parts, c.Text(unit))
		}
		h = w.Verdict + ": " + strings.Join(parts, ", ")
	case w.Unit != nil:
		way := sameFaster
		if w.Slower {
			way = sameSlower
		}
		h = way + ": " + w.Unit.Text(unit)
	default:
		return ""
	}
	var paren []string
	if w.Device != nil && w.Unit != nil {
		paren = w.Device.words(*w.Unit)
	}
	for _, c := range w.Culprits {
		paren = append(paren, CulpritText(c))
	}
	if len(paren) > 0 {
		h += " (" + strings.Join(paren, "; ") + ")"
	}
	return h
}

// DeviceNote is what a diff says of a device's time per request that
// heads a "same work" headline: it moved in every arm that does that work
// (EveryArm), and the device (Device), not the workload.
type DeviceNote struct {
	EveryArm bool
	Device   string
}

// words are the note's clauses, of u's kind of request.
func (n DeviceNote) words(u UnitTime) []string {
	var note []string
	if n.EveryArm {
		note = append(note, "every arm that "+deviceVerb[u.Evidence.Stage])
	}
	if n.Device != "" {
		note = append(note, "the device "+n.Device+", not the workload")
	}
	return note
}

var deviceVerb = map[string]string{
	results.StageDevFlush: "flushes", results.StageDevWrite: "writes to the device",
	results.StageDevDiscard: "discards", results.StageDevRead: "reads from the device",
}

// IsDeviceTime says u is a device's time per request.
func (u UnitTime) IsDeviceTime() bool { return deviceVerb[u.Evidence.Stage] != "" }

// IsStorageTime says u is a time per request of the storage below the
// syscalls: a device's, ext4's inode allocation's or a journal commit's.
func (u UnitTime) IsStorageTime() bool {
	return u.IsDeviceTime() || u.Evidence == StageSign(results.StageExt4NewInode) || u.Evidence == StageSign(results.StageJBD2Commit)
}

// RunQueueWait names the run-queue wait as a time per op.
const RunQueueWait = results.RunQueueTerm

// RunQueueGrowth is an arm's run-queue wait that grew, with the CPU
// neighbours that appeared or grew in the run: who took the CPU.
type RunQueueGrowth struct {
	Delta      results.NsPerOp   `json:"delta_ns_per_op"`
	Neighbours []NeighbourChange `json:"-"`
}

// NewRunQueueGrowth ties the CPU neighbours that appeared or grew in the
// run to an arm whose run-queue wait grew by deltaNs per op; nil when
// none did.
func NewRunQueueGrowth(deltaNs float64, neighbours []NeighbourChange) *RunQueueGrowth {
	g := &RunQueueGrowth{Delta: results.NsPerOp(deltaNs)}
	for _, nc := range neighbours {
		if nc.Kind == results.NeighbourCPU && nc.Grew && len(g.Neighbours) < maxCulprits {
			g.Neighbours = append(g.Neighbours, nc)
		}
	}
	if len(g.Neighbours) == 0 {
		return nil
	}
	return g
}

// Who names the neighbours: "cpuhog (pid 4123) appeared; cc (pid 9) grew".
func (g *RunQueueGrowth) Who() string {
	var who []string
	for _, nc := range g.Neighbours {
		who = append(who, NeighbourShort(nc))
	}
	return strings.Join(who, "; ")
}

// Clause says it: "run-queue wait +12 µs/op (cpuhog (pid 4123) appeared)".
func (g *RunQueueGrowth) Clause(unit string) string {
	return fmt.Sprintf("%s %s µs/%s (%s)", RunQueueWait, results.SignedMicros(float64(g.Delta)), unit, g.Who())
}

// RunQueueGrew says an arm's run-queue wait grew enough to name who took
// the CPU: to twice OLD's, by 1% or more of NEW's wall time per op, and
// by a tenth or more of the change of the arm's wall time (a wait that
// moved none of it is not what moved the arm).
func RunQueueGrew(old, cur *results.Summary) (deltaNs float64, grew bool) {
	o, n := runQueuePerOp(old), runQueuePerOp(cur)
	d := n - o
	return d, n >= 2*o && d >= 1 && d >= NeighbourWallMin*cur.WallNsPerOp && d >= 0.1*math.Abs(cur.WallNsPerOp-old.WallNsPerOp)
}
