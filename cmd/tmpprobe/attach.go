//go:build linux

package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
)

// attachFlag checks --attach; "none" (no probe) comes back as "".
func attachFlag(s string) (probe.Backend, error) {
	if s == "none" {
		return "", nil
	}
	b, err := probe.ParseBackend(s)
	if err != nil {
		return "", usageError{err.Error()}
	}
	return b, nil
}

// outputs are the files a run or trace was asked to write besides the
// terminal report: --csv, --pprof, --benchfmt and the --out directory.
type outputs struct {
	csv, pprof, benchfmt, out string
}

func (o *outputs) flags(fs *pflag.FlagSet) {
	fs.StringVar(&o.csv, "csv", "", "write the syscall breakdown CSV to `FILE`")
	fs.StringVar(&o.pprof, "pprof", "", "write a pprof profile to `FILE` (go tool pprof, Pyroscope, Parca read it)")
	fs.StringVar(&o.benchfmt, "benchfmt", "", "write Go benchmark-format lines to `FILE`, one per case and round (for benchstat)")
}

// save writes the files the user asked for.
func (o *outputs) save(run *results.Run, sums []*results.Summary) error {
	for _, f := range []struct {
		flag, path string
		write      func(io.Writer) error
	}{
		{"--csv", o.csv, func(w io.Writer) error { return results.WriteSyscallCSV(w, run, sums) }},
		{"--pprof", o.pprof, func(w io.Writer) error { return results.WritePprof(w, run, sums) }},
		{"--benchfmt", o.benchfmt, func(w io.Writer) error { return results.WriteBenchfmt(w, run, sums) }},
	} {
		if f.path == "" {
			continue
		}
		if err := results.WriteFileAtomic(f.path, f.write); err != nil {
			return exitError{exitArmFailed, "writing " + f.flag + " " + f.path + ": " + oneLine(err.Error())}
		}
	}
	if o.out != "" {
		if err := results.WriteRunDir(o.out, run, sums); err != nil {
			return exitError{exitArmFailed, "--out " + o.out + ": " + oneLine(err.Error())}
		}
	}
	return nil
}

// openProbe opens and attaches the probe and records in meta which backend
// runs, how, and why the others were skipped.
func openProbe(opts probe.Options, devs []uint32, meta *results.Meta) (*probe.Probe, error) {
	p, err := probe.Open(opts)
	if err != nil {
		return nil, exitError{exitUsage, privilegeHint(err)}
	}
	if err := p.WatchDevices(devs); err != nil {
		p.Close()
		return nil, exitError{exitUsage, err.Error()}
	}
	if err := p.Attach(); err != nil {
		p.Close()
		return nil, exitError{exitUsage, privilegeHint(err)}
	}
	meta.Backend = string(p.Backend)
	meta.BackendDetail = p.Describe()
	meta.MissingHooks = append([]string(nil), p.Missing...)
	for _, s := range p.Skipped {
		meta.Notes = append(meta.Notes, fmt.Sprintf("%s backend skipped: %s: %s", s.Backend, s.Class, s.Reason))
	}
	return p, nil
}
