//go:build linux

package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/results"
)

// exitRegressed is diff's answer when an arm regressed beyond --threshold,
// as diff(1) exits 1 when files differ.
const exitRegressed = 1

const diffUsage = `Usage: tmpprobe diff OLD NEW [flags]

Compares two saved runs (directories written by --out, run.json files, or
syscalls.csv files). Arms are paired by lab, arm, runtime and parameter;
for each arm whose throughput changed beyond the run-to-run spread (the
min–max of its batches in both runs), the change in µs/op is split into
syscall classes, off-CPU time and user space, largest first. Preflight
differences (kernel, work dir, flags, Python, …) are listed first: they
can explain every change at once.

Exit status: 0, or 1 when --threshold is given and an arm regressed by at
least that much, or 2 on bad input.

Examples:
  tmpprobe diff runs/before runs/after
  tmpprobe diff before/run.json after/run.json --format markdown
  tmpprobe diff good/ bad/ --threshold 10 --format json   # CI gate

Flags:
%s`

func cmdDiff(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	threshold := fs.Float64("threshold", 0, "exit 1 if an arm's ops/s fell by `PCT` percent or more")
	format := fs.String("format", "text", "text, markdown or json")
	if err := parseCommand(fs, args, diffUsage, stdout); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("diff takes two runs: OLD NEW")
	}
	if !(*threshold >= 0 && *threshold < 100) { // so does NaN
		return usagef("--threshold %g: want a percentage in 0..100", *threshold)
	}
	if f := *format; f != "text" && f != "markdown" && f != "md" && f != "json" {
		return usagef("--format %q: want text, markdown or json", f)
	}
	oldRun, err := loadRun(fs.Arg(0))
	if err != nil {
		return err
	}
	newRun, err := loadRun(fs.Arg(1))
	if err != nil {
		return err
	}
	rep := results.Diff(fs.Arg(0), oldRun, fs.Arg(1), newRun, *threshold)
	switch *format {
	case "json":
		if err := results.WriteDiffJSON(stdout, rep); err != nil {
			return exitError{exitUsage, "writing JSON: " + err.Error()}
		}
	case "markdown", "md":
		results.WriteDiffMarkdown(stdout, rep)
	default:
		results.WriteDiffText(stdout, rep)
	}
	if len(rep.Gated) > 0 {
		return exitError{exitRegressed, fmt.Sprintf("%d arm(s) regressed by %g%% or more", len(rep.Gated), *threshold)}
	}
	return nil
}
