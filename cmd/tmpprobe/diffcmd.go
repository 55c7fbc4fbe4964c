//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// exitRegressed is diff's answer when an arm regressed beyond --threshold,
// as diff(1) exits 1 when files differ.
const exitRegressed = 1

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
	minEffect := fs.Float64("min-effect", compare.DefaultMinEffectPct, "the smallest change in `PCT` percent that counts, besides p < 0.05")
	format := fs.String("format", "text", "text, markdown or json")
	gate := fs.String("gate", compare.GateTime, "what --threshold fails on, `KIND` time or work (see above)")
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
	if g := *gate; g != compare.GateTime && g != compare.GateWork {
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
	var runs []*results.Run
	for _, path := range fs.Args() {
		run, err := loadRun(path)
		if err != nil {
			return err
		}
		runs = append(runs, run)
	}
	if len(runs) > 2 {
		rep := compare.DiffMany(fs.Args(), runs, arms.Knowledge().Baselines, *minEffect)
		if err := f.Matrix(stdout, rep); err != nil {
			return exitError{exitUsage, "writing " + f.What + ": " + err.Error()}
		}
		return nil
	}
	opt := compare.Options{MinEffectPct: *minEffect, ThresholdPct: compare.NoGate, Gate: *gate}
	if fs.Changed("threshold") {
		opt.ThresholdPct = *threshold
	}
	opt.HistoryFrom = historyOf(fs.Arg(0), fs.Arg(1), *history)
	if opt.HistoryFrom != "" && !runs[0].Derived.Between.Measured() && !runs[1].Derived.Between.Measured() {
		// Neither run recorded a spread between runs: measure it over
		// the runs beside them, as a run saved there would have.
		earlier, _, err := runfile.LoadEarlier(opt.HistoryFrom, runDirOf(fs.Arg(1)), runs[1].Alike, results.MaxEarlierRuns)
		if err == nil {
			opt.History = earlier
		}
	}
	rep := compare.DiffWith(fs.Arg(0), runs[0], fs.Arg(1), runs[1], arms.Knowledge().Baselines, opt)
	if err := f.Diff(stdout, rep, *verbose); err != nil {
		return exitError{exitUsage, "writing " + f.What + ": " + err.Error()}
	}
	if len(rep.Gated) > 0 {
		return exitError{exitRegressed, fmt.Sprintf("fails --gate %s --threshold %g: %s", *gate, *threshold, strings.Join(rep.Gated, "; "))}
	}
	return nil
}

// runDirOf is the run directory a diff argument names: itself, or the
// directory of a run.json; "" for a syscalls.csv, which has no history.
func runDirOf(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return filepath.Clean(path)
	}
	if filepath.Base(path) == "run.json" {
		return filepath.Dir(filepath.Clean(path))
	}
	return ""
}

// historyOf is where a diff reads earlier runs from: --history, else
// the directory OLD's and NEW's run dirs are both in; "" for none.
func historyOf(old, cur, flag string) string {
	switch flag {
	case "none":
		return ""
	case "":
		o, n := runDirOf(old), runDirOf(cur)
		if o == "" || n == "" || filepath.Dir(o) != filepath.Dir(n) {
			return ""
		}
		return filepath.Dir(n)
	}
	return flag
}
