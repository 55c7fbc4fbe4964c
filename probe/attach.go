//go:build linux

package probe

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
)

// attachStep is one link to make.
type attachStep struct {
	name     string
	required bool
	why      string
	attach   func() (link.Link, error)
}

// Attach attaches every hook; a required hook that fails detaches all.
func (p *Probe) Attach() error {
	if len(p.links) > 0 {
		return nil
	}
	p.Missing = append(p.Missing[:0], p.unavailable...)
	// A detach can land between a softirq's entry and exit hooks on some
	// CPU, leaving its depth at 1: every wakeup there would then read as
	// "from irq". Start from zero on every attach.
	if err := p.resetIRQDepth(); err != nil {
		return err
	}
	for _, s := range p.attachSteps() {
		l, err := s.attach()
		if err != nil {
			if s.required {
				p.Detach()
				return fmt.Errorf("attach %s: %w", s.name, err)
			}
			p.Missing = append(p.Missing, fmt.Sprintf("%s (%s): %s", s.name, s.why, Refusal(err)))
			continue
		}
		p.links = append(p.links, l)
	}
	if s := p.stacks; s != nil && s.sampler != nil && !p.stacksOff {
		err := s.sampler.open()
		if err == nil {
			err = s.sampler.enable(true)
		}
		if err != nil {
			p.Missing = append(p.Missing, "user-time sampler (perf events): "+Refusal(err))
		}
	}
	return nil
}

// attachSteps orders the links: tracepoint exits and helpers, then the
// function hooks' exits, their entries, and sys_enter last.
func (p *Probe) attachSteps() []attachStep {
	var steps []attachStep
	for _, h := range tpHooks {
		if h.Name == "sys_enter" {
			steps = append(steps, p.funcSteps(false)...)
			steps = append(steps, p.funcSteps(true)...)
		}
		if !attaches(p.families, h.Name) {
			continue
		}
		name := progName(p.family, h, p.forms[h.Name])
		if p.stacksOff {
			name = strings.TrimSuffix(name, stackVariant)
		}
		switch {
		case p.rawHooks[h.Name]:
			name = progName(familyRawTp, h, p.forms[h.Name])
		case p.classicHooks[h.Name]:
			name = progName(familyClassic, h, tpForm{})
		}
		prog := p.progs[name]
		if prog == nil && !h.Required {
			continue // noted in unavailable when it did not load
		}
		steps = append(steps, attachStep{
			name: string(p.family) + "/" + h.Name, required: h.Required, why: h.Why,
			attach: func() (link.Link, error) {
				if prog == nil {
					return nil, fmt.Errorf("program %s is not loaded", name)
				}
				switch {
				case p.rawHooks[h.Name]:
					return link.AttachRawTracepoint(link.RawTracepointOptions{Name: h.Name, Program: prog})
				case p.classicHooks[h.Name]:
					return link.Tracepoint(h.Classic, h.Name, prog, nil)
				}
				l, err := p.attachTracepoint(h.Name, prog)
				if err != nil && p.family == familyTpBtf && !h.Required {
					l, rerr := p.attachRawInstead(h)
					if rerr == nil {
						return l, nil
					}
					err = fmt.Errorf("raw_tp instead: %s; tp_btf: %w", errText(rerr), err)
				}
				return l, err
			},
		})
	}
	return steps
}

// attachRawInstead loads and attaches hook's raw_tp program where its
// tp_btf one did not attach: before v5.11 (module BTF) a tracepoint of a
// module, ext4's and jbd2's where they are modules, takes no tp_btf
// program, but raw_tp finds it by name. The hook stays on raw_tp.
func (p *Probe) attachRawInstead(h tpHook) (link.Link, error) {
	name := progName(familyRawTp, h, p.forms[h.Name])
	prog, err := p.loadOne(name, "")
	if err != nil {
		return nil, err
	}
	l, err := link.AttachRawTracepoint(link.RawTracepointOptions{Name: h.Name, Program: prog})
	if err != nil {
		prog.Close()
		return nil, err
	}
	p.progs[name] = prog
	p.rawHooks[h.Name] = true
	return l, nil
}

func (p *Probe) attachTracepoint(tp string, prog *ebpf.Program) (link.Link, error) {
	if p.family == familyTpBtf {
		return link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceRawTp})
	}
	return link.AttachRawTracepoint(link.RawTracepointOptions{Name: tp, Program: prog})
}

func (p *Probe) funcSteps(entry bool) []attachStep {
	if m := p.multi; m != nil {
		kind := "kretprobe.multi"
		if entry {
			kind = "kprobe.multi"
		}
		return []attachStep{{
			name: fmt.Sprintf("%s on %d functions", kind, len(m.hooks)), required: true, why: "syscall and stage time",
			attach: func() (link.Link, error) { return m.attach(entry) },
		}}
	}
	entryFam, exitFam := p.Backend.families()
	var steps []attachStep
	for i := range p.funcs {
		f := &p.funcs[i]
		kind, side := exitFam, 1
		if entry {
			kind, side = entryFam, 0
		}
		why := "stage time"
		if f.hook.syscall != "" {
			why = f.hook.syscall + " time"
		}
		steps = append(steps, attachStep{
			name: kind + " " + f.hook.label(), required: f.hook.syscall != "", why: why,
			attach: func() (link.Link, error) { return p.attachFuncProg(f, kind, side) },
		})
	}
	return steps
}

// attachFuncProg attaches one side (0 entry, 1 exit) of a function hook.
// Before v5.11 a fentry or fexit program attaches once: detached, its
// attach target is gone and a new attach fails with ENOENT. Then the
// program is loaded again, which the untraced batches' detach makes
// happen once a traced batch there.
func (p *Probe) attachFuncProg(f *funcProgs, kind string, side int) (link.Link, error) {
	prog := f.exit
	if side == 0 {
		prog = f.entry
	}
	l, err := attachFunc(kind, f.hook.target, prog)
	if err == nil || !errors.Is(err, os.ErrNotExist) || (kind != "fentry" && kind != "fexit") {
		return l, err
	}
	fresh, lerr := p.loadOne(f.hook.progs(p.Backend)[side], f.hook.target)
	if lerr != nil {
		return nil, fmt.Errorf("%w; loading it again: %w", err, lerr)
	}
	if side == 0 {
		f.entry = fresh
	} else {
		f.exit = fresh
	}
	prog.Close()
	return attachFunc(kind, f.hook.target, fresh)
}

// attachFunc attaches prog of kind (kprobe, kretprobe, fentry, fexit) to
// a kernel function.
func attachFunc(kind, target string, prog *ebpf.Program) (link.Link, error) {
	var l link.Link
	var err error
	switch kind {
	case "kprobe":
		l, err = link.Kprobe(target, prog, nil)
	case "kretprobe":
		l, err = link.Kretprobe(target, prog, nil)
	case "fentry":
		l, err = link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceFEntry})
	case "fexit":
		l, err = link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceFExit})
	default:
		return nil, fmt.Errorf("unknown hook kind %q", kind)
	}
	if err != nil && (kind == "kprobe" || kind == "kretprobe") && errors.Is(err, os.ErrNotExist) && !haveKprobePMU() {
		// cilium/ebpf falls back from the kprobe PMU to tracefs
		// kprobe_events; with neither the kernel has no kprobes at all,
		// which its error (ENOENT on a tracefs file) does not say.
		return nil, notSupported("no kprobe PMU (" + kprobePMU + ") and no tracefs kprobe_events")
	}
	return l, err
}

const kprobePMU = "/sys/bus/event_source/devices/kprobe"

// haveKprobePMU reports whether perf can create kprobes (v4.17+, with
// CONFIG_KPROBE_EVENTS).
func haveKprobePMU() bool {
	_, err := os.Stat(kprobePMU + "/type")
	return err == nil
}

func (p *Probe) resetIRQDepth() error {
	m := p.coll.Maps[tmpprobeMapIrqDepth]
	zeros := make([]int64, ebpf.MustPossibleCPU())
	if err := m.Put(uint32(0), zeros); err != nil {
		return fmt.Errorf("resetting irq depth: %w", err)
	}
	return nil
}
