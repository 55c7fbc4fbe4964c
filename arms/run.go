//go:build linux

package arms

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
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

// observe adds pid to tmpprobe's own processes (see Runner.observer).
func (r *Runner) observe(pid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.observer == nil {
		r.observer = map[uint32]bool{uint32(os.Getpid()): true}
	}
	r.observer[uint32(pid)] = true
}

// observes says pid is one of tmpprobe's own processes.
func (r *Runner) observes(pid uint32) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return pid == uint32(os.Getpid()) || r.observer[pid]
}

// start launches the case's worker; a failure fails the case only.
func (r *Runner) start(ctx context.Context, p *Plan, cr *caseRun) {
	if cr.dead {
		return
	}
	cfg := Config{
		Lab: cr.Arm.Lab, Arm: cr.Arm.Name, PyFunc: cr.Arm.Python, GoSteps: cr.Arm.Go,
		Dir: cr.dir.path, DirFile: cr.dir.file, Payload: cr.Payload, Size: cr.Size,
		Chunk: p.Chunk, SpoolMax: p.SpoolMax, Cookie: r.Cookie,
	}
	var w *Worker
	var err error
	if srv := r.server(cr.Runtime); srv != nil {
		if w, err = srv.Start(ctx, cfg, p.BatchTimeout); w == nil && err != nil && ctx.Err() == nil {
			r.refuseServer(cr.Runtime) // no worker at all: the server's failure, not the case's
		}
	}
	if w == nil && ctx.Err() == nil {
		w, err = Start(ctx, cr.Runtime, cfg, p.BatchTimeout)
	}
	if w != nil {
		r.observe(w.Pid())
	}
	if err != nil && ctx.Err() != nil {
		return // interrupted: not the case's fault
	}
	if err != nil {
		stderr := ""
		if w != nil {
			stderr = w.Stderr()
		}
		cr.fail(r.describe(cr, w, err, p.BatchTimeout), stderr)
		return
	}
	cr.w = w
}

// startAll starts the workers of cases together: nothing is measured
// while workers start, and a host has more than one CPU. The next
// generation's Python fork servers start meanwhile (an interpreter and
// its imports, ~45 ms of a CPU here): startAll returns once they are
// ready, so they run beside this generation's starts, never beside its
// measured batches.
func (r *Runner) startAll(ctx context.Context, p *Plan, runs []*caseRun, cases []int) {
	pythons := map[string]Runtime{}
	for _, c := range cases {
		if rt := runs[c].Runtime; rt.Name == "python" {
			pythons[rt.Python] = rt
		}
	}
	for _, rt := range pythons {
		r.server(rt) // this generation's, before the next's
	}
	var ahead []*forkServer
	for _, rt := range pythons {
		if s := r.startAhead(rt); s != nil {
			ahead = append(ahead, s)
		}
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, 2*runtime.NumCPU())
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			r.start(ctx, p, runs[c])
		}()
	}
	wg.Wait()
	for _, s := range ahead {
		s.wait(ctx) // one that failed is found when it is used
	}
}

// startAhead starts the next generation's fork server of rt, if it has
// none yet.
func (r *Runner) startAhead(rt Runtime) *forkServer {
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	if r.noServer[rt.Python] || r.ahead[rt.Python] != nil {
		return nil
	}
	s := r.newServer(rt)
	if s == nil {
		return nil
	}
	if r.ahead == nil {
		r.ahead = map[string]*forkServer{}
	}
	r.ahead[rt.Python] = s
	return s
}

// newServer starts a fork server of rt, one of tmpprobe's own processes
// (Runner.observer); nil if it cannot be started.
func (r *Runner) newServer(rt Runtime) *forkServer {
	s, err := startForkServer(rt, r.timeout)
	if err != nil {
		return nil
	}
	r.observe(s.cmd.Process.Pid)
	return s
}

// server is the current generation's fork server for the python runtime
// rt, started on first use; nil for the go runtime and for an
// interpreter that cannot run one.
func (r *Runner) server(rt Runtime) *forkServer {
	if rt.Name != "python" {
		return nil
	}
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	if r.noServer[rt.Python] {
		return nil
	}
	if s := r.servers[rt.Python]; s != nil {
		return s
	}
	s := r.ahead[rt.Python]
	delete(r.ahead, rt.Python)
	if s == nil {
		if s = r.newServer(rt); s == nil {
			r.refuseServerLocked(rt)
			return nil
		}
	}
	if r.servers == nil {
		r.servers = map[string]*forkServer{}
	}
	r.servers[rt.Python] = s
	return s
}

// refuseServer starts rt's workers by exec from now on: its interpreter
// could not run a fork server (before Python 3.9).
func (r *Runner) refuseServer(rt Runtime) {
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	r.refuseServerLocked(rt)
}

func (r *Runner) refuseServerLocked(rt Runtime) {
	if r.noServer == nil {
		r.noServer = map[string]bool{}
	}
	r.noServer[rt.Python] = true
	for _, m := range []map[string]*forkServer{r.servers, r.ahead} {
		if s := m[rt.Python]; s != nil {
			s.Kill()
			delete(m, rt.Python)
		}
	}
}

// closeServers ends the generation's fork servers, after their workers;
// kill ends every server at once, the next generation's too, with any
// worker left.
func (r *Runner) closeServers(kill bool) {
	r.srvMu.Lock()
	defer r.srvMu.Unlock()
	for py, s := range r.servers {
		if kill {
			s.Kill()
		} else {
			s.Close()
		}
		delete(r.servers, py)
	}
	for py, s := range r.ahead {
		if kill {
			s.Kill()
			delete(r.ahead, py)
		}
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

// runRounds runs the plan in the rounds engine: every worker started,
// every case calibrated and warmed up, then the measured rounds in the
// seeded order, with fresh workers every --worker-rounds.
func (r *Runner) runRounds(ctx context.Context, p *Plan, runs []*caseRun) error {
	engine := &rounds.Runner{
		Plan: rounds.Plan{Groups: p.Groups(), Seed: p.Seed, Rounds: p.RoundsFor(""),
			Untraced: p.Baseline || r.Tracer == nil, Traced: r.Tracer != nil,
			GenerationRounds: p.WorkerRounds, Warmups: 1, FreshWarmup: FreshWarmup, Ops: p.Ops, MinBatch: p.MinBatch},
		Tracer:   r.Tracer,
		Progress: func(pr rounds.Progress) { r.reportRound(pr, runs) },
	}
	if p.Until > 0 {
		engine.Narrow = func(rounds.Status) [][]int { return unsettled(p, runs) }
	}
	out, err := engine.Run(ctx, &labCases{r: r, p: p, runs: runs})
	for i, n := range out.Ops {
		runs[i].res.Ops = n
	}
	r.Times = out.Time
	return err
}

// unsettled are the groups of the cases whose headline intervals are
// still wider than p.Until, or unbounded (under six generations), with
// each group's baseline while a ratio to it is: the next generation runs
// them alone. A failed case is settled: it runs no more.
func unsettled(p *Plan, runs []*caseRun) [][]int {
	res := make([]results.ArmResult, len(runs))
	for i, cr := range runs {
		res[i] = cr.res
	}
	labs := Knowledge().Baselines
	sums := results.SummarizeAll(&results.Run{Protocol: p.Describe(), Arms: res}, labs)
	wide := func(e results.Estimate) bool {
		return e.Known() && (!e.Bounded() || (e.Hi-e.Lo)/e.Center > p.Until)
	}
	var out [][]int
	for _, g := range p.Groups() {
		var next []int
		base, baseWide := -1, false
		for _, c := range g {
			if runs[c].dead {
				continue
			}
			s := sums[c]
			if labs[s.Lab] == s.Arm {
				base, baseWide = c, wide(s.Observer)
				continue
			}
			if wide(s.Ratio) {
				baseWide = true // its ratio needs the baseline's rounds
				next = append(next, c)
			} else if wide(s.Observer) {
				next = append(next, c)
			}
		}
		if base >= 0 && baseWide {
			next = append([]int{base}, next...)
		}
		if len(next) > 0 {
			out = append(out, next)
		}
	}
	return out
}

// reportRound says where the engine is as the progress line shows it:
// the first generation's starts and calibration, then the rounds; a later
// generation's start counts as part of its first round.
func (r *Runner) reportRound(pr rounds.Progress, runs []*caseRun) {
	out := Progress{Done: pr.Done, Total: pr.Total, Case: runs[pr.Case].Case}
	switch {
	case pr.Stage == rounds.StageRound:
		out.Stage, out.Round, out.Rounds, out.Left, out.AtMost = StageRound, pr.Round, pr.Rounds, pr.Left, pr.AtMost
	case pr.Generation > 1:
		return
	case pr.Stage == rounds.StageStart:
		out.Stage = StageStart
	default:
		out.Stage = StageCalibrate
	}
	r.report(out)
}

// labCases are the plan's cases as the rounds engine runs them: each a
// worker process, renewed with its group's directory every generation.
type labCases struct {
	r    *Runner
	p    *Plan
	runs []*caseRun
}

func (l *labCases) Batch(ctx context.Context, c int, b *results.Batch) error {
	return l.r.batch(ctx, l.p, l.runs[c], b)
}

// Live: a case runs batches while it has a worker and has not failed (an
// interrupt can leave it without one).
func (l *labCases) Live(c int) bool { return !l.runs[c].dead && l.runs[c].w != nil }

func (l *labCases) Start(ctx context.Context, _ int, cases []int) {
	l.r.startAll(ctx, l.p, l.runs, cases)
}

// Renew ends every worker and gives every group a fresh directory: see
// Plan.WorkerRounds.
func (l *labCases) Renew(int) {
	l.Finish()
	l.r.groupDirs(l.p, l.runs)
}

// Finish asks every worker to quit, then waits for them all, then for
// the generation's fork servers.
func (l *labCases) Finish() {
	for _, cr := range l.runs {
		if cr.w != nil {
			cr.w.Quit()
		}
	}
	for _, cr := range l.runs {
		cr.finish()
	}
	l.r.closeServers(false)
}

// runSeed runs the labs' published method: one case after another, each
// with its fixed batch (1000 ops; one round trip in the buffers lab) run
// untraced and traced in turn, as many times as the lab repeats it.
func (r *Runner) runSeed(ctx context.Context, p *Plan, runs []*caseRun) error {
	sw := rounds.Switch{Tracer: r.Tracer}
	for i, cr := range runs {
		if ctx.Err() != nil {
			return ErrInterrupted
		}
		r.start(ctx, p, cr)
		cr.res.Ops = p.Ops
		if cr.res.Ops == 0 {
			cr.res.Ops = SeedOpsModes
			if cr.Arm.Lab == LabBuffers {
				cr.res.Ops = 1
			}
		}
		repeats := p.RoundsFor(cr.Arm.Lab)
		for round := 1; round <= repeats && !cr.dead; round++ {
			for _, traced := range []bool{false, true} {
				if traced && r.Tracer == nil || !traced && !p.Baseline && r.Tracer != nil {
					continue
				}
				if ctx.Err() != nil {
					return ErrInterrupted
				}
				if err := sw.Set(traced); err != nil {
					return err
				}
				if err := r.batch(ctx, p, cr, &results.Batch{Round: round, Ops: cr.res.Ops, Traced: traced}); err != nil {
					return err
				}
			}
		}
		cr.finish()
		r.report(Progress{Stage: StageCase, Done: i + 1, Total: len(runs), Case: cr.Case})
	}
	return nil
}

func (r *Runner) report(p Progress) {
	if r.Progress != nil {
		r.Progress(p)
	}
}

var errTracer = errors.New("tracer")

// tracedAttempts bounds how often a traced batch runs before its case
// fails because none of its runs could be attributed (see batch).
const tracedAttempts = 3

// batch runs one batch of the case, with the probe attached for it or
// not, fills in b and appends it to the case's result. A worker failure
// fails the case; only a tracer failure is returned.
//
// A lab's traced batch is one thread between its markers. One whose
// worker ended it on another thread (ErrMovedThread), or whose records
// hold more syscall time than its wall time (a second thread's syscalls,
// or one call's time counted twice), cannot be attributed: its records
// are dropped, the threads the probe follows forgotten, and it runs again
// under a new phase, at most tracedAttempts times.
func (r *Runner) batch(ctx context.Context, p *Plan, cr *caseRun, b *results.Batch) error {
	for attempt := 1; ; attempt++ {
		if b.Traced {
			r.phase++
			b.Phase = r.phase
		}
		wall, err := cr.w.Batch(b.Phase, b.Traced, b.Ops, p.BatchTimeout)
		var unattributed error // why a traced batch's records are not one thread's
		if errors.Is(err, ErrMovedThread) {
			unattributed, err = err, nil
		}
		if err != nil && ctx.Err() != nil {
			return ErrInterrupted // the interrupt killed the worker: not the case's fault
		}
		if err != nil {
			w := cr.w
			cr.fail(r.describe(cr, w, err, p.BatchTimeout), w.Stderr())
			if b.Traced {
				r.Tracer.ForgetThreads()
			}
			return nil
		}
		b.WallNs = wall
		if b.Traced {
			if err := r.collect(b); err != nil {
				return err
			}
			if unattributed == nil {
				unattributed = b.CheckOneThread(b.Ops)
			}
		}
		if !b.Traced || unattributed == nil {
			cr.res.Batches = append(cr.res.Batches, *b)
			return nil
		}
		r.Tracer.ForgetThreads()
		b.Records, b.Neighbours = nil, nil
		if attempt == tracedAttempts {
			cr.fail(fmt.Sprintf("%d traced batches in a row could not be attributed: %v", attempt, unattributed), "")
			return nil
		}
		r.Reruns++
	}
}

// collect reads a traced batch's records and neighbours into b.
func (r *Runner) collect(b *results.Batch) error {
	recs, err := r.Tracer.Collect()
	if err != nil {
		return fmt.Errorf("%w: %v", errTracer, err)
	}
	b.Records = recs[b.Phase]
	if nc, ok := r.Tracer.(NeighbourCollector); ok {
		nbs, err := nc.CollectNeighbours()
		if err != nil {
			return fmt.Errorf("%w: %v", errTracer, err)
		}
		b.Neighbours = results.MarkObserver(nbs[b.Phase], r.observes)
	}
	return nil
}

// describe says why a case's worker failed: its work dir moved away
// under it, it timed out, or what it reported.
func (r *Runner) describe(cr *caseRun, w *Worker, err error, timeout time.Duration) string {
	if moved := r.workFor[cr.Dir].moved(); moved != nil {
		return fmt.Sprintf("%v (worker: %v)", moved, err)
	}
	if w != nil && w.TimedOut() {
		return fmt.Sprintf("timed out after %s (--arm-timeout)", timeout)
	}
	return err.Error()
}
