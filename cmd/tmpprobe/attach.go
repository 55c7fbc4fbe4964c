//go:build linux

package main

import (
	"fmt"

	"tmpprobe/probe"
	"tmpprobe/results"
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

// openProbe opens and attaches the probe and records in meta which backend
// runs, how, and why the others were skipped.
func openProbe(b probe.Backend, devs []uint32, meta *results.Meta) (*probe.Probe, error) {
	p, err := probe.Open(probe.Options{Attach: b})
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
