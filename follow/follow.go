//go:build linux

// Package follow follows what 'tmpprobe trace' names — a command it
// launches, running processes or threads, or a cgroup — with the probe,
// until it ends, and turns what the probe recorded into results: one arm
// for the whole target and one per region it marked.
package follow

import (
	"context"
	"slices"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// Phase is the phase of everything a target does outside its own marked
// regions.
const Phase = 1

// LaunchArg is the hidden subcommand that waits for the probe and then
// execs the command, so the command is traced from its first syscall.
const LaunchArg = "__launch"

// CookieEnv tells a launched command the marker cookie, so it can mark its
// own regions: lseek(-1, cookie, phase<<1 | begin).
const CookieEnv = "TMPPROBE_COOKIE"

// LaunchPhase holds the launcher's own syscalls until it execs the command;
// they are not the command's and are dropped.
const LaunchPhase = 2

// StackClasses are the syscalls whose every call a trace or a comparison
// takes the stack of: the calls that cost a program its time on a disk
// (the syncs, the namespace changes a journal commits, the creates that
// allocate an inode), each far longer than the ~1.5 µs a stack costs.
var StackClasses = []string{"fsync", "fdatasync", "sync_file_range", "syncfs", "sync", "msync",
	"rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir", "mkdir", "mkdirat",
	results.ClassOpenatCreate, results.ClassOpenatTmpfile, "link", "linkat", "symlink", "symlinkat",
	"ftruncate", "truncate", "fallocate"}

// StackEvery is the rate of every other call's stack: one in 64, drawn
// at random, ~25 ns a call on average where a Python stack costs ~1.5 µs;
// every call is still counted.
const StackEvery = 64

// Tracer is the probe as a trace sees it: it tracks the threads it is
// given, with their phase, reads the running totals by phase without
// clearing them, and takes (reads and clears) the neighbours counted since
// it last did, as the labs' runner does after each batch. Finding a
// process's threads is follow's job (/proc), not the probe's.
type Tracer interface {
	TrackThreads(tids []int, phase uint32, follow bool) error
	Snapshot() (map[uint32][]results.ClassRecord, error)
	CollectNeighbours() (map[uint32][]results.Neighbour, error)
}

// InFlightReporter is a Tracer that says which threads it was handed
// were inside a syscall (its last TrackThreads): that call's time is
// not the trace's, and a report says so.
type InFlightReporter interface {
	InFlight() []results.Note
}

// StackTracer is a Tracer that also takes user stacks: a trace reads
// their running totals by phase at its end, as it reads its records.
type StackTracer interface {
	SnapshotStacks() (map[uint32][]results.StackRecord, error)
}

// PythonInstaller is a Tracer that reads the frames of a Python process
// it is told of: a process traced by pid started its interpreter before
// the trace, where no uprobe saw it.
type PythonInstaller interface {
	InstallPython(pid int) error
}

// Run traces spec with p, which must be open (with TargetCgroup set for a
// cgroup, LaunchPhase for a command) and attached; cookie is the one its
// markers carry, which a launched command is told. It returns when the
// target ends, the duration passes, or ctx is cancelled; a launched command
// still running then is stopped, with every process it started.
func Run(ctx context.Context, p Tracer, cookie uint64, spec *Spec, ready func(), every func(Interval)) (*Result, error) {
	// What the probe counted before this trace (a request of another
	// process still in flight when the last one ended) is not this one's
	// neighbours.
	if _, err := p.CollectNeighbours(); err != nil {
		return nil, err
	}
	t := &tracing{p: p, spec: spec, every: every, res: Result{Children: spec.Follow}}
	defer t.close()
	if err := t.begin(cookie, ready); err != nil {
		return nil, err
	}
	if err := t.wait(ctx); err != nil {
		return nil, err
	}
	if err := t.finish(); err != nil {
		return nil, err
	}
	return &t.res, nil
}

// tracing is a trace while it runs: its target, when it began and ended,
// and the snapshots its intervals and samples are taken against.
type tracing struct {
	p     Tracer
	spec  *Spec
	every func(Interval)
	cmd   *command // a launched command; nil for processes, threads or a cgroup
	start time.Time
	end   time.Time // a launched command's exit; zero until then
	// clockedWall is a launched command's exec-to-exit time by the exec
	// clock (Spec.Clock); 0 without one.
	clockedWall time.Duration
	snapshots
	res Result
}

// begin starts following the target: a launched command from its exec,
// processes and threads from now. A cgroup's threads the probe adopts
// itself, at their first syscall.
func (t *tracing) begin(cookie uint64, ready func()) error {
	switch {
	case len(t.spec.Command) > 0:
		c, uncontained, err := launchCommand(t.spec, cookie)
		if err != nil {
			return err
		}
		t.cmd, t.res.Uncontained = c, uncontained
		if err := trackProcess(t.p, c.cmd.Process.Pid, LaunchPhase, t.spec.Follow); err != nil {
			return err
		}
	case len(t.spec.PIDs) > 0:
		for _, pid := range t.spec.PIDs {
			if err := trackProcess(t.p, pid, Phase, t.spec.Follow); err != nil {
				return err
			}
			t.noteInFlight()
			if pi, ok := t.p.(PythonInstaller); ok {
				pi.InstallPython(pid) // not Python, or gone: its stacks are native
			}
		}
	case len(t.spec.TIDs) > 0:
		if err := t.p.TrackThreads(t.spec.TIDs, Phase, t.spec.Follow); err != nil {
			return err
		}
		t.noteInFlight()
	}
	if ready != nil {
		ready()
	}
	t.start = time.Now()
	if t.cmd != nil {
		t.start = t.cmd.run()
	}
	t.snapshots = newSnapshots(t.start)
	return nil
}

// noteInFlight keeps the notes of the threads just tracked that were
// inside a syscall. (A launched command's launcher waits in one, which
// is no call of the command's.)
func (t *tracing) noteInFlight() {
	if r, ok := t.p.(InFlightReporter); ok {
		t.res.InFlight = append(t.res.InFlight, r.InFlight()...)
	}
}

// wait follows the target until it ends (a launched command exits, the
// last of the processes or threads is gone), the duration passes or ctx
// ends, sampling the regions and handing out intervals meanwhile.
func (t *tracing) wait(ctx context.Context) error {
	var deadline, tick <-chan time.Time
	if t.spec.Duration > 0 {
		deadline = time.After(t.spec.Duration)
	}
	if t.spec.Interval > 0 {
		ticker := time.NewTicker(t.spec.Interval)
		defer ticker.Stop()
		tick = ticker.C
	}
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	sampler := time.NewTicker(samplePeriod)
	defer sampler.Stop()
	watched := slices.Concat(t.spec.PIDs, t.spec.TIDs)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-deadline:
			return nil
		case e := <-t.cmd.exits():
			t.cmd.done = true
			t.res.ExitCode, t.end = exitCode(e.err, t.cmd.cmd), e.at
			if wall, ok := clockedSince(t.spec.Clock, t.cmd.clocked, e); ok {
				t.clockedWall = wall
			}
			return nil
		case <-poll.C:
			if len(watched) > 0 && !anyAlive(watched) {
				return nil
			}
		case <-sampler.C:
			if err := t.sample(); err != nil {
				return err
			}
		case <-tick:
			if err := t.interval(); err != nil {
				return err
			}
		}
	}
}

// finish reads what the probe counted: the whole trace by phase, its last
// sample and interval, and its neighbours.
func (t *tracing) finish() error {
	if t.end.IsZero() {
		t.end = time.Now()
	}
	t.res.Wall = t.end.Sub(t.start)
	if t.clockedWall > 0 {
		t.res.Wall = t.clockedWall // from the exec as the kernel saw it
	}
	final, err := t.p.Snapshot()
	if err != nil {
		return err
	}
	if err := t.res.takeNeighbours(t.p); err != nil {
		return err
	}
	// The last interval, cut short by the end of the trace, prints too,
	// as bcc's tools print every one: --interval 2s --duration 4s is two.
	if t.spec.Interval > 0 && time.Since(t.lastTick) >= time.Millisecond {
		t.handOut(final)
	}
	delete(final, LaunchPhase)
	t.res.Records = final
	if st, ok := t.p.(StackTracer); ok {
		if t.res.Stacks, err = st.SnapshotStacks(); err != nil {
			return err
		}
		delete(t.res.Stacks, LaunchPhase)
	}
	t.res.addSample(final, t.lastSample)
	return nil
}

// close stops a launched command that still runs, with whatever it
// started.
func (t *tracing) close() {
	if t.cmd != nil {
		t.cmd.close()
	}
}
