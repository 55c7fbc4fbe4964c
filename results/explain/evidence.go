package explain

import (
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// The culprits' evidence, keyed on the names the probe and preflight
// define (results/names.go): which stages and off-CPU labels show each
// mechanism at work, and which facts of the host and mount options move
// each mechanism. A new kind of culprit is a name in results/names.go
// (when it is new) and an entry here; TestEvidence holds every entry to a
// case it ties.

// A Sign is what a figure is of, by the probe's names: a stage, an
// off-CPU label, a syscall class (a time per call), or user space.
type Sign struct {
	Stage string // results.Stage*
	Label string // results.Off*
	Class string
	User  bool
}

// StageSign and LabelSign are the signs of a stage and of a label.
func StageSign(stage string) Sign { return Sign{Stage: stage} }
func LabelSign(label string) Sign { return Sign{Label: label} }

// mechanism is what a fact of the environment moves: the signs of a term
// that show it at work, or user space (user), or any term (any: a change
// of kernel or CPU speed moves every figure).
type mechanism struct {
	evidence []Sign
	user     bool
	any      bool
}

// The mechanisms, by the signs that show each at work.
var (
	mechFlush = mechanism{evidence: []Sign{StageSign(results.StageDevFlush), StageSign(results.StageBioFlush),
		StageSign(results.StageBioFUA), StageSign(results.StageJBD2Commit),
		LabelSign(results.OffBlockedJBD2), LabelSign(results.OffSleepJBD2)}}
	mechDiscard = mechanism{evidence: []Sign{StageSign(results.StageDevDiscard), StageSign(results.StageBioDiscard)}}
	mechJournal = mechanism{evidence: []Sign{StageSign(results.StageJBD2Commit), StageSign(results.StageJBD2Handle),
		StageSign(results.StageDevFlush), StageSign(results.StageDevWrite),
		LabelSign(results.OffBlockedJBD2), LabelSign(results.OffSleepJBD2)}}
	mechDevice = mechanism{evidence: []Sign{StageSign(results.StageDevWrite), StageSign(results.StageDevRead),
		StageSign(results.StageDevDiscard), StageSign(results.StageDevFlush),
		LabelSign(results.OffBlockedIRQ), LabelSign(results.OffSleepIRQ),
		LabelSign(results.OffBlockedJBD2), LabelSign(results.OffSleepJBD2)}}
	mechWriteback = mechanism{evidence: []Sign{StageSign(results.StageDevWrite), StageSign(results.StageBioWrite),
		LabelSign(results.OffBlockedKworker), LabelSign(results.OffSleepKworker)}}
	mechRunQueue  = mechanism{evidence: []Sign{LabelSign(results.OffPreempted)}}
	mechPageFault = mechanism{evidence: []Sign{StageSign(results.StagePageFault)}}
	mechUser      = mechanism{user: true}
	mechCPUMax    = mechanism{evidence: mechRunQueue.evidence, user: true}
	mechAny       = mechanism{any: true}
)

// factMechanisms are what a fact moves, by its name.
var factMechanisms = map[string]mechanism{
	results.FactWriteCache: mechFlush, results.FactFUA: mechFlush,
	results.FactDiscardMax: mechDiscard, results.FactDiscardGran: mechDiscard,
	results.FactJournal: mechJournal, results.FactFastCommit: mechJournal,
	results.FactScheduler: mechDevice, results.FactWBTLatency: mechDevice, results.FactNrRequests: mechDevice,
	results.FactRotational: mechDevice, results.FactReadAhead: mechDevice, results.FactMaxSectors: mechDevice,
	results.FactLoopDIO: mechDevice, results.FactIOMax: mechDevice,
	results.FactDirtyBgBytes: mechWriteback, results.FactDirtyBgRatio: mechWriteback, results.FactDirtyBytes: mechWriteback,
	results.FactDirtyRatio: mechWriteback, results.FactDirtyExpire: mechWriteback, results.FactDirtyWriteback: mechWriteback,
	results.FactPython: mechUser,
	results.FactTHP:    mechPageFault, results.FactMemoryMax: mechPageFault,
	results.FactCPUMax:        mechCPUMax,
	results.FactKernelRelease: mechAny, results.FactKernelCmdline: mechAny, results.FactCPUFreq: mechAny,
	results.FactCPU: mechAny, results.FactCPUs: mechAny, results.FactBackend: mechAny,
	// Another file system under the work dir changes every mechanism.
	results.FactFSType: mechAny, results.FactOverlayUpper: mechAny,
}

// optionMechanisms are what a file system's mount option moves, by its
// name without "no" and "=value" (ext4's option names).
var optionMechanisms = map[string]mechanism{
	"barrier": mechFlush,
	"discard": mechDiscard,
	"data":    mechJournal, "commit": mechJournal, "journal_async_commit": mechJournal, "journal_checksum": mechJournal,
	"min_batch_time": mechJournal, "max_batch_time": mechJournal, "fast_commit": mechJournal, "journal_ioprio": mechJournal,
	"delalloc": mechWriteback, "dioread_nolock": mechWriteback, "auto_da_alloc": mechWriteback, "dax": mechWriteback,
}

// optionMechanism is what an option moves.
func optionMechanism(opt string) mechanism {
	key, _, _ := strings.Cut(opt, "=")
	return optionMechanisms[strings.TrimPrefix(key, "no")]
}

// evident says a figure of sign s shows the mechanism at work.
func (m mechanism) evident(s Sign) bool {
	return (m.user && s.User) || (s != Sign{} && slices.Contains(m.evidence, s))
}

// CauseKind says how a difference of the environment is said as a cause.
type CauseKind uint8

const (
	// CauseMove: the work dir moved from Old to New (places).
	CauseMove CauseKind = iota + 1
	// CauseMounted: NEW is mounted Option.
	CauseMounted
	// CauseUnmounted: NEW is mounted without Option (OLD had it).
	CauseUnmounted
	// CauseFact: Fact went from Old to New.
	CauseFact
	// CauseOptions: mount options Added and Removed (comma-joined),
	// with no mechanism known.
	CauseOptions
)

// Cause is a difference of the environment as a cause of a change. Two
// differences that are one change (an option in the mount options and
// in the options ext4 reports) are the same Cause.
type Cause struct {
	Kind           CauseKind
	Fact           string
	Option         string
	Old, New       string
	Added, Removed string
}

// Culprit is what a diff ties to a term or a work headline: a difference
// of the environment, or a neighbour that appeared, grew, shrank or
// vanished.
type Culprit struct {
	Cause     *Cause
	Neighbour *NeighbourChange
	// Code is a function of the program whose user time changed (#39):
	// user space's culprit as a mount option is a syscall's.
	Code *CodeChange
}

// CodeChange is a function whose user time per op changed between two
// runs: the part of user space's term it is.
type CodeChange struct {
	Function, File string
	Line           int
	Delta          float64 // ns per op
}

// same says two culprits are one, said once.
func (c Culprit) same(o Culprit) bool {
	switch {
	case c.Cause != nil && o.Cause != nil:
		return *c.Cause == *o.Cause
	case c.Neighbour != nil && o.Neighbour != nil:
		return c.Neighbour.Name == o.Neighbour.Name && c.Neighbour.Verb == o.Neighbour.Verb
	case c.Code != nil && o.Code != nil:
		return c.Code.Function == o.Code.Function && c.Code.File == o.Code.File
	}
	return false
}
