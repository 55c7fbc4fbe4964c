//go:build linux

package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/atomicfile"
	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/internal/safefs"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
	"github.com/tmpprobe/tmpprobe/results/runfile"
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

// outputs are the files a run or trace was asked to write besides the
// terminal report: --csv, --pprof, --benchfmt and the --out directory.
type outputs struct {
	csv, pprof, benchfmt, out string
	// The report itself: to -o FILE instead of stdout, as text or JSON,
	// its breakdowns in the order of sort, its WHY short or full.
	output, format, sort, why string
}

// whyHelp is --why's help, on every command that has it.
const whyHelp = "`short` (each gap's answer and its largest terms, at most four lines) or full (every term, stage and off-CPU cause, as report.md and -v say them)"

func (o *outputs) flags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.output, "output", "o", "", "write the report to `FILE` instead of stdout (as strace -o)")
	fs.StringVar(&o.sort, "sort", "time", "order the breakdown by "+strings.Join(results.SortKeys, ", ")+" (per op; name: alphabetical)")
	fs.StringVar(&o.format, "format", "text", "the report: text, or json (per-op figures and intervals, integer ns, as report --format json)")
	fs.StringVar(&o.why, "why", "short", whyHelp)
	fs.StringVar(&o.csv, "csv", "", "write the syscall breakdown CSV to `FILE`")
	fs.StringVar(&o.pprof, "pprof", "", "write a pprof profile to `FILE` (go tool pprof, Pyroscope, Parca read it)")
	fs.StringVar(&o.benchfmt, "benchfmt", "", "write Go benchmark-format lines to `FILE`, one per case and round (for benchstat)")
}

// tracedFlags are the flags of the commands that trace something other
// than the labs (trace, compare): their outputs, and what --out saves,
// what -q silences, how the probe attaches.
type tracedFlags struct {
	outputs
	hist   bool
	quiet  bool
	attach string
	user   string // see userFlag
}

// flags declares them, with the help that differs between the commands:
// what --out saves and what -q leaves out.
func (t *tracedFlags) flags(fs *pflag.FlagSet, outHelp, quietHelp string) {
	t.outputs.flags(fs)
	fs.StringVar(&t.out, "out", "", outHelp)
	fs.BoolVar(&t.hist, "hist", false, "print log2 latency histograms")
	fs.BoolVarP(&t.quiet, "quiet", "q", false, quietHelp)
	fs.StringVar(&t.attach, "attach", "auto", "auto, fentry, kprobe or tracepoint (see 'tmpprobe check')")
}

// backend checks the outputs and reads --attach, refusing none: these
// commands show only what the probe saw (why says so in their words).
func (t *tracedFlags) backend(why string) (probe.Backend, error) {
	if err := t.check(); err != nil {
		return "", err
	}
	backend, err := attachFlag(t.attach)
	if err != nil {
		return "", err
	}
	if backend == "" {
		return "", usagef("--attach none: %s", why)
	}
	return backend, nil
}

// outputFile is one file output: its flag, path and writer.
type outputFile struct {
	flag, path string
	write      func(io.Writer) error
}

func (o *outputs) files(run *results.Run, sums []*results.Summary) []outputFile {
	return []outputFile{
		{"--csv", o.csv, func(w io.Writer) error { return render.WriteSyscallCSV(w, run, sums) }},
		{"--pprof", o.pprof, func(w io.Writer) error { return render.WritePprof(w, run, sums) }},
		{"--benchfmt", o.benchfmt, func(w io.Writer) error { return render.WriteBenchfmt(w, run, sums) }},
	}
}

// check refuses, before the run, outputs it could not write: found after
// the run they would cost its results (exit 1); found now they are bad
// input (exit 2). Two outputs that would replace the same file, or a file
// inside --out (which is replaced as a whole), are refused by their real
// paths, every symlink followed.
func (o *outputs) check() error {
	if err := sortFlag(o.sort); err != nil {
		return err
	}
	if err := whyFlag(o.why); err != nil {
		return err
	}
	if _, ok := render.FormatNamed(o.format, render.LiveFormat); !ok {
		return usagef("--format %q: want %s", o.format, render.FormatNames(render.LiveFormat))
	}
	var outReal string
	if o.out != "" {
		if err := runfile.CheckRunDir(o.out); err != nil {
			return usagef("--out %s: %s", o.out, errtext.FirstLine(err.Error()))
		}
		abs, _ := filepath.Abs(o.out)
		outReal, _ = safefs.Resolve(abs, false)
	}
	taken := map[string]string{}
	// The report's -o is a file output too: -o F --csv F wrote the report,
	// then replaced it with the CSV, and exited 0.
	for _, f := range append([]outputFile{{flag: "-o", path: o.output}}, o.files(nil, nil)...) {
		if f.path == "" {
			continue
		}
		if err := atomicfile.Check(f.path); err != nil {
			return usagef("%s %s: %s", f.flag, f.path, errtext.FirstLine(err.Error()))
		}
		real, err := atomicfile.ReplacedFile(f.path)
		switch {
		case err != nil:
			return usagef("%s %s: %s", f.flag, f.path, errtext.FirstLine(err.Error()))
		case real == "":
			continue // a stream or tmpprobe's own fd: nothing is replaced
		case outReal != "" && (real == outReal || strings.HasPrefix(real, outReal+"/")):
			return usagef("%s %s is --out %s or inside it, which is replaced as a whole", f.flag, f.path, o.out)
		case taken[real] != "":
			return usagef("%s %s is the file %s writes too: give each output its own file", f.flag, f.path, taken[real])
		}
		taken[real] = f.flag
	}
	return nil
}

// whyFlag checks --why.
func whyFlag(why string) error {
	if why != "short" && why != "full" {
		return usagef("--why %q: want short or full", why)
	}
	return nil
}

func sortFlag(by string) error {
	if !slices.Contains(results.SortKeys, by) {
		return usagef("--sort %q: want %s", by, strings.Join(results.SortKeys, ", "))
	}
	return nil
}

// report writes the report in --format (text at the width of where it
// goes) to stdout or -o FILE.
func (o *outputs) report(stdout io.Writer, in report.Input, opts render.TextOptions) error {
	f, _ := render.FormatNamed(o.format, render.LiveFormat) // check() took it
	opts.FullWhy = opts.FullWhy || o.why == "full"
	write := func(w io.Writer) error {
		opts.Width, _ = termWidth(w)
		return f.Report(w, in, opts)
	}
	if o.output == "" {
		return write(stdout)
	}
	if err := atomicfile.Write(o.output, write); err != nil {
		return exitError{exitArmFailed, "writing -o " + o.output + ": " + errtext.FirstLine(err.Error())}
	}
	return nil
}

// save writes the files the user asked for, the run directory first: it
// holds everything, and everything else can be rebuilt from it, so an
// output that fails after the run never costs it.
func (o *outputs) save(run *results.Run, sums []*results.Summary) error {
	var errs []string
	if o.out != "" {
		if err := runfile.WriteRunDir(o.out, runDirFiles(run, sums)); err != nil {
			errs = append(errs, "--out "+o.out+": "+errtext.FirstLine(err.Error()))
		}
	}
	for _, f := range o.files(run, sums) {
		if f.path == "" {
			continue
		}
		if err := atomicfile.Write(f.path, f.write); err != nil {
			errs = append(errs, "writing "+f.flag+" "+f.path+": "+errtext.FirstLine(err.Error()))
		}
	}
	if len(errs) > 0 {
		return exitError{exitArmFailed, strings.Join(errs, "; ")}
	}
	return nil
}

// runDirFiles are what --out saves: run.json first, the CSVs, report.md
// and, when something ran long enough to draw, the chart.
func runDirFiles(run *results.Run, sums []*results.Summary) []runfile.File {
	files := []runfile.File{
		runfile.RunJSON(run, sums),
		{Name: "arms.csv", Write: func(w io.Writer) error { return render.WriteArmsCSV(w, sums) }},
		{Name: "syscalls.csv", Write: func(w io.Writer) error { return render.WriteSyscallCSV(w, run, sums) }},
		{Name: "report.md", Write: func(w io.Writer) error { render.WriteMarkdown(w, run, sums, arms.Knowledge()); return nil }},
	}
	if render.Chartable(sums) {
		for _, format := range []string{"svg", "png"} {
			files = append(files, runfile.File{Name: "chart." + format, Write: func(w io.Writer) error { return render.WriteChart(w, sums, format) }})
		}
	}
	return files
}

// openProbe opens and attaches the probe and records in meta which backend
// runs, how, and why the others were skipped.
func openProbe(opts probe.Options, devs []uint32, meta *results.Meta, attachNone bool) (*probe.Probe, error) {
	p, err := probe.Open(opts)
	if err != nil {
		return nil, exitError{exitUsage, privilegeHint(err, attachNone)}
	}
	if err := p.WatchDevices(devs); err != nil {
		p.Close()
		return nil, exitError{exitUsage, err.Error()}
	}
	if err := p.Attach(); err != nil {
		p.Close()
		return nil, exitError{exitUsage, privilegeHint(err, attachNone)}
	}
	meta.Backend = string(p.Backend)
	meta.BackendDetail = p.Describe()
	meta.MissingHooks = append([]string(nil), p.Missing...)
	meta.Notes = append(meta.Notes, p.OlderForms()...)
	for _, s := range p.Skipped {
		meta.Notes = append(meta.Notes, results.Note{Kind: results.NoteBackendSkipped, Backend: string(s.Backend), Verdict: string(s.Verdict), Reason: s.Reason})
	}
	return p, nil
}

// privilegeHint says how to run it when the kernel refused for want of
// privileges; --attach none is offered only where a run can do without
// the probe (trace cannot).
func privilegeHint(err error, attachNone bool) string {
	if os.Geteuid() != 0 && probe.Classify(err) == probe.VerdictPermission {
		if attachNone {
			return needPrivileges + ": run it with sudo, or pass --attach none for throughput only"
		}
		return needPrivileges + ": run it with sudo"
	}
	return errtext.FirstLine(openError(err))
}

// openError is probe.Open's error as the user asked for the backend: a
// backend that cannot be used is named by the flag that chose it.
func openError(err error) string {
	if be, ok := err.(*probe.BackendError); ok {
		return "--attach " + string(be.Backend) + ": " + probe.Refusal(be.Err)
	}
	return err.Error()
}

const needPrivileges = "loading BPF needs root (or CAP_BPF and CAP_PERFMON)"
