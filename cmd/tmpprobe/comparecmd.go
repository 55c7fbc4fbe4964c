//go:build linux

package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/cmdbench"
	"github.com/tmpprobe/tmpprobe/internal/escape"
	"github.com/tmpprobe/tmpprobe/rounds"
	"github.com/tmpprobe/tmpprobe/session"
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
  sudo tmpprobe compare --until 10%% 'python3 a.py' 'python3 b.py'
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
	until          string
	prepare        string
	names          []string
	noShell        bool
	ignoreFailure  bool
	seed           uint64
	tracedFlags
}

func cmdCompare(in *session.Interrupts, args []string, stdout, stderr io.Writer) error {
	f := &compareFlags{}
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.IntVar(&f.rounds, "rounds", 10, "measured rounds (with --min-time or --until: the fewest)")
	fs.DurationVar(&f.minTime, "min-time", 0, "run rounds until this much time has passed")
	fs.StringVar(&f.until, "until", "", "run rounds until each command's ratio interval is at most `W` wide, e.g. 10% (--rounds the fewest)")
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
	c, err := f.session(fs)
	if err != nil {
		return err
	}
	c.Stderr, c.Args = stderr, append([]string{"compare"}, args...)
	if !f.quiet {
		c.Progress = func() (func(cmdbench.Progress), func()) {
			update := compareProgress(stderr)
			return update, func() { update(cmdbench.Progress{}) } // clears the line
		}
	}
	_, err = session.RunCompare(in, c, stdout)
	return err
}

// session checks compare's flags and makes its session.
func (f *compareFlags) session(fs *pflag.FlagSet) (session.Compare, error) {
	c := session.Compare{Outputs: f.Outputs, NoStacks: f.noStacks}
	switch {
	case fs.NArg() < 2:
		return c, usagef("compare takes two or more commands, each one quoted argument")
	case f.rounds < 1 || f.rounds > cmdbench.MaxRounds:
		return c, usagef("--rounds %d: want 1..%d", f.rounds, cmdbench.MaxRounds)
	case f.minTime < 0 || f.minTime > maxMinTime:
		return c, usagef("--min-time %s: want 0..%s", f.minTime, maxMinTime)
	case f.warmup < 0 || f.warmup > cmdbench.MaxRounds:
		return c, usagef("--warmup %d: want 0..%d", f.warmup, cmdbench.MaxRounds)
	}
	cmds, err := cmdbench.Commands(fs.Args(), f.names, !f.noShell)
	if err != nil {
		return c, usageError{err.Error()}
	}
	c.Options = cmdbench.Options{Commands: cmds, Warmup: f.warmup, Rounds: f.rounds, MinTime: f.minTime,
		Seed: f.seed, IgnoreFailure: f.ignoreFailure}
	if fs.Changed("until") {
		if c.Options.Until, err = untilWidth(f.until); err != nil {
			return c, err
		}
	}
	if f.prepare != "" {
		if c.Options.Prepare = cmdbench.Argv(f.prepare, !f.noShell); len(c.Options.Prepare) == 0 {
			return c, usagef("--prepare is empty")
		}
	}
	if !fs.Changed("seed") {
		c.Options.Seed = rounds.NewSeed()
	}
	if c.Options.As, err = f.runAs(fs.Changed("user"), true); err != nil {
		return c, err
	}
	c.Backend, err = f.backend("compare explains from the traced runs and needs the probe")
	return c, err
}

// compareProgress shows the round and the command running: on a terminal
// one line rewritten in place, as wide as the terminal and cut by whole
// fields as the labs' progress line is (fitFields); elsewhere a line per
// finished round. A zero Progress ends it.
func compareProgress(w io.Writer) func(cmdbench.Progress) {
	width, tty := session.Width(w)
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
