//go:build linux

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/render"
)

// exitRegressed is diff's answer when an arm regressed beyond --threshold,
// as diff(1) exits 1 when files differ.
const exitRegressed = 1

const diffUsage = `Usage: tmpprobe diff OLD NEW [MORE...] [flags]

Compares saved runs (directories written by --out, run.json files, or
syscalls.csv files). Arms are paired by lab, arm, runtime and parameter.
Each arm's rounds are compared the way benchstat compares benchmarks: a
Mann–Whitney U test at α = 0.05 on the per-round samples, and a change of
at least --min-effect besides; otherwise "~" with the p-value. An arm is
judged by its ratio to the lab's baseline arm, paired per round, so a
machine that got slower as a whole moves no arm: that is reported once
per group, as drift. Each real change in µs/op is split into syscall
classes, off-CPU time and user space, largest first. Preflight
differences (kernel, work dir, flags, Python, …) come first: they can
explain every change at once.

With three or more runs, one table puts them side by side (a kernel,
Python, filesystem or machine matrix), each compared with the first.

Exit status: 0; 1 when --threshold is given (0 included) and an arm
regressed by at least that much, NEW is incomplete or empty, NEW lost an
arm OLD had, or an arm has too few rounds to judge (a trace, one run a
side, is judged by its change as it is); 2 on bad input.

Examples:
  tmpprobe diff runs/before runs/after
  tmpprobe diff before/run.json after/run.json --format markdown
  tmpprobe diff good/ bad/ --threshold 10 --format json   # CI gate
  tmpprobe diff k6.1/ k6.12/ k6.18/                       # side by side

Flags:
%s`

func cmdDiff(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	threshold := fs.Float64("threshold", 0, "exit 1 if an arm regressed by `PCT` percent or more (two runs)")
	minEffect := fs.Float64("min-effect", compare.DefaultMinEffectPct, "the smallest change in `PCT` percent that counts, besides p < 0.05")
	format := fs.String("format", "text", "text, markdown or json")
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
	if fs.NArg() > 2 && fs.Changed("threshold") {
		return usagef("--threshold gates two runs, OLD and NEW")
	}
	if f := *format; f != "text" && f != "markdown" && f != "md" && f != "json" {
		return usagef("--format %q: want text, markdown or json", f)
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
		switch *format {
		case "json":
			if err := render.WriteMatrixJSON(stdout, rep); err != nil {
				return exitError{exitUsage, "writing JSON: " + err.Error()}
			}
		case "markdown", "md":
			render.WriteMatrixMarkdown(stdout, rep)
		default:
			render.WriteMatrixText(stdout, rep)
		}
		return nil
	}
	gate := compare.NoGate
	if fs.Changed("threshold") {
		gate = *threshold
	}
	rep := compare.Diff(fs.Arg(0), runs[0], fs.Arg(1), runs[1], arms.Knowledge().Baselines, *minEffect, gate)
	switch *format {
	case "json":
		if err := render.WriteDiffJSON(stdout, rep); err != nil {
			return exitError{exitUsage, "writing JSON: " + err.Error()}
		}
	case "markdown", "md":
		render.WriteDiffMarkdown(stdout, rep)
	default:
		render.WriteDiffText(stdout, rep)
	}
	if len(rep.Gated) > 0 {
		return exitError{exitRegressed, fmt.Sprintf("fails --threshold %g: %s", *threshold, strings.Join(rep.Gated, "; "))}
	}
	return nil
}
