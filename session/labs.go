//go:build linux

package session

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/freshfs"
	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// Labs is a run of the lab arms.
type Labs struct {
	Plan    *arms.Plan
	Backend probe.Backend // "": none, throughput only
	// FreshFS runs each of Plan.Dirs in a fresh file system made to match
	// it (freshfs), removed after the run.
	FreshFS bool
	// History is the directory of the earlier runs whose spread between
	// runs the intervals include ("": none).
	History string
	// Skipped is the note of a runtime that cannot run here (nil: none).
	Skipped *results.Note
	Outputs Outputs
	// Progress, when set, starts the progress line as the measuring
	// starts, so that its times leave out the setup before it (a fresh
	// file system, the probe's load): update is told where the run is,
	// done that the measuring has ended (the line is cleared before the
	// report).
	Progress func() (update func(arms.Progress), done func())
	Stderr   io.Writer
	// Args are the command line, as run.json records it.
	Args []string
	// NoStacks takes no user stacks (labStacks).
	NoStacks bool
}

// RunLabs runs the labs, then reports and saves the run. On an error or
// a signal what finished is still reported and saved.
func RunLabs(in *Interrupts, l Labs, stdout io.Writer) (out *Outcome, err error) {
	if in.ended() {
		return nil, in.before()
	}
	run := newRun(results.KindLabs, l.Args)
	// What an earlier tmpprobe that was killed left, and its guard did
	// not remove: said now, and in the footer.
	swept := say(l.Stderr, run.Kind, leftovers(freshfs.Sweep())...)
	var freshOf map[string]string
	var fresh []results.Note
	if l.FreshFS {
		var remove func(io.Writer)
		freshOf, fresh, remove, err = freshDirs(in, l.Plan)
		defer remove(l.Stderr)
		if err != nil {
			return nil, err
		}
	}
	run.Started, run.Protocol = time.Now().UTC(), l.Plan.Describe()
	var devs []uint32
	if run.Meta, devs, err = preflight.Facts(l.Plan.Dirs, arms.PythonVersion(l.Plan.Runtimes)); err != nil {
		return nil, usagef("--dir %s", err)
	}
	run.Meta.Notes = append(append(run.Meta.Notes, swept...), fresh...)
	for i := range run.Meta.Dirs {
		run.Meta.Dirs[i].FreshOf = freshOf[run.Meta.Dirs[i].Dir]
	}
	run.Derived.Warnings = preflight.Warnings(&run.Meta)
	if l.Skipped != nil {
		run.Meta.Notes = append(run.Meta.Notes, say(l.Stderr, run.Kind, *l.Skipped)...)
	}
	runner := &arms.Runner{}
	in.onSecond(runner.Abort)
	var p *probe.Probe
	if l.Backend == "" {
		run.Meta.Backend = "none"
		l.Plan.Baseline = false
	} else {
		opts := probe.Options{Attach: l.Backend}
		if !l.NoStacks {
			opts.Stacks = labStacks(l.Plan)
		}
		if p, err = openProbe(opts, devs, &run.Meta, true); err != nil {
			return nil, err
		}
		defer p.Close()
		run.Meta.Notes = append(run.Meta.Notes, say(l.Stderr, run.Kind, p.StackNotes()...)...)
		runner.Tracer, runner.Cookie = p, p.Cookie
	}
	if in.ended() {
		return nil, in.before()
	}
	pressure := preflight.PressureOver()
	setup := time.Since(run.Started)
	measured := func() {}
	if l.Progress != nil {
		runner.Progress, measured = l.Progress()
	}
	l.Outputs.hold()
	res, runErr := runner.Run(in.Context(), l.Plan)
	interrupted := in.decide()
	run.Meta.Pressure = pressure()
	measured()
	run.Arms, run.Finished = res, time.Now().UTC()
	if l.Plan.Protocol != results.ProtocolSeed {
		run.Timing = runner.Timing(setup)
	}
	run.Complete = runErr == nil && interrupted == nil
	if p != nil {
		takeProbeResults(run, p)
		if run.Stacks != nil {
			run.Stacks.Harness = arms.Harness()
		}
	}
	if runner.Reruns > 0 {
		run.Meta.Notes = append(run.Meta.Notes, results.Note{Kind: results.NoteRerun, What: strconv.Itoa(runner.Reruns)})
	}
	out, err = l.Outputs.conclude(run, knowledge(), stdout, l.Stderr, func(out *Outcome) {
		widen(out, l.History, l.Outputs.Out)
		run.Derived.Warnings = append(run.Derived.Warnings, explain.StateWarnings(out.Sums, out.Labs.Baselines)...)
	})
	if err != nil {
		return out, err
	}
	switch {
	case errors.Is(runErr, arms.ErrInterrupted) || interrupted != nil:
		return out, &Interrupted{Signal: interrupted, Finished: "the results above cover the arms that finished"}
	case in.late():
		fmt.Fprintln(l.Stderr, "tmpprobe: interrupted after the last batch: the run is complete, and so are its report and files")
	}
	if runErr != nil {
		return out, runErr
	}
	for _, a := range run.Arms {
		if a.Error != "" {
			return out, ArmsFailed{}
		}
	}
	return out, nil
}

// labStacks are the stacks a lab run takes: every traced call of the
// labs' costly syscalls, and user time sampled by function, each
// worker's interpreter read from its start.
func labStacks(plan *arms.Plan) *probe.StackOptions {
	so := &probe.StackOptions{SampleHz: StackSampleHz, Every: LabStackEvery}
	for _, c := range arms.StackClasses {
		if probe.KnownClass(c) {
			so.Sampled = append(so.Sampled, c)
		}
	}
	for _, rt := range plan.Runtimes {
		if rt.Name == "python" {
			so.Interpreters = append(so.Interpreters, rt.Python)
		}
	}
	return so
}

// StackSampleHz is the user-time sampler's rate: a tick costs ~50 µs of
// a followed thread's wall time on this VM (a timer interrupt and its VM
// exit, not BPF: the program's own run is ~1.5 µs), and at 997 Hz
// TemporaryFile's TRACED fell from 0.83-0.89 to 0.73-0.79; at 499 Hz it
// held (0.82-0.89), sampling a tick every 2 ms of user time. A prime, so
// that no loop of a round period phase-locks with it.
const StackSampleHz = 499

// LabStackEvery is the rate of the labs' syscall stacks: one call in 16
// of the costly classes (arms.StackClasses). At every call a Python
// stack (~1.5 µs, six frames) on TemporaryFile's three (openat, write,
// close, ~50 µs an op) took TRACED from 0.83 to 0.71-0.79; the labs'
// call sites repeat, op after op, and every call is still counted
// exactly by the counting path.
const LabStackEvery = 16

// freshDirs makes the plan's dirs fresh file systems: freshOf maps each
// mount to the dir it matches, notes describe them, remove removes them.
func freshDirs(in *Interrupts, plan *arms.Plan) (freshOf map[string]string, notes []results.Note, remove func(io.Writer), err error) {
	startGuard()
	var made []*freshfs.FS
	remove = func(stderr io.Writer) {
		for _, f := range made {
			if err := f.Remove(); err != nil {
				fmt.Fprintln(stderr, "tmpprobe: --fresh-fs:", err)
			}
		}
	}
	freshOf = map[string]string{}
	for i, d := range plan.Dirs {
		ffs, err := freshfs.Make(d, freshfs.DefaultSize)
		if err != nil {
			return nil, nil, remove, usagef("--fresh-fs: %v", err)
		}
		made = append(made, ffs)
		plan.Dirs[i], freshOf[ffs.Dir] = ffs.Dir, d
		notes = append(notes, results.Note{Kind: results.NoteFreshFS, What: ffs.Describe()})
		if in.ended() {
			return nil, nil, remove, in.before()
		}
	}
	return freshOf, notes, remove, nil
}

// widen reads the earlier runs in history that are replicates of this one
// (compare.NotReplicate; skipping the run directory out, which this run
// replaces), measures each case's spread between runs and widens the
// intervals by it; the runs left out are named in the footer.
func widen(out *Outcome, history, skip string) {
	if history == "" {
		return
	}
	run := out.Run
	earlier, leftOut, unread, err := runfile.LoadEarlier(history, skip, func(e *results.Run) string {
		return compare.NotReplicate(run, out.Sums, e, out.Labs.Baselines)
	}, results.MaxEarlierRuns)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		unread = append(unread, err.Error())
	}
	for _, u := range unread {
		run.Meta.Notes = append(run.Meta.Notes, results.Note{Kind: results.NoteHistoryUnread, Reason: errtext.FirstLine(u)})
	}
	run.Derived.Between = results.MeasureBetween(run, out.Sums, history, earlier, out.Labs.Baselines)
	run.Derived.Between.LeftOut = leftOut
	run.Derived.Between.Widen(run, out.Sums)
}
