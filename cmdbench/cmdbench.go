//go:build linux

// Package cmdbench runs 'tmpprobe compare': any commands, in the labs'
// rounds protocol, each round running every command once untraced (its
// wall time) and once traced over its whole process tree (through follow,
// as 'tmpprobe trace' does). It records them as a run whose arms are the
// commands and whose op is one run of a command, so results' medians,
// intervals and ratios, explain's WHY and every writer apply to them as
// they do to a lab.
package cmdbench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/rounds"
)

// Command is one command to compare: its name in the tables, and the argv
// it runs.
type Command struct {
	Name string
	Argv []string
}

// Argv is the argv of a command line: sh -c LINE with a shell, as
// hyperfine takes commands, or LINE split on white space without one (no
// quoting: a command that needs it needs the shell).
func Argv(line string, shell bool) []string {
	if shell {
		return []string{"sh", "-c", line}
	}
	return strings.Fields(line)
}

// Commands pairs command lines with their names: the given names, else the
// line itself. A name given twice (compare 'X' 'X', an A/A check) gets its
// position after it, since the WHY and a diff find commands by name.
func Commands(lines, names []string, shell bool) ([]Command, error) {
	if len(names) > 0 && len(names) != len(lines) {
		return nil, fmt.Errorf("%d names for %d commands", len(names), len(lines))
	}
	seen := map[string]int{}
	var out []Command
	for i, line := range lines {
		argv := Argv(line, shell)
		if len(argv) == 0 {
			return nil, fmt.Errorf("command %d is empty", i+1)
		}
		if err := follow.Runnable(argv[0]); err != nil {
			return nil, err
		}
		name := line
		if len(names) > 0 {
			name = names[i]
		}
		if seen[name]++; seen[name] > 1 {
			name = fmt.Sprintf("%s #%d", name, i+1)
		}
		out = append(out, Command{Name: name, Argv: argv})
	}
	return out, nil
}

// Tracer is the probe as compare uses it: follow's tracer, attached for
// the traced half of a round and detached for the untraced half (so
// untraced runs pay for no hook), its threads forgotten after each traced
// run (a straggler the run left is not the next run's).
type Tracer interface {
	follow.Tracer
	follow.ExecClock // both halves' runs start at their command's exec (StartExecClock)
	Attach() error
	Detach()
	ForgetThreads()
}

// Options say what to compare and how.
type Options struct {
	Commands []Command
	Prepare  []string // run before every run, untraced; nil: nothing
	Warmup   int      // untraced runs of each command before round 1
	Rounds   int      // measured rounds; with MinTime or Until, the fewest
	MinTime  time.Duration
	// Until > 0 runs rounds until every command's ratio to the first has
	// a 95% interval at most this wide ((hi − lo) ÷ median), as the labs'
	// --until, up to MaxRounds.
	Until float64
	Seed  uint64 // of the rounds' order (rounds.Orderer)
	// IgnoreFailure keeps going past a command that exits non-zero; its
	// runs count as any other.
	IgnoreFailure bool
	Tracer        Tracer // attached when Run is called
	Cookie        uint64 // the marker cookie the commands are told
	// As runs the commands and --prepare as this user (nil: as tmpprobe
	// runs), traced or not.
	As *follow.User

	Progress func(Progress)
}

// MaxRounds caps a run by --min-time, as the labs cap --rounds.
const MaxRounds = 1000

// Progress is where a comparison is: after each run of a command.
type Progress struct {
	Warmup        bool
	Round, Rounds int // Rounds is 0 when --min-time decides
	Done, Total   int // runs of this round (or of the warm-up)
	Command       string
	Traced        bool
}

// Failure is a command that exited non-zero: its status as a shell reports
// it and the tail of its stderr.
type Failure struct {
	Command string
	Status  int
	Round   int // 0 in the warm-up
	Traced  bool
	Stderr  string
}

func (f *Failure) Error() string {
	when := fmt.Sprintf("in round %d", f.Round)
	switch {
	case f.Round == 0:
		when = "in the warm-up"
	case f.Traced:
		when += " (traced)"
	}
	return fmt.Sprintf("%s exited with status %d %s", f.Command, f.Status, when)
}

// ErrInterrupted is returned when ctx ended the comparison; the arms hold
// the rounds that finished.
var ErrInterrupted = rounds.ErrInterrupted

// Run compares the commands and returns one arm each, with every run as a
// batch of one op, and the protocol that ordered them. On a failure or an
// interrupt the arms so far come back with the error: a *Failure (also
// set as the failing arm's Error and Stderr), ErrInterrupted, or a
// tracer's error.
func Run(ctx context.Context, o Options) ([]results.ArmResult, results.Protocol, error) {
	r := &runner{o: o, arms: make([]results.ArmResult, len(o.Commands))}
	all := make([]int, len(o.Commands))
	for i, c := range o.Commands {
		r.arms[i] = results.ArmResult{CaseID: results.CaseID{Lab: results.LabCompare, Arm: c.Name, Runtime: "-"}, Ops: 1}
		all[i] = i
	}
	// One group: every command is compared with every other, so all of
	// them run back to back in each half of a round. Every run is a fresh
	// process tree: no state of a worker carries from one round to the
	// next, so each round is its own generation, the unit results'
	// intervals count.
	plan := rounds.Plan{Groups: [][]int{all}, Seed: o.Seed, Rounds: o.Rounds, Untraced: true, Traced: true,
		GenerationRounds: 1, Warmups: o.Warmup, Ops: 1}
	if o.MinTime > 0 || o.Until > 0 {
		plan.Rounds = MaxRounds
		plan.Continue = func(s rounds.Status) bool {
			return s.Rounds < o.Rounds || s.Measuring < o.MinTime || (o.Until > 0 && r.unsettled())
		}
	}
	engine := &rounds.Runner{Plan: plan, Tracer: o.Tracer, Progress: r.progress}
	out, err := engine.Run(ctx, r)
	if ctx.Err() != nil && err == nil {
		err = ErrInterrupted
	}
	return r.arms, results.Protocol{Name: results.ProtocolRounds, Seed: o.Seed, FixedOps: 1, Rounds: out.Rounds, Until: o.Until}, err
}

// unsettled says a command's ratio to the first has no interval yet, or
// one wider than Until.
func (r *runner) unsettled() bool {
	run := &results.Run{Kind: results.KindCompare, Protocol: results.Protocol{Name: results.ProtocolRounds, FixedOps: 1}, Arms: r.arms}
	for _, s := range results.SummarizeAll(run, results.CommandBaseline(run, nil))[1:] {
		if e := s.Ratio; !e.Bounded() || (e.Hi-e.Lo)/e.Center > r.o.Until {
			return true
		}
	}
	return false
}

// runner is the commands as the rounds engine runs them.
type runner struct {
	o    Options
	arms []results.ArmResult
}

func (r *runner) Batch(ctx context.Context, c int, b *results.Batch) error { return r.once(ctx, c, b) }

// Live: a command's failure stops the comparison (unless --ignore-failure
// counts it as any other run), so every command runs every batch.
func (r *runner) Live(int) bool { return true }

// progress says where the comparison is: the warm-up's runs, then each
// round's (of how many, unless --min-time decides).
func (r *runner) progress(p rounds.Progress) {
	if r.o.Progress == nil {
		return
	}
	shown := p.Rounds
	if p.Stage == rounds.StageRound && r.o.MinTime > 0 {
		shown = 0
	}
	r.o.Progress(Progress{Warmup: p.Stage == rounds.StageWarmup, Round: p.Round, Rounds: shown, Done: p.Done, Total: p.Total,
		Command: r.o.Commands[p.Case].Name, Traced: p.Traced})
}

// once runs --prepare, then command i once, fills b and appends it to the
// command's arm.
func (r *runner) once(ctx context.Context, i int, b *results.Batch) error {
	c := r.o.Commands[i]
	if len(r.o.Prepare) > 0 {
		if _, status, tail, err := r.plain(ctx, r.o.Prepare); err != nil || status != 0 {
			if ctx.Err() != nil {
				return ErrInterrupted
			}
			if err != nil {
				return fmt.Errorf("--prepare: %w", err)
			}
			return fmt.Errorf("--prepare exited with status %d before %s:\n%s", status, c.Name, tail)
		}
	}
	var (
		wall   time.Duration
		status int
		tail   string
		err    error
	)
	if b.Traced {
		wall, status, tail, err = r.traced(ctx, c, b)
		b.Phase = follow.Phase
	} else {
		wall, status, tail, err = r.plain(ctx, c.Argv)
	}
	if ctx.Err() != nil {
		return ErrInterrupted
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c.Name, err)
	}
	b.WallNs, b.ExitStatus = wall.Nanoseconds(), status
	a := &r.arms[i]
	a.Batches = append(a.Batches, *b)
	if status != 0 && !r.o.IgnoreFailure {
		f := &Failure{Command: c.Name, Status: status, Round: b.Round, Traced: b.Traced, Stderr: tail}
		a.Error, a.Stderr = f.Error(), tail
		return f
	}
	return nil
}

// traced runs the command under the probe, from its execve on, with every
// process it starts, and fills b with what they did summed over the tree
// and who shared the CPU and the disk with them (as a lab's traced batch).
// Its wall time is follow's, from the command's exec to its exit, the span
// plain times.
func (r *runner) traced(ctx context.Context, c Command, b *results.Batch) (time.Duration, int, string, error) {
	// The probe's totals run on across runs, as during a trace: this
	// run's are the difference of two snapshots. Clearing them instead
	// would have the next run's first records allocated anew, some in
	// irq context (block completions), where an allocation can fail.
	before, err := r.o.Tracer.Snapshot()
	if err != nil {
		return 0, 0, "", err
	}
	var stacksBefore map[uint32][]results.StackRecord
	if st, ok := r.o.Tracer.(follow.StackTracer); ok {
		if stacksBefore, err = st.SnapshotStacks(); err != nil {
			return 0, 0, "", err
		}
	}
	defer r.o.Tracer.ForgetThreads()
	t := &tailWriter{}
	spec := &follow.Spec{Command: c.Argv, Follow: true, Stderr: t, As: r.o.As, OwnGroup: true, Clock: r.o.Tracer}
	res, err := follow.Run(ctx, r.o.Tracer, r.o.Cookie, spec, nil, nil)
	if err != nil {
		return 0, 0, "", err
	}
	for ph, recs := range res.Records {
		res.Records[ph] = results.SubtractRecords(recs, before[ph])
	}
	for ph, recs := range res.Stacks {
		res.Stacks[ph] = results.SubtractStackRecords(recs, stacksBefore[ph])
	}
	whole := res.Arms(c.Name)[0].Batches[0]
	b.Records, b.Neighbours, b.Stacks = whole.Records, whole.Neighbours, whole.Stacks
	return res.Wall, res.ExitCode, t.String(), nil
}

// plain runs argv untraced, stdin and stdout on /dev/null (as hyperfine
// runs commands), as the traced runs run it, and times it from its exec
// to its exit (follow.RunUntraced). The fork before it is tmpprobe's, as
// the launcher's exec is in a traced run; timing one side from the fork
// would put tmpprobe's own cost in the observer effect.
func (r *runner) plain(ctx context.Context, argv []string) (time.Duration, int, string, error) {
	t := &tailWriter{}
	spec := &follow.Spec{Command: argv, Stderr: t, As: r.o.As, OwnGroup: true, Clock: r.o.Tracer}
	wall, status, err := follow.RunUntraced(ctx, spec, r.o.Cookie)
	if ctx.Err() != nil {
		return 0, 0, "", ErrInterrupted
	}
	return wall, status, t.String(), err
}

// tailWriter keeps the last tailBytes of what a command wrote to stderr.
type tailWriter struct{ b []byte }

const tailBytes = 4096

func (t *tailWriter) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2*tailBytes {
		t.b = append(t.b[:0], t.b[len(t.b)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailWriter) String() string {
	b := t.b
	if len(b) > tailBytes {
		b = b[len(b)-tailBytes:]
	}
	return string(b)
}
