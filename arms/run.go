//go:build linux

package arms

import (
	"context"
	"fmt"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/rounds"
)

// Tracer is the probe as the runner sees it: attach for traced batches,
// detach for untraced ones, collect each traced batch's records by phase.
type Tracer interface {
	Attach() error
	Detach()
	Collect() (map[uint32][]results.ClassRecord, error)
	ForgetThreads()
}

// NeighbourCollector is a Tracer that also counts who else took the CPU
// and the disk during each traced batch.
type NeighbourCollector interface {
	CollectNeighbours() (map[uint32][]results.Neighbour, error)
}

// StackCollector is a Tracer that also takes user stacks: a traced
// batch's, of its syscalls and its user time, are read with its records.
type StackCollector interface {
	CollectStacks() (map[uint32][]results.StackRecord, error)
}

// PythonInstaller is a Tracer that reads a Python worker's frames once it
// is told the worker's process, where the kernel did not tell it first.
type PythonInstaller interface {
	InstallPython(pid int) error
}

// StackClasses are the labs' costly syscalls, whose traced calls have
// their stacks taken (one in session.LabStackEvery, as measured): the
// calls that make the ops differ (a create, a link, an unlink, a sync).
var StackClasses = []string{results.ClassOpenatCreate, results.ClassOpenatTmpfile, "openat", "unlink", "unlinkat",
	"close", "fsync", "fdatasync", "linkat", "rename", "renameat", "renameat2", "write"}

// Runner runs cases, one worker process each.
type Runner struct {
	Tracer   Tracer // nil: throughput only
	Cookie   uint64
	Progress func(Progress)
	phase    uint32

	mu      sync.Mutex
	work    []*workDir          // private work dirs, removed by Run or Abort
	workFor map[string]*workDir // by --dir
	// servers are the current generation's Python fork servers, by
	// interpreter, and ahead the next generation's, started while this
	// one's workers start; noServer the interpreters that cannot run one
	// (before Python 3.9), whose workers are exec'd one by one.
	srvMu    sync.Mutex
	servers  map[string]*forkServer
	ahead    map[string]*forkServer
	noServer map[string]bool
	// Times are where the rounds' time went (rounds.Times), once Run
	// returns.
	Times rounds.Times
	// Reruns counts the traced batches that ran again because what the
	// probe recorded could not be one thread's (see batch).
	Reruns int
	// observer are tmpprobe's own processes: itself and every worker it
	// started. On a worker's CPU they are the observer, not a neighbour.
	observer map[uint32]bool
	// timeout is --arm-timeout, which bounds every wait on a fork server.
	timeout time.Duration
}

// Stages a run goes through, as Progress reports them.
const (
	StageStart     = "start"     // starting the workers
	StageCalibrate = "calibrate" // sizing each case's batch, and its warm-up batch
	StageRound     = "round"     // a measured round
	StageCase      = "case"      // seed protocol: a case ran all its batches
)

// Progress is reported after each step: a worker started, a case
// calibrated, a batch of a round run.
type Progress struct {
	Stage         string
	Round, Rounds int // StageRound: this round (1-based) of how many
	Done, Total   int // steps of this stage (of this round) done, of how many
	Case          Case
	// Left estimates the time until the last round ends (0: none yet);
	// with Plan.Until it is the time to the cap of rounds (AtMost).
	Left   time.Duration
	AtMost bool
}

// Timing is where the run's time went (Times), for run.json, with setup
// the time before Run.
func (r *Runner) Timing(setup time.Duration) *results.Timing {
	t := r.Times
	return &results.Timing{SetupNs: setup.Nanoseconds(), StartNs: t.Start.Nanoseconds(), CalibrateNs: t.Calibrate.Nanoseconds(),
		WarmupNs: t.Warmup.Nanoseconds(), SwitchNs: t.Switch.Nanoseconds(), RoundsNs: t.Rounds.Nanoseconds(), MeasuredNs: t.Measured.Nanoseconds()}
}

// Abort removes the private work directories at once; for a second
// interrupt, when the process is about to exit without waiting for Run.
func (r *Runner) Abort() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, w := range r.work {
		w.remove()
	}
	r.work = nil
}

// ErrInterrupted marks a run cut short by its context.
var ErrInterrupted = rounds.ErrInterrupted

// caseRun is a case while it runs: its worker and what it measured.
type caseRun struct {
	Case
	res  results.ArmResult
	w    *Worker
	dir  groupDir
	dead bool // failed: its error is in res, and it runs no more batches
}

// Run runs every case of the plan. A failing case is recorded in its result
// and the run goes on; only an interrupt or a tracer failure stops it. The
// results are returned either way, in Cases order, with what each case
// measured before the run stopped.
func (r *Runner) Run(ctx context.Context, p *Plan) ([]results.ArmResult, error) {
	defer r.Abort()
	r.timeout = p.BatchTimeout
	runs, err := r.prepare(p)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, cr := range runs {
			if cr.w != nil {
				cr.w.Kill()
			}
		}
		r.closeServers(true)
	}()
	if p.Protocol == results.ProtocolSeed {
		err = r.runSeed(ctx, p, runs)
	} else {
		err = r.runRounds(ctx, p, runs)
	}
	if ctx.Err() != nil {
		err = ErrInterrupted
	}
	out := make([]results.ArmResult, len(runs))
	for i, cr := range runs {
		out[i] = cr.res
	}
	return out, err
}

// prepare makes the private work dirs, one per --dir, and a directory per
// case inside them.
func (r *Runner) prepare(p *Plan) ([]*caseRun, error) {
	work := map[string]*workDir{}
	for _, d := range p.Dirs {
		w, err := newWorkDir(d)
		if err != nil {
			return nil, fmt.Errorf("work dir: %w", err)
		}
		r.mu.Lock()
		r.work = append(r.work, w)
		r.mu.Unlock()
		work[d] = w
	}
	// Write back what earlier work left dirty on the work dirs' file
	// systems, so it does not drain into this run's fsyncs (a build just
	// before a run leaves tens of MB behind).
	for _, w := range work {
		if err := unix.Syncfs(int(w.dir.Fd())); err != nil {
			return nil, fmt.Errorf("syncfs %s: %w", w.path, err)
		}
	}
	cases := p.Cases()
	runs := make([]*caseRun, len(cases))
	for i, c := range cases {
		runs[i] = &caseRun{Case: c, res: results.ArmResult{CaseID: c.ID()}}
	}
	r.workFor = work
	r.groupDirs(p, runs)
	return runs, nil
}

// groupDirs gives every group of cases a fresh directory. The cases a
// ratio compares share one, as the labs' arms share /tmp: the two arms of
// a ratio then create their files in the same directory, its lock, its
// size and its block group alike, and nothing about the directory can
// differ between them.
func (r *Runner) groupDirs(p *Plan, runs []*caseRun) {
	for _, g := range p.Groups() {
		dir, err := r.workFor[runs[g[0]].Dir].groupDir()
		for _, i := range g {
			if runs[i].dir = dir; err != nil {
				runs[i].fail(err.Error(), "")
			}
		}
	}
}

func (cr *caseRun) fail(msg, stderr string) {
	cr.dead = true
	if cr.res.Error == "" {
		cr.res.Error, cr.res.Stderr = msg, stderr
	}
	if cr.w != nil {
		cr.w.Kill()
		cr.w = nil
	}
}

// finish asks the case's worker to quit.
func (cr *caseRun) finish() {
	if cr.w == nil {
		return
	}
	w := cr.w
	cr.w = nil
	if err := w.Close(); err != nil && !cr.dead {
		cr.fail("worker exit: "+err.Error(), w.Stderr())
	}
}

func (r *Runner) report(p Progress) {
	if r.Progress != nil {
		r.Progress(p)
	}
}
