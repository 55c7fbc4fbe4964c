//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/cmdbench"
	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/internal/escape"
	"github.com/tmpprobe/tmpprobe/preflight"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/rounds"
)

const compareUsage = `Usage: tmpprobe compare [flags] 'COMMAND A' 'COMMAND B' [...]

Times commands as hyperfine does and explains the difference as the labs
do. Each round runs every command once untraced (its wall time) and once
traced over its whole process tree, in a fresh random order (--seed
replays it). Reported: the median wall time per run with its 95%%
interval, each command's time ÷ the first's paired per round, what
tracing cost, each command's syscalls, off-CPU time and stages per run,
and WHY each command differs from the first. Commands run with sh -c
(--no-shell: split on spaces, no quoting), stdin and stdout /dev/null,
each in a cgroup and a process group of its own.

The commands and --prepare run as --user, which under sudo is the user
who ran sudo (with their uid, groups and HOME), so the files they make
are theirs, as without sudo; --user root keeps root.

Examples:
  sudo tmpprobe compare 'sqlite3 a.db < full.sql' 'sqlite3 b.db < off.sql'
  sudo tmpprobe compare --warmup 2 --rounds 20 'python3.11 x.py' \
      'python3.13 x.py'
  sudo tmpprobe compare --prepare 'sync; echo 3 > /proc/sys/vm/drop_caches' \
      'cat big' 'dd if=big of=/dev/null bs=1M'
  sudo tmpprobe compare --names old,new --out runs/today './old' './new'
  tmpprobe diff runs/yesterday runs/today

Exit status: a failing command's (its stderr tail is shown) unless
--ignore-failure; 2 for bad input; 130/143 when interrupted.

Flags:
%s`

// maxMinTime bounds --min-time: a comparison of a day is a mistake of
// units, not a plan.
const maxMinTime = 24 * time.Hour

type compareFlags struct {
	rounds, warmup int
	minTime        time.Duration
	prepare        string
	names          []string
	noShell        bool
	ignoreFailure  bool
	seed           uint64
	tracedFlags
}

func cmdCompare(in *interrupts, args []string, stdout, stderr io.Writer) error {
	f := &compareFlags{}
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.IntVar(&f.rounds, "rounds", 10, "measured rounds (with --min-time: the fewest)")
	fs.DurationVar(&f.minTime, "min-time", 0, "run rounds until this much time has passed")
	fs.IntVar(&f.warmup, "warmup", 0, "untraced runs of each command before the rounds")
	fs.StringVar(&f.prepare, "prepare", "", "run `CMD` before every run (untraced), e.g. to drop caches")
	fs.StringSliceVar(&f.names, "names", nil, "names of the commands in the tables, one each, comma-separated")
	fs.BoolVar(&f.noShell, "no-shell", false, "run each command without sh -c: split on spaces, no quoting")
	fs.BoolVar(&f.ignoreFailure, "ignore-failure", false, "go on when a command exits non-zero")
	fs.Uint64Var(&f.seed, "seed", 0, "replay the order of an earlier comparison (its seed is in the footer)")
	f.userFlag(fs, "commands and --prepare")
	f.tracedFlags.flags(fs, "save the comparison to `DIR` (run.json, syscalls.csv, report.md; report and diff read it)",
		"no progress on stderr")
	if err := parseCommand(fs, args, compareUsage, stdout); err != nil {
		return err
	}
	switch {
	case fs.NArg() < 2:
		return usagef("compare takes two or more commands, each one quoted argument")
	case f.rounds < 1 || f.rounds > cmdbench.MaxRounds:
		return usagef("--rounds %d: want 1..%d", f.rounds, cmdbench.MaxRounds)
	case f.minTime < 0 || f.minTime > maxMinTime:
		return usagef("--min-time %s: want 0..%s", f.minTime, maxMinTime)
	case f.warmup < 0 || f.warmup > cmdbench.MaxRounds:
		return usagef("--warmup %d: want 0..%d", f.warmup, cmdbench.MaxRounds)
	}
	cmds, err := cmdbench.Commands(fs.Args(), f.names, !f.noShell)
	if err != nil {
		return usageError{err.Error()}
	}
	opts := cmdbench.Options{Commands: cmds, Warmup: f.warmup, Rounds: f.rounds, MinTime: f.minTime,
		Seed: f.seed, IgnoreFailure: f.ignoreFailure}
	if f.prepare != "" {
		opts.Prepare = cmdbench.Argv(f.prepare, !f.noShell)
		if len(opts.Prepare) == 0 {
			return usagef("--prepare is empty")
		}
	}
	if !fs.Changed("seed") {
		opts.Seed = rounds.NewSeed()
	}
	if opts.As, err = f.runAs(fs.Changed("user"), true); err != nil {
		return err
	}
	backend, err := f.backend("compare explains from the traced runs and needs the probe")
	if err != nil {
		return err
	}

	in.onSecond(follow.Abort)
	if in.ctx.Err() != nil {
		return in.before()
	}
	run := &results.Run{Schema: results.Schema, Tool: "tmpprobe", Kind: results.KindCompare, Started: time.Now().UTC(), Args: os.Args[1:], Meta: preflight.Host()}
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
	p, err := openProbe(probe.Options{Attach: backend, TracePhase: follow.Phase, LaunchPhase: follow.LaunchPhase, AnyDevice: true},
		devs, &run.Meta, false)
	if err != nil {
		return err
	}
	defer p.Close()
	run.Meta.Notes = append(run.Meta.Notes, results.Note{Kind: results.NoteRanAs, What: asWho(opts.As)})
	run.Meta.Notes = append(run.Meta.Notes, sayLeftovers(stderr, follow.SweepCgroups())...)
	startGuard()
	opts.Tracer, opts.Cookie = p, p.Cookie
	if !f.quiet {
		opts.Progress = compareProgress(stderr)
	}
	ran, proto, runErr := cmdbench.Run(in.ctx, opts)
	interrupted := in.decide()
	if !f.quiet {
		opts.Progress(cmdbench.Progress{}) // clears the line
	}
	run.Arms, run.Protocol, run.Finished = ran, proto, time.Now().UTC()
	run.Complete = runErr == nil && interrupted == 0
	run.Drops, _ = p.Drops()
	// A command is its name unless --names says otherwise, and a Python
	// snippet's newline would split the table's row: escaped as a saved
	// run is when read back, so both print alike.
	run.Escape()
	labs := arms.Knowledge()
	sums := results.SummarizeAll(run, labs.Baselines)
	if err := f.report(stdout, report.Input{Run: run, Sums: sums, Labs: labs}, render.TextOptions{Hist: f.hist, Sort: f.sort}); err != nil {
		return err
	}
	if err := f.save(run, sums); err != nil {
		return err
	}
	var failed *cmdbench.Failure
	switch {
	case errors.Is(runErr, cmdbench.ErrInterrupted) || interrupted != 0:
		if interrupted == 0 {
			interrupted = exitSIGINT
		}
		return exitError{interrupted, "interrupted: the figures above cover the rounds that finished"}
	case errors.As(runErr, &failed):
		return exitError{failed.Status, escape.Line(failed.Error()) + " (see FAILED above; --ignore-failure goes on)"}
	case runErr != nil:
		return exitError{exitUsage, runErr.Error()}
	}
	return nil
}

// compareProgress shows the round and the command running: on a terminal
// one line rewritten in place, as wide as the terminal and cut by whole
// fields as the labs' progress line is (fitFields); elsewhere a line per
// finished round. A zero Progress ends it.
func compareProgress(w io.Writer) func(cmdbench.Progress) {
	width, tty := termWidth(w)
	start, since := time.Now(), time.Now()
	return func(p cmdbench.Progress) {
		switch {
		case p.Round == 0:
			if tty {
				fmt.Fprint(w, "\r\033[K")
			}
		case tty:
			of := ""
			if p.Rounds > 0 {
				of = fmt.Sprintf("/%d", p.Rounds)
			}
			stage := "round"
			if p.Warmup {
				stage = "warm-up"
			}
			fields := []string{fmt.Sprintf("%s %d%s", stage, p.Round, of), fmt.Sprintf("run %d/%d", p.Done, p.Total),
				fmt.Sprintf("%.0fs", time.Since(start).Seconds()), escape.Line(p.Command)}
			fmt.Fprintf(w, "\r\033[K%s", fitFields(fields, width-1))
		case p.Done == p.Total && !p.Warmup:
			fmt.Fprintf(w, "round %d done (%.1fs)\n", p.Round, time.Since(since).Seconds())
			since = time.Now()
		}
	}
}
