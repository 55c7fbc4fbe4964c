//go:build linux

package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/session"
)

// attachFlag checks --attach; "none" (no probe) comes back as "".
func attachFlag(s string) (probe.Backend, error) {
	if s == "none" {
		return "", nil
	}
	b, err := probe.ParseBackend(s)
	if err != nil {
		return "", usagef("--attach %q: want auto, fentry, kprobe, tracepoint or none", s)
	}
	return b, nil
}

// whyHelp is --why's help, on every command that has it.
const whyHelp = "`short` (each gap's answer and its largest terms, at most four lines) or full (every term, stage and off-CPU cause, as report.md and -v say them)"

// outputFlags declares the flags of what a session writes besides the
// terminal report: -o, --format, --sort, --why, --csv, --pprof, --benchfmt,
// --push (--out is declared by each command, with its own help).
func outputFlags(fs *pflag.FlagSet, o *session.Outputs) {
	fs.StringVarP(&o.Output, "output", "o", "", "write the report to `FILE` instead of stdout (as strace -o)")
	fs.StringVar(&o.Sort, "sort", "time", "order the breakdown by "+strings.Join(results.SortKeys, ", ")+" (per op; name: alphabetical)")
	fs.StringVar(&o.Format, "format", "text", "the report: text, or json (per-op figures and intervals, integer ns, as report --format json)")
	fs.StringVar(&o.Why, "why", "short", whyHelp)
	fs.StringVar(&o.CSV, "csv", "", "write the syscall breakdown CSV to `FILE`")
	fs.StringVar(&o.Pprof, "pprof", "", "write a pprof profile to `FILE` (go tool pprof, Pyroscope, Parca read it)")
	fs.StringVar(&o.Benchfmt, "benchfmt", "", "write Go benchmark-format lines to `FILE`, one per case and round (for benchstat)")
	fs.StringVar(&o.Push, "push", "", "push the headline figures to the Prometheus Pushgateway at `URL` once the run is saved (docs/fleet.md)")
}

// tracedFlags are the flags of the commands that trace something other
// than the labs (trace, compare): their outputs, and what --out saves,
// what -q silences, how the probe attaches, who the commands run as.
type tracedFlags struct {
	session.Outputs
	quiet    bool
	attach   string
	user     string // see userFlag
	noStacks bool
}

// flags declares them, with the help that differs between the commands:
// what --out saves and what -q leaves out.
func (t *tracedFlags) flags(fs *pflag.FlagSet, outHelp, quietHelp string) {
	outputFlags(fs, &t.Outputs)
	fs.StringVar(&t.Out, "out", "", outHelp)
	fs.BoolVar(&t.Text.Hist, "hist", false, "print log2 latency histograms")
	fs.BoolVarP(&t.quiet, "quiet", "q", false, quietHelp)
	fs.StringVar(&t.attach, "attach", "auto", "auto, fentry, kprobe or tracepoint (see 'tmpprobe check')")
	fs.BoolVar(&t.noStacks, "no-stacks", false, noStacksHelp)
}

// noStacksHelp is --no-stacks' help, the same for every command.
const noStacksHelp = "take no user stacks (the call sites behind syscalls, user time by function), nor pay for them"

// backend checks the outputs and reads --attach, refusing none: these
// commands show only what the probe saw (why says so in their words).
func (t *tracedFlags) backend(why string) (probe.Backend, error) {
	if err := t.Check(); err != nil {
		return "", err
	}
	return probeBackend(t.attach, why)
}

// probeBackend reads --attach for a command that shows only what the
// probe saw, refusing none (why says so in the command's words).
func probeBackend(attach, why string) (probe.Backend, error) {
	backend, err := attachFlag(attach)
	if err != nil {
		return "", err
	}
	if backend == "" {
		return "", usagef("--attach none: %s", why)
	}
	return backend, nil
}
