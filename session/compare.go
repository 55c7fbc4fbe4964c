//go:build linux

package session

import (
	"errors"
	"io"
	"os"
	"time"

	"github.com/tmpprobe/tmpprobe/cmdbench"
	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/internal/escape"
	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
)

// Compare is a comparison of commands in rounds (cmdbench).
type Compare struct {
	Options cmdbench.Options // the commands and the rounds; Tracer and Cookie are the session's
	Backend probe.Backend
	Outputs Outputs
	Stderr  io.Writer
	// Progress, when set, starts the progress line as the rounds start
	// (the probe's load is not in its times): update is told where they
	// are, done that they have ended (the line is cleared before the
	// report).
	Progress func() (update func(cmdbench.Progress), done func())
	// Args are the command line, as run.json records it.
	Args []string
	// NoStacks takes no user stacks (traceStacks).
	NoStacks bool
}

// RunCompare runs the commands in rounds, untraced and traced, then
// reports and saves the comparison. A command that exits non-zero (without
// IgnoreFailure) ends it as a CommandExit with the command's status.
func RunCompare(in *Interrupts, c Compare, stdout io.Writer) (*Outcome, error) {
	in.onSecond(follow.Abort)
	if in.ended() {
		return nil, in.before()
	}
	run := newRun(results.KindCompare, c.Args)
	run.Started, run.Meta = time.Now().UTC(), preflight.Host()
	// The file system the commands start in, as a lab run records its
	// work dirs: whether it journals decides what a sync costs. Its
	// devices are the ones others' requests on count as disk neighbours;
	// the commands' own I/O is matched on any device.
	var devs []uint32
	if cwd, err := os.Getwd(); err == nil {
		if m, d, err := preflight.Facts([]string{cwd}, ""); err == nil {
			run.Meta, devs = m, d
			run.Derived.Warnings = preflight.Warnings(&run.Meta)
		}
	}
	p, err := openProbe(probe.Options{Attach: c.Backend, TracePhase: follow.Phase, LaunchPhase: follow.LaunchPhase, AnyDevice: true,
		Stacks: traceStacks(c.NoStacks)}, devs, &run.Meta, false)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	run.Meta.Notes = append(run.Meta.Notes, say(c.Stderr, run.Kind, p.StackNotes()...)...)
	startExecClock(p, &run.Meta) // both halves' runs
	launching(run, c.Options.As, c.Stderr)
	opts := c.Options
	opts.Tracer, opts.Cookie = p, p.Cookie
	measured := func() {}
	if c.Progress != nil {
		opts.Progress, measured = c.Progress()
	}
	c.Outputs.hold()
	ran, proto, runErr := cmdbench.Run(in.Context(), opts)
	interrupted := in.decide()
	measured()
	run.Arms, run.Protocol, run.Finished = ran, proto, time.Now().UTC()
	run.Complete = runErr == nil && interrupted == nil
	takeProbeResults(run, p)
	out, err := c.Outputs.conclude(run, knowledge(), stdout, c.Stderr, nil)
	if err != nil {
		return out, err
	}
	var failed *cmdbench.Failure
	switch {
	case errors.Is(runErr, cmdbench.ErrInterrupted) || interrupted != nil:
		return out, &Interrupted{Signal: interrupted, Finished: "the figures above cover the rounds that finished"}
	case errors.As(runErr, &failed):
		return out, &CommandExit{Status: failed.Status, Msg: escape.Line(failed.Error()) + " (see FAILED above; --ignore-failure goes on)"}
	}
	return out, runErr
}
