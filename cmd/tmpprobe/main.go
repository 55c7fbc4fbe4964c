//go:build linux

// Command tmpprobe runs the temp-file labs under eBPF and explains where
// each operation's time goes. This package only wires flags to the
// packages that do the work.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/internal/didyoumean"
	"github.com/tmpprobe/tmpprobe/internal/textwrap"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/session"
)

const topUsage = `tmpprobe — where does the time of a temp-file operation go?

Runs the temp-file labs ("arms") in worker processes and, with eBPF,
attributes every op's time to its syscalls, time on and off the CPU, and
user space.

Usage:
  tmpprobe all  [flags]          run every arm of every lab
  tmpprobe run  ARM... [flags]   run some arms (name, lab/name, or a lab)
  tmpprobe list                  list labs and arms
  tmpprobe trace -- CMD          the same breakdown for any command
  tmpprobe trace --pid PID       … or for running processes, or a cgroup
  tmpprobe compare 'A' 'B'       time commands in rounds and explain the gap
  tmpprobe serve --cgroup PATH   serve its numbers to Prometheus and pprof
  tmpprobe diff OLD NEW          explain what changed between two saved runs
  tmpprobe report RUN            re-render a saved run (text, markdown, JSON)
  tmpprobe check                 which hooks and attach backends work here
  tmpprobe version               this build: version, commit, Go, BPF object
  tmpprobe help terms            what the reports' terms mean (TRACED, ±∞, …)

Examples:
  sudo tmpprobe all
  sudo tmpprobe all --csv syscalls.csv
  sudo tmpprobe run mkstemp-fsync TemporaryFile --runtime go --ops 200
  sudo tmpprobe all --lab modes --payload 64,400,65536 --dir /tmp,/dev/shm
  sudo tmpprobe all --out runs/before; tmpprobe diff runs/before runs/after

Run 'tmpprobe COMMAND --help' for a command's flags.
`

func main() {
	arms.ServeIfWorker()
	if len(os.Args) > 2 && os.Args[1] == session.GuardArg {
		session.RunGuard(os.Args[2:])
		os.Exit(0)
	}
	if len(os.Args) > 1 && os.Args[1] == follow.LaunchArg {
		err := follow.RunLauncher(os.Args[2:])
		fmt.Fprintln(os.Stderr, "tmpprobe:", err)
		os.Exit(127)
	}
	// A reader that goes away (tmpprobe all | head) makes a write to
	// stdout fail with EPIPE instead of killing tmpprobe before it has
	// said what it saved. Notify, not Ignore: an ignored signal stays
	// ignored across exec, in the commands tmpprobe runs.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage)
		return exitUsage
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "all", "run", "trace", "compare", "serve":
		// Before anything else: see session.Interrupts.
		in, stop := session.Watch()
		defer stop()
		switch cmd {
		case "trace":
			err = cmdTrace(in, rest, stdout, stderr)
		case "compare":
			err = cmdCompare(in, rest, stdout, stderr)
		case "serve":
			err = cmdServe(in, rest, stdout, stderr)
		default:
			err = cmdRun(in, cmd, rest, stdout, stderr)
		}
	case "list":
		err = cmdList(rest, stdout)
	case "diff":
		err = cmdDiff(rest, stdout, stderr)
	case "report":
		err = cmdReport(rest, stdout)
	case "check":
		err = cmdCheck(rest, stdout)
	case "version", "--version":
		err = cmdVersion(rest, stdout)
	case "help", "-h", "--help":
		if len(rest) > 0 && rest[0] == "terms" {
			writeTerms(stdout)
			return exitOK
		}
		fmt.Fprint(stdout, topUsage)
		return exitOK
	default:
		err = usagef("unknown command %q%s", cmd, didyoumean.Suggest(cmd, commands))
	}
	return exitFor(err, stderr)
}

// writeTerms prints the key to the reports' terms, each wrapped to the
// terminal.
func writeTerms(w io.Writer) {
	width, _ := session.Width(w)
	fmt.Fprintln(w, "The terms of tmpprobe's reports:")
	for _, t := range report.Terms {
		fmt.Fprintf(w, "\n  %s\n      %s\n", t.Name, wrapAt(t.Meaning, 6, width))
	}
}

// flagUsages lays out the flags as pflag does, each help wrapped to width
// (a flag's line ran to 192 columns), a bool flag without pflag's
// "[=true|false]" mark: a bare --flag is how they are used.
func flagUsages(fs *pflag.FlagSet, width int) string {
	type row struct{ left, help string }
	var rows []row
	col := 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		left := "      --" + f.Name
		if f.Shorthand != "" {
			left = "  -" + f.Shorthand + ", --" + f.Name
		}
		name, help := pflag.UnquoteUsage(f)
		if name != "" && f.Value.Type() != "bool" {
			left += " " + name
		}
		switch f.DefValue {
		case "", "0", "0s", "false", "[]":
		default:
			if f.Value.Type() == "string" {
				help += fmt.Sprintf(" (default %q)", f.DefValue)
			} else {
				help += " (default " + f.DefValue + ")"
			}
		}
		rows = append(rows, row{left, help})
		col = max(col, len(left)+3)
	})
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s%s\n", col, r.left, wrapAt(r.help, col, width))
	}
	return b.String()
}

// wrapAt wraps text that starts at column col into lines that end before
// column width, each continuation indented to col.
func wrapAt(text string, col, width int) string { return textwrap.At(text, col, width-1) }

// commands are the subcommands, for didYouMean.
var commands = []string{"all", "run", "list", "trace", "compare", "serve", "diff", "report", "check", "version", "help"}

// listUsage has no flags to show: %.0s takes parseCommand's empty list.
const listUsage = `Usage: tmpprobe list

Lists the labs and their arms, with the baseline arm of each lab.
%.0s`

func cmdList(args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("list", pflag.ContinueOnError)
	if err := parseCommand(fs, args, listUsage, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("list takes no arguments")
	}
	width, _ := session.Width(stdout)
	for _, lab := range arms.Labs {
		fmt.Fprintf(stdout, "%s lab (baseline %s)\n", lab, arms.Baseline(lab))
		for _, a := range arms.Catalog {
			if a.Lab == lab {
				fmt.Fprintf(stdout, "  %-24s %s\n", a.Name, wrapAt(a.Desc, 27, width))
			}
		}
	}
	return nil
}

// parseCommand parses a subcommand's flags; --help prints usage (with the
// flags) to stdout.
func parseCommand(fs *pflag.FlagSet, args []string, usage string, stdout io.Writer) error {
	fs.SortFlags = false
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		width, _ := session.Width(stdout)
		fmt.Fprintf(stdout, usage, flagUsages(fs, width))
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp // pflag has printed the usage
		}
		return usagef("%s", err)
	}
	return nil
}
