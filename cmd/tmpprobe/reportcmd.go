//go:build linux

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/session"
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
	verbose := fs.BoolP("verbose", "v", false, "also the notes every run repeats (why a backend was skipped) and the whole WHY (text)")
	why := fs.String("why", "short", whyHelp+" (text)")
	sortBy := fs.String("sort", "time", "order the breakdown by "+strings.Join(results.SortKeys, ", ")+" (text)")
	if err := parseCommand(fs, args, reportUsage, stdout); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("report takes one run (a directory, run.json or syscalls.csv)")
	}
	if err := session.CheckSort(*sortBy); err != nil {
		return err
	}
	if err := session.CheckWhy(*why); err != nil {
		return err
	}
	chartFormat := strings.TrimPrefix(filepath.Ext(*chart), ".")
	if *hist && *format != "text" {
		return usagef("--hist goes with --format text")
	}
	if *chart != "" && chartFormat != "svg" && chartFormat != "png" {
		return usagef("--chart %s: want a .svg or .png file name", *chart)
	}
	f, ok := render.FormatNamed(*format, render.AnyFormat)
	if !ok {
		return usagef("--format %q: want %s", *format, render.FormatNames(render.AnyFormat))
	}
	out, err := session.Load(fs.Arg(0))
	if err != nil {
		return err
	}
	if w, ok := stdout.(*os.File); ok && f.Binary && term.IsTerminal(int(w.Fd())) {
		return usagef("--format %s writes a gzipped profile: redirect it to a file", f.Name)
	}
	width, _ := session.Width(stdout)
	if err := out.Write(stdout, f, render.TextOptions{Width: width, Hist: *hist, Verbose: *verbose, FullWhy: *why == "full", Sort: *sortBy}); err != nil {
		return err
	}
	if *chart != "" {
		if err := out.Chart(*chart, chartFormat); err != nil {
			return exitError{exitUsage, "--chart: " + errtext.FirstLine(err.Error())}
		}
	}
	return nil
}
