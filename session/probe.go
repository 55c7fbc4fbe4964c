//go:build linux

package session

import (
	"strconv"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
)

// probeOpen loads the BPF object: the session's edge with the kernel,
// which its tests replace to run without root.
var probeOpen = probe.Open

// openProbe opens and attaches the probe and records in meta which backend
// runs, how, which hooks run in an older form, and why the other backends
// were skipped. attachNone says whether the session could do without it.
func openProbe(opts probe.Options, devs []uint32, meta *results.Meta, attachNone bool) (*probe.Probe, error) {
	p, err := probeOpen(opts)
	if err != nil {
		return nil, &ProbeError{err, attachNone}
	}
	if err := p.WatchDevices(devs); err != nil {
		p.Close()
		return nil, err
	}
	if err := p.Attach(); err != nil {
		p.Close()
		return nil, &ProbeError{err, attachNone}
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

// startExecClock attaches the probe's exec clock (follow.ExecClock), so
// runs are timed from their command's exec as the kernel saw it; one that
// does not attach is a missing hook in meta, and the runs are timed from
// tmpprobe's wake-up at the exec.
func startExecClock(p *probe.Probe, meta *results.Meta) bool {
	if err := p.StartExecClock(); err != nil {
		meta.MissingHooks = append(meta.MissingHooks, "exec clock (runs timed from the exec by the kernel, not by tmpprobe's wake-up): "+probe.Refusal(err))
		return false
	}
	return true
}

// takeProbeResults puts in run what the probe holds at its end besides
// the records: its drop counters, its stacks, and a note of the switches
// the kernel did not report, whose time the probe settled itself.
func takeProbeResults(run *results.Run, p *probe.Probe) {
	run.Drops, _ = p.Drops()
	run.Stacks = p.StackTable()
	if n, err := p.UnseenSwitches(); err == nil && n > 0 {
		run.Meta.Notes = append(run.Meta.Notes, results.Note{Kind: results.NoteUnseenSwitches, What: strconv.FormatUint(n, 10)})
	}
}
