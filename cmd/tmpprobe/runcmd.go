//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/internal/safefs"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/rounds"
	"github.com/tmpprobe/tmpprobe/session"
)

// runFlags are the flags of 'all' and 'run'.
type runFlags struct {
	labs         []string
	ops          int
	rounds       int
	repeats      int
	workerRounds int
	until        string
	minBatch     time.Duration
	seed         uint64
	protocol     string
	payloads     string
	sizes        string
	chunk        string
	spoolMax     string
	dirs         []string
	runtime      string
	python       string
	attach       string
	session.Outputs
	noBaseline bool
	noStacks   bool
	freshFS    bool
	history    string
	armTimeout time.Duration
	quiet      bool
	verbose    bool
}

// runUsage is formatted with the command, its arm argument and its
// examples; %%s is left for the flags.
const runUsage = `Usage: tmpprobe %[1]s %[2]s[flags]

Runs the arms in worker processes (one per arm × runtime × dir × payload
or size), each batch timed by the worker and, while traced, attributed to
syscalls by eBPF. Headline ops/s and ratios come from untraced batches
interleaved with the traced ones; TRACED under each table is traced ÷
untraced. The WHY says each gap's answer first: --why full (or -v) says
every term; 'tmpprobe help terms' says what the terms mean.

Examples:
%[3]s
Flags:
%%s`

func newRunFlags(cmd string) (*pflag.FlagSet, *runFlags) {
	f := &runFlags{}
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringSliceVar(&f.labs, "lab", nil, "labs to run: modes, buffers (default all)")
	fs.IntVar(&f.rounds, "rounds", 0, fmt.Sprintf("measured rounds (default %d; --protocol seed: %d modes, %d buffers)",
		arms.DefaultRounds, arms.SeedBatchesModes, arms.SeedRoundsBuffers))
	fs.IntVar(&f.workerRounds, "worker-rounds", arms.DefaultWorkerRounds, "rounds a worker process serves before a fresh one takes over (0: the whole run)")
	fs.StringVar(&f.until, "until", "", "stop a case's rounds once its RATIO and TRACED intervals are each at most `W` wide, hi − lo in percent of the median, e.g. 10% (--rounds is the cap)")
	fs.IntVar(&f.repeats, "repeats", 0, "")
	fs.MarkDeprecated("repeats", "use --rounds")
	fs.DurationVar(&f.minBatch, "min-batch", arms.DefaultMinBatch, "calibrate each case's batch to last at least this")
	fs.IntVar(&f.ops, "ops", 0, "ops (buffers lab: round trips) per batch, instead of calibrating")
	fs.Uint64Var(&f.seed, "seed", 0, "replay the order of an earlier run (its seed is in the footer and run.json)")
	fs.StringVar(&f.protocol, "protocol", results.ProtocolRounds, "rounds (interleaved, batches sized by time) or seed (the labs' published method)")
	fs.StringVar(&f.payloads, "payload", "400", "payload bytes per op, a list (modes lab), e.g. 64,400,64K")
	fs.StringVar(&f.sizes, "sizes", "256K,1M,4M,16M", "payload sizes (buffers lab)")
	fs.StringVar(&f.chunk, "chunk", "64K", "write/read chunk (buffers lab)")
	fs.StringVar(&f.spoolMax, "spool-max", "1M", "SpooledTemporaryFile max_size (buffers lab)")
	fs.StringSliceVar(&f.dirs, "dir", []string{os.TempDir()}, "directories to run in, a list; a private 0700 dir is made in each")
	dirFlag := fs.Lookup("dir")
	dirFlag.Value = noControls{dirFlag.Value}
	fs.StringVar(&f.runtime, "runtime", "auto", "python, go, or auto (both when python3 is found)")
	fs.StringVar(&f.python, "python", "python3", "Python 3 interpreter for the python runtime")
	fs.StringVar(&f.attach, "attach", "auto", "auto, fentry, kprobe, tracepoint, or none (throughput only)")
	outputFlags(fs, &f.Outputs)
	fs.StringVar(&f.Out, "out", "", "save the run to `DIR`: run.json, arms.csv, syscalls.csv, report.md, chart.svg/.png")
	fs.BoolVar(&f.freshFS, "fresh-fs", false, "run each --dir in a fresh file system made to match it (ext4: its features and mount options, on a loop device backed by a file in it), removed after the run")
	fs.StringVar(&f.history, "history", "", "earlier saved runs (run dirs in `DIR`) whose spread between runs the intervals include (default: the dir --out is in; none: this run's spread only)")
	fs.BoolVar(&f.noBaseline, "no-baseline", false, "skip the untraced batches (ops/s then come from traced batches)")
	fs.BoolVar(&f.noStacks, "no-stacks", false, noStacksHelp)
	fs.DurationVar(&f.armTimeout, "arm-timeout", 5*time.Minute, "kill a worker whose start-up or one batch takes longer than this")
	fs.BoolVar(&f.Text.Hist, "hist", false, "print log2 latency histograms of each syscall class")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on stderr")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "also the notes every run repeats (why a backend was skipped) and the whole WHY")
	return fs, f
}

func cmdRun(in *session.Interrupts, cmd string, args []string, stdout, stderr io.Writer) error {
	fs, f := newRunFlags(cmd)
	if err := parseCommand(fs, args, runUsageOf(cmd), stdout); err != nil {
		return err
	}
	labs, err := f.session(in.Context(), cmd, fs)
	if stopped := in.Stopped(); stopped != nil {
		return stopped
	}
	if err != nil {
		return err
	}
	labs.Stderr, labs.Args = stderr, append([]string{cmd}, args...)
	if !f.quiet {
		labs.Progress = func() (func(arms.Progress), func()) {
			meter := newProgress(stderr)
			return meter.update, meter.close
		}
	}
	_, err = session.RunLabs(in, labs, stdout)
	return err
}

// runUsageOf is the usage of all or run.
func runUsageOf(cmd string) string {
	if cmd == "run" {
		return fmt.Sprintf(runUsage, cmd, "ARM... ", `  sudo tmpprobe run mkstemp-fsync TemporaryFile
  sudo tmpprobe run NamedTemporaryFile --lab modes --payload 64,400,64K --hist
  sudo tmpprobe run buffers --runtime go --sizes 256K,4M
  sudo tmpprobe run TemporaryFile --attach none --ops 1000000
`)
	}
	return fmt.Sprintf(runUsage, cmd, "", `  sudo tmpprobe all
  sudo tmpprobe all --csv syscalls.csv --out runs/today
  sudo tmpprobe all --out runs/$(date +%%H%%M)   # then: the spread between runs
  sudo tmpprobe all --lab buffers --sizes 256K,4M --spool-max 1M
  sudo tmpprobe all --payload 64,400,65536 --dir /tmp,/dev/shm
  sudo tmpprobe all --until 10%% --dir /dev/shm   # stop once narrow enough
`)
}

// session checks the flags of all or run and makes the labs' session:
// every mistake a flag can make is found here, before anything runs.
func (f *runFlags) session(ctx context.Context, cmd string, fs *pflag.FlagSet) (session.Labs, error) {
	names := fs.Args()
	if cmd == "all" && len(names) > 0 {
		return session.Labs{}, usagef("'all' takes no arms (did you mean 'tmpprobe run %s'?)", strings.Join(names, " "))
	}
	if cmd == "run" && len(names) == 0 {
		if _, err := arms.Select(nil, f.labs); err != nil {
			return session.Labs{}, usageError{err.Error()} // an unknown --lab is the mistake to name
		}
		return session.Labs{}, usagef("'run' needs at least one arm (see 'tmpprobe list')")
	}
	l := session.Labs{FreshFS: f.freshFS, Outputs: f.Outputs, NoStacks: f.noStacks}
	var err error
	if l.Backend, err = attachFlag(f.attach); err != nil {
		return l, err
	}
	if fs.Changed("repeats") && !fs.Changed("rounds") {
		f.rounds = f.repeats // the flag's name before rounds
	}
	if l.Plan, err = f.plan(names, fs); err != nil {
		return l, err
	}
	if l.Plan.Runtimes, l.Skipped, err = f.runtimes(ctx); err != nil {
		return l, err
	}
	if err := f.Check(); err != nil {
		return l, err
	}
	l.Outputs.Text.Verbose = f.verbose && !f.quiet
	l.History, err = f.historyDir()
	return l, err
}

// untilWidth parses --until's width, a percent of the median ("10%"), as
// a fraction.
func untilWidth(v string) (float64, error) {
	w, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "%"), 64)
	if err != nil || !(w > 0 && w <= 1000) {
		return 0, usagef("--until %q: want a width in percent of the median, like 10%%", v)
	}
	return w / 100, nil
}

// historyDir is where the earlier runs are read from: --history, else
// the directory --out saves into, where the runs before it were saved;
// "" for none. A --history that names no directory is a mistake, said
// before the run.
func (f *runFlags) historyDir() (string, error) {
	switch f.history {
	case "none":
		return "", nil
	case "":
		if f.Out == "" {
			return "", nil
		}
		return filepath.Dir(filepath.Clean(f.Out)), nil
	}
	st, err := os.Stat(f.history)
	if err != nil {
		return "", usagef("--history %s: %s", f.history, errtext.Bare(err))
	}
	if !st.IsDir() {
		return "", usagef("--history %s: not a directory (it holds saved runs, each a directory written by --out)", f.history)
	}
	return f.history, nil
}

// plan checks the flags and makes the plan. A 0 given as --ops or
// --rounds is a mistake, not "the default".
func (f *runFlags) plan(names []string, fs *pflag.FlagSet) (*arms.Plan, error) {
	seedSet := fs.Changed("seed")
	sel, err := arms.Select(names, f.labs)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	p := &arms.Plan{Arms: sel, Protocol: f.protocol, Rounds: f.rounds, MinBatch: f.minBatch, Ops: f.ops,
		Seed: f.seed, Baseline: !f.noBaseline, BatchTimeout: f.armTimeout, WorkerRounds: f.workerRounds}
	switch {
	case f.protocol != results.ProtocolRounds && f.protocol != results.ProtocolSeed:
		return nil, usagef("--protocol %q: want rounds or seed", f.protocol)
	case f.ops < 0 || f.ops > 100_000_000 || fs.Changed("ops") && f.ops == 0:
		return nil, usagef("--ops %d: want 1..100000000", f.ops)
	case f.rounds < 0 || f.rounds > 1000 || (fs.Changed("rounds") || fs.Changed("repeats")) && f.rounds == 0:
		return nil, usagef("--rounds %d: want 1..1000", f.rounds)
	case f.minBatch < time.Millisecond || f.minBatch > 10*time.Second:
		return nil, usagef("--min-batch %s: want 1ms..10s", f.minBatch)
	case f.workerRounds < 0 || f.workerRounds > 1000:
		return nil, usagef("--worker-rounds %d: want 0..1000 (0: the whole run)", f.workerRounds)
	case f.armTimeout <= 0:
		return nil, usagef("--arm-timeout must be positive")
	case seedSet && f.protocol == results.ProtocolSeed:
		return nil, usagef("--seed orders rounds; the seed protocol runs arms in sequence")
	}
	if !seedSet {
		p.Seed = rounds.NewSeed()
	}
	if fs.Changed("until") {
		if f.protocol == results.ProtocolSeed {
			return nil, usagef("--until stops rounds; the seed protocol runs arms in sequence")
		}
		if p.Until, err = untilWidth(f.until); err != nil {
			return nil, err
		}
	}
	if p.Payloads, err = sizeList("--payload", f.payloads, 0, 1<<30); err != nil {
		return nil, err
	}
	if p.Sizes, err = sizeList("--sizes", f.sizes, 1, 1<<32); err != nil {
		return nil, err
	}
	if p.Chunk, err = size("--chunk", f.chunk, 1, 1<<30); err != nil {
		return nil, err
	}
	if p.SpoolMax, err = size("--spool-max", f.spoolMax, 0, 1<<32); err != nil {
		return nil, err
	}
	for _, s := range p.Sizes {
		if s%p.Chunk != 0 {
			return nil, usagef("--sizes %s is not a multiple of --chunk %s", results.Bytes(int64(s)), results.Bytes(int64(p.Chunk)))
		}
	}
	if p.Dirs, err = checkDirs(f.dirs); err != nil {
		return nil, err
	}
	return p, nil
}

// size parses 400, 64K, 1M, 2G (binary units).
func size(flag, s string, lo, hi int64) (int, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K', 'k':
			mult, t = 1<<10, t[:n-1]
		case 'M', 'm':
			mult, t = 1<<20, t[:n-1]
		case 'G', 'g':
			mult, t = 1<<30, t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 {
		return 0, usagef("%s %q: want a byte count like 400, 64K or 1M", flag, s)
	}
	if v > hi/mult || v*mult < lo { // compare before multiplying: no wrap-around
		return 0, usagef("%s %q: want %s..%s bytes", flag, s, results.Bytes(lo), results.Bytes(hi))
	}
	return int(v * mult), nil
}

// sizeList parses a list of sizes; one given twice (400,400 or 64K,65536)
// would run its arms twice over.
func sizeList(flag, s string, lo, hi int64) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		v, err := size(flag, part, lo, hi)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, v) {
			return nil, usagef("%s %s: %s is given twice", flag, s, results.Bytes(int64(v)))
		}
		out = append(out, v)
	}
	return out, nil
}

// checkDirs refuses what would make the run write somewhere unexpected.
func checkDirs(dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, usagef("--dir needs at least one directory")
	}
	var out []string
	for _, d := range dirs {
		lst, err := os.Lstat(d)
		if err != nil {
			return nil, usagef("--dir %s: %s", d, errtext.Bare(err))
		}
		if lst.Mode()&os.ModeSymlink != 0 {
			return nil, usagef("--dir %s is a symlink; pass the directory it points to", d)
		}
		if !lst.IsDir() {
			return nil, usagef("--dir %s is not a directory", d)
		}
		if err := syscall.Access(d, 2|1); err != nil {
			return nil, usagef("--dir %s is not writable: %s", d, errtext.Bare(err))
		}
		if _, err := safefs.CheckDir(d); err != nil {
			return nil, usagef("--dir %s: %s", d, err)
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			for _, prev := range out {
				if r, _ := filepath.EvalSymlinks(prev); r == real {
					return nil, usagef("--dir %s is given twice", d)
				}
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// noControls refuses a flag value holding a control character before the
// flag parses it: a list flag reads its value as one CSV line, so a newline
// in a --dir would silently cut the name there (and run in its first line),
// and an escape code in one would reach the terminal and every report.
type noControls struct{ pflag.Value }

func (v noControls) Set(s string) error {
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%q holds a control character (%q): name a directory without one", s, s[i:i+1])
	}
	return v.Value.Set(s)
}

// runtimes resolves --runtime and --python; auto takes both when Python 3
// is there, and notes it when it is not.
func (f *runFlags) runtimes(ctx context.Context) ([]arms.Runtime, *results.Note, error) {
	switch f.runtime {
	case "go", "python", "auto":
	default:
		return nil, nil, usagef("--runtime %q: want python, go or auto", f.runtime)
	}
	rts, skipped, err := arms.ResolveRuntimes(ctx, f.runtime, f.python, f.armTimeout)
	switch {
	case err != nil:
		return nil, nil, usagef("--python %s", err)
	case skipped != nil:
		return rts, &results.Note{Kind: results.NoteRuntimeSkipped, Reason: skipped.Error()}, nil
	}
	return rts, nil, nil
}
