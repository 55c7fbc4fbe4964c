//go:build linux

package session

import (
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"time"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/render"
)

// Trace is a trace of a command, running processes or threads, or a
// cgroup (Spec).
type Trace struct {
	Spec    *follow.Spec
	Backend probe.Backend
	Errors  bool // count failed calls by errno
	View    render.TraceView
	Outputs Outputs
	Quiet   bool // no "tracing …" line
	Stderr  io.Writer
	// Args are the command line, as run.json records it.
	Args []string
	// NoStacks takes no user stacks (traceStacks).
	NoStacks bool
}

// RunTrace traces until the target ends, the duration passes or a signal
// comes, then reports and saves the trace. A launched command's non-zero
// status ends it as a CommandExit with that status.
func RunTrace(in *Interrupts, t Trace, stdout io.Writer) (*Outcome, error) {
	spec := t.Spec
	// Neighbours come with follow.Run, as compare's traced runs have them:
	// who took the CPU from the target's threads. A trace watches no
	// devices (it has no work dir: a pid, a cgroup or a command may write
	// anywhere), so no disk neighbours are counted.
	opts := probe.Options{Attach: t.Backend, TracePhase: follow.Phase, CountErrnos: t.Errors, AnyDevice: true,
		Stacks: traceStacks(t.NoStacks)}
	if len(spec.Command) > 0 {
		opts.LaunchPhase = follow.LaunchPhase
	}
	if spec.Cgroup != "" {
		id, err := follow.CgroupID(spec.Cgroup)
		if err != nil {
			return nil, &UsageError{err.Error()}
		}
		opts.TargetCgroup = id
	}
	in.onSecond(follow.Abort)
	if in.ended() {
		return nil, in.before()
	}
	run := newRun(results.KindTrace, t.Args)
	run.Meta = preflight.Host()
	if len(spec.Command) > 0 {
		launching(run, spec.As, t.Stderr)
	}
	p, err := openProbe(opts, nil, &run.Meta, false)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	run.Meta.Notes = append(run.Meta.Notes, say(t.Stderr, run.Kind, p.StackNotes()...)...)
	if len(spec.Command) > 0 && startExecClock(p, &run.Meta) {
		spec.Clock = p
	}
	t.Outputs.hold()
	res, err := follow.Run(in.Context(), p, p.Cookie, spec, t.ready(p.Cookie), t.everyInterval(stdout))
	interrupted := in.decide()
	if err != nil {
		return nil, err
	}
	run.Meta.Notes = append(run.Meta.Notes, say(t.Stderr, run.Kind, res.InFlight...)...)
	if res.Uncontained != "" {
		run.Meta.Notes = append(run.Meta.Notes, say(t.Stderr, run.Kind, results.Note{Kind: results.NoteUncontained, Reason: res.Uncontained})...)
	}
	run.Complete, run.Finished, run.Arms = interrupted == nil, time.Now().UTC(), res.Arms(spec.Label())
	run.Started = run.Finished.Add(-res.Wall)
	takeProbeResults(run, p)
	t.Outputs.Text.Trace = &t.View
	// A target and its regions: no lab to compare them by.
	out, err := t.Outputs.conclude(run, explain.LabKnowledge{}, stdout, t.Stderr, nil)
	if err != nil {
		return out, err
	}
	if interrupted != nil {
		return out, &Interrupted{Signal: interrupted}
	}
	if res.ExitCode != 0 {
		return out, &CommandExit{Status: res.ExitCode}
	}
	return out, nil
}

// traceStacks are the stacks a trace or a comparison takes: every call of
// the costly syscalls (follow.StackClasses), one in follow.StackEvery of
// the others, user time sampled by function, and the frames of whatever
// CPython the command runs.
func traceStacks(none bool) *probe.StackOptions {
	if none {
		return nil
	}
	so := &probe.StackOptions{Every: follow.StackEvery, SampleHz: StackSampleHz, AnyPython: true}
	for _, c := range follow.StackClasses {
		if probe.KnownClass(c) {
			so.All = append(so.All, c)
		}
	}
	return so
}

// ready is the "tracing …" line, said once the target is tracked.
func (t *Trace) ready(cookie uint64) func() {
	return func() {
		if t.Quiet {
			return
		}
		as := ""
		if len(t.Spec.Command) > 0 {
			as = " as " + AsWho(t.Spec.As)
		}
		fmt.Fprintf(t.Stderr, "tmpprobe: tracing %s%s (markers: %s=%d)\n", t.Spec.Label(), as, follow.CookieEnv, cookie)
	}
}

// everyInterval prints each --interval's summary: as text, so beside a
// report that goes elsewhere or is JSON, on stderr.
func (t *Trace) everyInterval(stdout io.Writer) func(follow.Interval) {
	w := stdout
	if t.Outputs.Output != "" || t.Outputs.Format != "text" {
		w = t.Stderr
	}
	return func(iv follow.Interval) {
		a := follow.Result{Wall: iv.Length, Records: iv.Records, Children: t.Spec.Follow}
		arms := a.Arms(fmt.Sprintf("%s [%.1fs]", t.Spec.Label(), iv.Elapsed.Seconds()))
		render.WriteTrace(w, results.SummarizeAll(&results.Run{Arms: arms[:1]}, nil), t.View)
	}
}

// AsWho names who a command ran as, for the report.
func AsWho(as *follow.User) string {
	if as == nil {
		name := strconv.Itoa(os.Geteuid())
		if u, err := user.LookupId(name); err == nil {
			name = u.Username
		}
		return fmt.Sprintf("%s (uid %d)", name, os.Geteuid())
	}
	return fmt.Sprintf("%s (uid %d, gid %d)", as.Name, as.UID, as.GID)
}
