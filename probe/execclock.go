//go:build linux

package probe

import (
	"errors"
	"fmt"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

// StartExecClock attaches the exec clock (bpf on_exec_clock) apart from
// the other hooks, until Close: Detach leaves it, so compare's untraced
// runs are timed from their command's exec as the kernel saw it, as its
// traced runs are. It costs one hash lookup per exec on the machine and
// nothing per syscall.
func (p *Probe) StartExecClock() error {
	if p.execClock != nil {
		return nil
	}
	l, err := p.attachApart(execClockSuffix, "sched_process_exec")
	if err != nil {
		return fmt.Errorf("the exec clock: %w", err)
	}
	p.execClock = l
	return nil
}

// attachApart loads and attaches a program of bpf HOOKS (kind<suffix>) to
// tracepoint tp apart from the others: Detach leaves it. raw_tp's is
// taken where tp_btf's does not attach, as for an optional hook.
func (p *Probe) attachApart(suffix, tp string) (link.Link, error) {
	families := []tpFamily{p.family}
	if p.family == familyTpBtf {
		families = append(families, familyRawTp)
	}
	var errs []error
	for _, fam := range families {
		name := string(fam) + suffix
		prog, err := p.loadOne(name, "")
		if err == nil {
			var l link.Link
			if fam == familyTpBtf {
				l, err = link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceRawTp})
			} else {
				l, err = link.AttachRawTracepoint(link.RawTracepointOptions{Name: tp, Program: prog})
			}
			if err == nil {
				return l, nil
			}
		}
		errs = append(errs, fmt.Errorf("%s: %w", name, err))
	}
	return nil, errors.Join(errs...)
}

// execClockSuffix names the exec clock's program in a family (bpf HOOKS'
// kind_exec_clock).
const execClockSuffix = "_exec_clock"

// ArmExecClock makes the execs-th exec in cgroup (its id) the one
// ExecTime reads, from now.
func (p *Probe) ArmExecClock(cgroup uint64, execs uint32) error {
	return p.coll.Maps[tmpprobeMapExecClocks].Put(cgroup, tmpprobeExecClock{Want: execs})
}

// ExecTime is when the exec ArmExecClock asked for happened, in
// CLOCK_MONOTONIC ns, and forgets cgroup; ok is false when it did not
// happen (or the clock is not attached).
func (p *Probe) ExecTime(cgroup uint64) (ns uint64, ok bool) {
	m := p.coll.Maps[tmpprobeMapExecClocks]
	var c tmpprobeExecClock
	err := m.Lookup(cgroup, &c)
	m.Delete(cgroup)
	return c.Ns, err == nil && c.Ns != 0 && p.execClock != nil
}
