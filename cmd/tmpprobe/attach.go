//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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

// checkOutputs refuses, before the run, outputs it could not write: found
// after the run they would cost its results (exit 1); found now they are
// bad input (exit 2).
func checkOutputs(csv, out string) error {
	if csv != "" {
		if err := results.CheckOutputFile(csv); err != nil {
			return usagef("--csv %s: %s", csv, oneLine(err.Error()))
		}
	}
	if out == "" {
		return nil
	}
	if err := results.CheckRunDir(out); err != nil {
		return usagef("--out %s: %s", out, oneLine(err.Error()))
	}
	if csv != "" {
		c, _ := filepath.Abs(filepath.Dir(csv))
		if o, _ := filepath.Abs(out); c == o {
			return usagef("--csv %s is inside --out %s, which is replaced as a whole (it holds syscalls.csv already)", csv, out)
		}
	}
	return nil
}

// saveOutputs writes the CSV and the run directory the user asked for.
func saveOutputs(csv, out string, run *results.Run, sums []*results.Summary) error {
	if csv != "" {
		if err := results.WriteFileAtomic(csv, func(w io.Writer) error {
			return results.WriteSyscallCSV(w, run, sums)
		}); err != nil {
			return exitError{exitArmFailed, "writing CSV: " + oneLine(err.Error())}
		}
	}
	if out != "" {
		if err := results.WriteRunDir(out, run, sums); err != nil {
			return exitError{exitArmFailed, "--out " + out + ": " + oneLine(err.Error())}
		}
	}
	return nil
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
	for _, s := range p.Skipped {
		meta.Notes = append(meta.Notes, fmt.Sprintf("%s backend skipped: %s: %s", s.Backend, s.Class, s.Reason))
	}
	return p, nil
}

// privilegeHint says how to run it when the kernel refused for want of
// privileges; --attach none is offered only where a run can do without
// the probe (trace cannot).
func privilegeHint(err error, attachNone bool) string {
	msg := oneLine(err.Error())
	if os.Geteuid() != 0 && (errors.Is(err, os.ErrPermission) || strings.Contains(msg, "permission") || strings.Contains(msg, "operation not permitted")) {
		if attachNone {
			return needPrivileges + ": run it with sudo, or pass --attach none for throughput only"
		}
		return needPrivileges + ": run it with sudo"
	}
	return msg
}

const needPrivileges = "loading BPF needs root (or CAP_BPF and CAP_PERFMON)"
