//go:build linux

// Package target traces what the user names — a command it starts, running
// processes, or a cgroup — with the same probe and records as the labs.
package target

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tmpprobe/probe"
	"tmpprobe/results"
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
	Command  []string
	PIDs     []int
	TIDs     []int
	Cgroup   string
	Follow   bool
	Duration time.Duration // 0: until the target ends or an interrupt
	Interval time.Duration // 0: no periodic summaries
}

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
	Elapsed time.Duration
	Records map[uint32][]results.ClassRecord
}

// Result is a finished trace: records by phase, summed over the run.
type Result struct {
	Wall     time.Duration
	Records  map[uint32][]results.ClassRecord
	ExitCode int    // of a launched command; -1 when killed by a signal
	Stderr   string // not captured: the command's stderr goes to ours
}

// Run traces spec with p, which must be open (with TargetCgroup set for a
// cgroup) and attached. It returns when the target ends, the duration
// passes, or ctx is cancelled.
func Run(ctx context.Context, p *probe.Probe, spec *Spec, ready func(), every func(Interval)) (*Result, error) {
	res := &Result{Records: map[uint32][]results.ClassRecord{}}
	var cmd *exec.Cmd
	var release *os.File
	var err error
	switch {
	case len(spec.Command) > 0:
		cmd, release, err = launch(spec.Command, p.Cookie)
		if err != nil {
			return nil, err
		}
		defer func() {
			if cmd.ProcessState == nil {
				cmd.Process.Kill()
				cmd.Wait()
			}
		}()
		if err := p.TrackProcess(cmd.Process.Pid, Phase, spec.Follow); err != nil {
			return nil, err
		}
	case len(spec.PIDs) > 0:
		for _, pid := range spec.PIDs {
			if err := p.TrackProcess(pid, Phase, spec.Follow); err != nil {
				return nil, err
			}
		}
	case len(spec.TIDs) > 0:
		if err := p.TrackThreads(spec.TIDs, Phase, spec.Follow); err != nil {
			return nil, err
		}
	}
	if ready != nil {
		ready()
	}
	start := time.Now()
	exited := make(chan error, 1)
	if cmd != nil {
		release.Write([]byte{1})
		release.Close()
		go func() { exited <- cmd.Wait() }()
	}
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
	collect := func() (map[uint32][]results.ClassRecord, error) {
		got, err := p.Collect()
		if err != nil {
			return nil, err
		}
		for ph, recs := range got {
			res.Records[ph] = results.MergeRecords(res.Records[ph], recs)
		}
		return got, nil
	}
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-deadline:
			break loop
		case err := <-exited:
			res.ExitCode = exitCode(err)
			break loop
		case <-poll.C:
			if watched := append(spec.PIDs, spec.TIDs...); len(watched) > 0 && !anyAlive(watched) {
				break loop
			}
		case <-tick:
			got, err := collect()
			if err != nil {
				return nil, err
			}
			if every != nil {
				every(Interval{Elapsed: time.Since(start), Records: got})
			}
		}
	}
	res.Wall = time.Since(start)
	if _, err := collect(); err != nil {
		return nil, err
	}
	return res, nil
}

// launch starts "tmpprobe __launch CMD…", which blocks until release is
// written, so the probe tracks its pid before the command's first syscall.
func launch(command []string, cookie uint64) (*exec.Cmd, *os.File, error) {
	if _, err := exec.LookPath(command[0]); err != nil {
		return nil, nil, fmt.Errorf("%s: command not found", command[0])
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(exe, append([]string{LaunchArg}, command...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{r}
	cmd.Env = append(os.Environ(), CookieEnv+"="+strconv.FormatUint(cookie, 10))
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return nil, nil, err
	}
	r.Close()
	return cmd, w, nil
}

// RunLauncher is the body of "__launch": wait for the go byte on fd 3,
// then become the command.
func RunLauncher(command []string) error {
	gate := os.NewFile(3, "gate")
	var b [1]byte
	if n, _ := gate.Read(b[:]); n != 1 {
		return errors.New("tracer went away before the command started")
	}
	gate.Close()
	path, err := exec.LookPath(command[0])
	if err != nil {
		return err
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return syscall.Exec(path, command, os.Environ())
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return 0
}

// commandLabel renders a command line on one short line.
func commandLabel(argv []string) string {
	var parts []string
	for _, a := range argv {
		if strings.ContainsAny(a, " \t\n'\"") {
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
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		// pid (comm) state …: comm may hold spaces and parentheses.
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && i+2 < len(b) && b[i+2] != 'Z' {
			return true
		}
	}
	return false
}

// Arms turns a trace into results the report writers know: the whole
// target (every phase summed, one "op" = the whole run), then one entry per
// region the target marked itself (one op = one entry into the region).
func (r *Result) Arms(label string) []results.ArmResult {
	var all []results.ClassRecord
	var regions []uint32
	for ph, recs := range r.Records {
		for _, rec := range recs {
			if rec.Class != results.RegionClass {
				all = results.MergeRecords(all, []results.ClassRecord{rec})
			}
		}
		if ph != Phase {
			regions = append(regions, ph)
		}
	}
	sort.Slice(regions, func(i, j int) bool { return regions[i] < regions[j] })
	out := []results.ArmResult{{Lab: "trace", Arm: label, Runtime: "-", Ops: 1,
		Batches: []results.Batch{{Phase: Phase, Traced: true, WallNs: r.Wall.Nanoseconds(), Records: all}}}}
	for _, ph := range regions {
		var recs []results.ClassRecord
		var entries, inside uint64
		for _, rec := range r.Records[ph] {
			if rec.Class == results.RegionClass {
				entries, inside = rec.Calls, rec.TotalNs
				continue
			}
			recs = append(recs, rec)
		}
		if entries == 0 {
			continue // a region still open at the end has no complete entry
		}
		out = append(out, results.ArmResult{Lab: "trace", Arm: fmt.Sprintf("region %d", ph&^probe.RegionFlag),
			Runtime: "-", Ops: int(entries),
			Batches: []results.Batch{{Phase: ph, Traced: true, WallNs: int64(inside), Records: recs}}})
	}
	return out
}
