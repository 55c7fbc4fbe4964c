//go:build linux

// Package follow follows what 'tmpprobe trace' names — a command it
// launches, running processes or threads, or a cgroup — with the probe,
// until it ends, and turns what the probe recorded into results: one arm
// for the whole target and one per region it marked.
package follow

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/probe"
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

// Spec says what to trace and for how long.
type Spec struct {
	Command []string
	// Stdin, Stdout and Stderr of a launched command: all nil is
	// tmpprobe's own (trace); once one is set, the nil ones are /dev/null,
	// as os/exec has them (compare).
	Stdin          io.Reader
	Stdout, Stderr io.Writer

	PIDs     []int
	TIDs     []int
	Cgroup   string
	Follow   bool
	Duration time.Duration // 0: until the target ends or an interrupt
	Interval time.Duration // 0: no periodic summaries
	// As runs Command as this user instead of root (strace -u); nil: as
	// tmpprobe runs.
	As *User
	// OwnGroup starts Command in a process group of its own (compare): a
	// signal sent to tmpprobe's group (kill -TERM -PGID, a terminal's
	// Ctrl-C) then reaches tmpprobe, which stops the command, and not the
	// command, whose death by it would read as the command failing. A
	// trace leaves the command in tmpprobe's group, where the terminal's
	// job control reaches it as it would without tmpprobe.
	OwnGroup bool
}

// User is who a launched command runs as: its uid, gids and home.
type User struct {
	Name     string
	UID, GID uint32
	Groups   []uint32
	Home     string
}

// launchAsEnv hands the launcher the user to become, as
// "uid:gid:group,group"; it is removed before the command starts.
const launchAsEnv = "TMPPROBE_LAUNCH_AS"

// Label names the target in reports.
func (s *Spec) Label() string {
	switch {
	case len(s.Command) > 0:
		return commandLabel(s.Command)
	case len(s.PIDs) > 0:
		return "pid " + joinInts(s.PIDs)
	case len(s.TIDs) > 0:
		return "tid " + joinInts(s.TIDs)
	}
	return "cgroup " + s.Cgroup
}

// Interval is what Run hands the periodic callback: the records of the
// last interval, by phase.
type Interval struct {
	Elapsed time.Duration // since the trace began, at the interval's end
	Length  time.Duration // the last one, cut by the end of the trace, may be short
	Records map[uint32][]results.ClassRecord
}

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
}

// samplePeriod is how often a trace snapshots its regions, the first
// maxSamples times; beyond that, neighbouring samples merge (the period
// doubles), so a long trace keeps a bounded number of them.
const (
	samplePeriod = 250 * time.Millisecond
	maxSamples   = 64
)

// LaunchPhase holds the launcher's own syscalls until it execs the command;
// they are not the command's and are dropped.
const LaunchPhase = 2

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

// Run traces spec with p, which must be open (with TargetCgroup set for a
// cgroup, LaunchPhase for a command) and attached; cookie is the one its
// markers carry, which a launched command is told. It returns when the
// target ends, the duration passes, or ctx is cancelled; a launched command
// still running then is stopped, with every process it started.
func Run(ctx context.Context, p Tracer, cookie uint64, spec *Spec, ready func(), every func(Interval)) (*Result, error) {
	res := &Result{}
	// What the probe counted before this trace (a request of another
	// process still in flight when the last one ended) is not this one's
	// neighbours.
	if _, err := p.CollectNeighbours(); err != nil {
		return nil, err
	}
	var cmd *exec.Cmd
	exited := make(chan exit, 1)
	cmdDone := false
	var start time.Time
	switch {
	case len(spec.Command) > 0:
		var release *os.File
		var execed int
		var cg *commandCgroup
		var err error
		if cmd, release, execed, cg, res.Uncontained, err = launch(spec, cookie); err != nil {
			return nil, err
		}
		defer syscall.Close(execed)
		defer forget(cmd.Process)
		// The exec's time and the exit's are read one after the other by
		// one goroutine, as an untraced run's are (RunUntraced): read by
		// two, a late wake-up of the exec's reader on a loaded machine
		// put it after the exit of a command that ran 100 µs, and the
		// wall time came out negative.
		execAt := make(chan time.Time, 1)
		go func() {
			execAt <- waitExec(execed)
			err := cmd.Wait()
			exited <- exit{err, time.Now()}
		}()
		defer func() {
			if !cmdDone {
				stopTree(cmd.Process.Pid, exited, cg)
			}
			if cg != nil {
				cg.remove() // and whatever the command left running
			}
		}()
		if err := trackProcess(p, cmd.Process.Pid, LaunchPhase, spec.Follow); err != nil {
			return nil, err
		}
		defer release.Close()
		if ready != nil {
			ready()
		}
		release.Write([]byte{1})
		start = <-execAt
	case len(spec.PIDs) > 0:
		for _, pid := range spec.PIDs {
			if err := trackProcess(p, pid, Phase, spec.Follow); err != nil {
				return nil, err
			}
		}
	case len(spec.TIDs) > 0:
		if err := p.TrackThreads(spec.TIDs, Phase, spec.Follow); err != nil {
			return nil, err
		}
	}
	if ready != nil && cmd == nil {
		ready()
	}
	if cmd == nil {
		start = time.Now()
	}
	end := time.Time{}
	var deadline <-chan time.Time
	if spec.Duration > 0 {
		deadline = time.After(spec.Duration)
	}
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	var tick <-chan time.Time
	if spec.Interval > 0 {
		t := time.NewTicker(spec.Interval)
		defer t.Stop()
		tick = t.C
	}
	sampler := time.NewTicker(samplePeriod)
	defer sampler.Stop()
	// Running totals are read, never cleared, while the target runs: an
	// interval or a sample is the difference of two snapshots, so nothing
	// is lost.
	last, lastSample := map[uint32][]results.ClassRecord{}, map[uint32][]results.ClassRecord{}
	lastTick := start
	interval := func(now map[uint32][]results.ClassRecord) {
		iv := Interval{Elapsed: time.Since(start), Length: time.Since(lastTick), Records: map[uint32][]results.ClassRecord{}}
		for ph, recs := range now {
			iv.Records[ph] = results.SubtractRecords(recs, last[ph])
		}
		last, lastTick = now, time.Now()
		if every != nil {
			every(iv)
		}
	}
	sample := func() error {
		now, err := p.Snapshot()
		if err != nil {
			return err
		}
		res.addSample(now, lastSample)
		lastSample = now
		return nil
	}
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-deadline:
			break loop
		case e := <-exited:
			cmdDone = true
			res.ExitCode, end = exitCode(e.err, cmd), e.at
			break loop
		case <-poll.C:
			if watched := append(spec.PIDs, spec.TIDs...); len(watched) > 0 && !anyAlive(watched) {
				break loop
			}
		case <-sampler.C:
			if err := sample(); err != nil {
				return nil, err
			}
		case <-tick:
			now, err := p.Snapshot()
			if err != nil {
				return nil, err
			}
			interval(now)
		}
	}
	if end.IsZero() {
		end = time.Now()
	}
	res.Wall = end.Sub(start)
	final, err := p.Snapshot()
	if err != nil {
		return nil, err
	}
	nbs, err := p.CollectNeighbours()
	if err != nil {
		return nil, err
	}
	delete(nbs, LaunchPhase)
	self := uint32(os.Getpid())
	for _, l := range nbs {
		l = results.MarkObserver(l, func(pid uint32) bool { return pid == self })
		res.Neighbours = results.SumNeighbours(res.Neighbours, l)
	}
	// The last interval, cut short by the end of the trace, prints too,
	// as bcc's tools print every one: --interval 2s --duration 4s is two.
	if tick != nil && time.Since(lastTick) >= time.Millisecond {
		interval(final)
	}
	delete(final, LaunchPhase)
	res.Records = final
	res.addSample(final, lastSample)
	return res, nil
}

// exit is a launched command's end: what Wait returned, and when.
type exit struct {
	err error
	at  time.Time
}

// waitExec blocks until the launcher execs the command, which closes the
// launcher's end of the execed pipe (close-on-exec), and returns that
// moment; or until the launcher exits without exec'ing.
//
// A launched command's wall time starts here, not when the launcher is
// released: the launcher is a Go process, and its exec first stops its
// other threads and tears down its address space, 1–4 ms that are
// tmpprobe's, not the command's. The kernel closes close-on-exec files
// after both, in the command's execve, and compare's untraced runs start
// their clock at the same event (os/exec's Start returns when the child's
// exec closes its close-on-exec pipe), so that the traced and untraced
// wall times are the same span, exec to exit, and their ratio, the
// observer effect, is the probe's alone. The read is a blocking read(2),
// as os/exec's is, so both clocks are read after the same kind of wake-up.
func waitExec(execed int) time.Time {
	var b [1]byte
	for {
		n, err := syscall.Read(execed, b[:])
		if err == syscall.EINTR || n > 0 && err == nil {
			continue
		}
		return time.Now()
	}
}

// addSample keeps what the regions did since the last sample.
func (r *Result) addSample(now, last map[uint32][]results.ClassRecord) {
	s := map[uint32][]results.ClassRecord{}
	for ph, recs := range now {
		if ph&probe.RegionFlag != 0 {
			if d := results.SubtractRecords(recs, last[ph]); len(d) > 0 {
				s[ph] = d
			}
		}
	}
	r.Samples = append(r.Samples, s)
	if len(r.Samples) > maxSamples {
		var merged []map[uint32][]results.ClassRecord
		for i := 0; i < len(r.Samples); i += 2 {
			m := r.Samples[i]
			if i+1 < len(r.Samples) {
				for ph, recs := range r.Samples[i+1] {
					m[ph] = results.MergeRecords(m[ph], recs)
				}
			}
			merged = append(merged, m)
		}
		r.Samples = merged
	}
}

// trackProcess traces every thread of pid in phase, as a whole (no
// markers). New threads are picked up at fork; with follow, new child
// processes too.
func trackProcess(p Tracer, pid int, phase uint32, follow bool) error {
	tids, err := threadsOf(pid)
	if err != nil {
		return err
	}
	return p.TrackThreads(tids, phase, follow)
}

// threadsOf lists pid's threads from /proc/<pid>/task.
func threadsOf(pid int) ([]int, error) {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, fmt.Errorf("pid %d: %w", pid, errtext.Cause(err))
	}
	var out []int
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}

// Proc is what /proc/PID/stat says of a process: its state (R, S, D,
// Z for a zombie, …) and its parent.
type Proc struct {
	State byte
	PPID  int
}

// ReadProc reads /proc/PID/stat.
func ReadProc(pid int) (Proc, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Proc{}, err
	}
	// pid (comm) state ppid …: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 2 || len(f[0]) != 1 {
		return Proc{}, fmt.Errorf("/proc/%d/stat: no state and parent in %q", pid, b)
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return Proc{}, fmt.Errorf("/proc/%d/stat: parent %q", pid, f[1])
	}
	return Proc{State: f[0][0], PPID: ppid}, nil
}

// commandLabel renders a command line on one short line.
func commandLabel(argv []string) string {
	var parts []string
	for _, a := range argv {
		// Quoted, a control character (ESC, BEL), a bidi override or
		// invalid UTF-8 is shown escaped, never sent to the terminal.
		if strings.ContainsAny(a, " \t\n'\"") || strings.IndexFunc(a, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 || !utf8.ValidString(a) {
			a = strconv.Quote(a)
		}
		parts = append(parts, a)
	}
	s := []rune(strings.Join(parts, " "))
	if len(s) > 60 {
		return string(s[:59]) + "…"
	}
	return string(s)
}

func joinInts(v []int) string {
	var s []string
	for _, x := range v {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, ",")
}

// anyAlive reports whether any of the processes still runs; a zombie
// (exited, not yet reaped by its parent) does not.
func anyAlive(pids []int) bool {
	for _, pid := range pids {
		if p, err := ReadProc(pid); err == nil && p.State != 'Z' {
			return true
		}
	}
	return false
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
		CaseID: results.CaseID{Lab: results.LabTrace, Arm: label, Runtime: "-"},
		Ops:    1,
		Batches: []results.Batch{{Round: 1, Ops: 1, Phase: Phase, Traced: true, WallNs: r.Wall.Nanoseconds(), Records: all,
			Neighbours: r.Neighbours}},
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
			CaseID:  results.CaseID{Lab: results.LabTrace, Arm: results.RegionArm(region), Runtime: "-"},
			Region:  &region,
			Ops:     int(entries),
			Batches: r.regionRounds(ph),
		}
		if len(a.Batches) == 0 {
			a.Batches = []results.Batch{{Round: 1, Ops: int(entries), Phase: ph, Traced: true, WallNs: int64(inside), Records: recs}}
		}
		out = append(out, a)
	}
	return out
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
