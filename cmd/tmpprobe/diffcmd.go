//go:build linux

package main

import (
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/session"
)

const diffUsage = `Usage: tmpprobe diff OLD NEW [MORE...] [flags]

Compares saved runs (directories written by --out, run.json files, or
syscalls.csv files). Arms are paired by lab, arm, runtime and parameter.
Each arm's rounds are compared the way benchstat compares benchmarks: a
Mann–Whitney U test at α = 0.05 on the worker generations' samples, and
a change of at least --min-effect besides; otherwise "~" with the
p-value. With earlier runs like them at hand (NEW or OLD saved beside
them, or the runs in --history, by default the directory OLD and NEW are
in), a change must also stand out of the spread between runs, as the
runs' intervals count it. An arm is judged by its ratio to the lab's
baseline arm, paired per round, so a machine that got slower as a whole
moves no arm: that is reported once per group, as drift.

Each changed arm says first whether it did more work or the same work
slower: its work per op (syscalls by class, device requests by kind,
bytes, journal commits, inodes allocated and freed, page faults) against
its time per unit of that work (µs per syscall, device µs per request,
run-queue wait). A count per op is the median of a run's worker
generations; it is the same in both runs when it moved by less than its
own spread across either run's generations (the range of their samples:
a journal commit is shared by the ops of its 5 s, and how many moves
with the machine's speed), by less than --min-effect percent, or by less
than 0.05 per op (64 bytes). Then the change in µs/op is split
into syscall classes, off-CPU time and user space, largest first, with
at most three culprits each. Preflight differences (kernel, work dir,
flags, Python, …) come first: a work dir moved to another file system or
device is one line (-v: every fact that came with it).

With three or more runs, one table puts them side by side (a kernel,
Python, filesystem or machine matrix), each compared with the first.

Exit status: 0; 1 when --threshold is given (0 included) and, with
--gate time (the default), an arm regressed by at least that much, or,
with --gate work, an arm's work per op changed by at least that much
(a count from 0 counts as any change), whatever its time did; with either,
also when NEW is incomplete or empty, NEW lost an arm OLD had, or an arm
cannot be judged (too few rounds; for --gate work, not traced in both
runs; a trace, one run a side, is judged by its change as it is); 2 on
bad input.

Examples:
  tmpprobe diff runs/before runs/after
  tmpprobe diff before/run.json after/run.json --format markdown
  tmpprobe diff good/ bad/ --threshold 10 --format json   # CI gate
  tmpprobe diff good/ bad/ --gate work --threshold 5      # on a shared runner
  tmpprobe diff k6.1/ k6.12/ k6.18/                       # side by side

Flags:
%s`

func cmdDiff(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	threshold := fs.Float64("threshold", 0, "exit 1 if an arm regressed by `PCT` percent or more (two runs; --gate work: its work changed)")
	minEffect := fs.Float64("min-effect", session.DefaultMinEffectPct, "the smallest change in `PCT` percent that counts, besides p < 0.05")
	format := fs.String("format", "text", "text, markdown or json")
	gate := fs.String("gate", session.GateTime, "what --threshold fails on, `KIND` time or work (see above)")
	history := fs.String("history", "", "saved runs in `DIR` for the spread between runs (default: OLD's and NEW's dir; none)")
	verbose := fs.BoolP("verbose", "v", false, "every fact a work dir's move stands for")
	if err := parseCommand(fs, args, diffUsage, stdout); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usagef("diff takes two runs or more: OLD NEW [MORE...]")
	}
	if t := *threshold; !(t >= 0 && t <= 100) { // so does NaN
		return usagef("--threshold %g: want a percentage in 0..100", t)
	}
	if m := *minEffect; !(m >= 0 && m < 100) {
		return usagef("--min-effect %g: want a percentage in 0..100", m)
	}
	if fs.NArg() > 2 && (fs.Changed("threshold") || fs.Changed("gate")) {
		return usagef("--threshold and --gate gate two runs, OLD and NEW")
	}
	if g := *gate; g != session.GateTime && g != session.GateWork {
		return usagef("--gate %q: want time or work", g)
	}
	if *history != "" && *history != "none" {
		if st, err := os.Stat(*history); err != nil || !st.IsDir() {
			return usagef("--history %s: not a directory of saved runs", *history)
		}
	}
	f, ok := render.FormatNamed(*format, render.DiffFormat)
	if !ok {
		return usagef("--format %q: want %s", *format, render.FormatNames(render.DiffFormat))
	}
	var gated *session.Gate
	if fs.Changed("threshold") {
		gated = session.GateOn(*gate, *threshold)
	}
	return session.RunDiff(session.Diff{Paths: fs.Args(), MinEffectPct: *minEffect, Gate: gated, History: *history, Format: f, Verbose: *verbose}, stdout)
}
