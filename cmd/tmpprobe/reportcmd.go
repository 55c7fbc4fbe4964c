//go:build linux

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
)

const reportUsage = `Usage: tmpprobe report RUN [flags]

Re-renders a saved run without running anything. RUN is a directory
written by --out, its run.json, or a syscalls.csv written by --csv.

Examples:
  tmpprobe report runs/before
  tmpprobe report runs/before --format markdown > before.md
  tmpprobe report runs/before/run.json --chart before.png
  tmpprobe report runs/before --format pprof > before.pb.gz   # go tool pprof
  tmpprobe report runs/before --format benchfmt > before.txt  # benchstat

Flags:
%s`

func cmdReport(args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	format := fs.String("format", "text", "text, markdown, json, pprof (a profile) or benchfmt (benchstat's input)")
	chart := fs.String("chart", "", "also draw the chart to `FILE` (.svg or .png)")
	hist := fs.Bool("hist", false, "print log2 latency histograms (text)")
	if err := parseCommand(fs, args, reportUsage, stdout); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("report takes one run (a directory, run.json or syscalls.csv)")
	}
	chartFormat := strings.TrimPrefix(filepath.Ext(*chart), ".")
	if *hist && *format != "text" {
		return usagef("--hist goes with --format text")
	}
	if *chart != "" && chartFormat != "svg" && chartFormat != "png" {
		return usagef("--chart %s: want a .svg or .png file name", *chart)
	}
	run, err := loadRun(fs.Arg(0))
	if err != nil {
		return err
	}
	labs := arms.Knowledge()
	sums := results.SummarizeAll(run, labs.Baselines)
	switch *format {
	case "text":
		writeTextReport(stdout, run, sums, *hist)
	case "markdown", "md":
		results.WriteMarkdown(stdout, run, sums, labs)
	case "json":
		if err := results.WriteSummaryJSON(stdout, run, sums); err != nil {
			return exitError{exitUsage, "writing JSON: " + err.Error()}
		}
	case "pprof":
		if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			return usagef("--format pprof writes a gzipped profile: redirect it to a file")
		}
		if err := results.WritePprof(stdout, run, sums); err != nil {
			return exitError{exitUsage, "writing the profile: " + err.Error()}
		}
	case "benchfmt":
		if err := results.WriteBenchfmt(stdout, run, sums); err != nil {
			return exitError{exitUsage, "writing benchmark lines: " + err.Error()}
		}
	default:
		return usagef("--format %q: want text, markdown, json, pprof or benchfmt", *format)
	}
	if *chart != "" {
		if err := results.WriteFileAtomic(*chart, func(w io.Writer) error {
			return results.WriteChart(w, sums, chartFormat)
		}); err != nil {
			return exitError{exitUsage, "--chart: " + oneLine(err.Error())}
		}
	}
	return nil
}

// loadRun reads a saved run; anything wrong with it is one line, exit 2.
func loadRun(path string) (*results.Run, error) {
	run, err := results.LoadRun(path)
	if err != nil {
		return nil, exitError{exitUsage, oneLine(err.Error())}
	}
	return run, nil
}
