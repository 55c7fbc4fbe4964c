//go:build linux

package probe

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
)

// syscallSet is config.backend_syscalls: bit nr set for a syscall that a
// function backend times.
type syscallSet = [len(tmpprobeConfig{}.BackendSyscalls)]uint64

// newConfig is the BPF side's struct config for a run.
func newConfig(cookie uint64, owned syscallSet, opts Options) tmpprobeConfig {
	cfg := tmpprobeConfig{
		Cookie: cookie, TargetCgroup: opts.TargetCgroup, BackendSyscalls: owned,
		TracePhase: opts.TracePhase, LaunchPhase: opts.LaunchPhase,
		CountErrnos: opts.CountErrnos, MatchAnyDev: opts.AnyDevice,
		CountNeighbours: opts.countsNeighbours(), CompareTaskState: opts.CompareTaskState,
		Cut: uint8(opts.Cut),
	}
	stackConfig(&cfg, opts.Stacks)
	return cfg
}

// missingProgramError names programs the loader needs that the BPF object
// lacks: the object and the Go tables disagree (a stale 'make generate', or
// a hook renamed on one side only). Another family or backend would load
// the same object, so Open fails with it at once.
type missingProgramError struct{ Programs []string }

func (e *missingProgramError) Error() string {
	return fmt.Sprintf("the BPF object has no program %s (stale 'make generate'?)", strings.Join(e.Programs, ", "))
}

// progName is a tracepoint hook's program in fam for the form of its
// arguments the kernel has: bpf/tmpprobe.bpf.c's HOOKS(kind) names them
// kind_hook, and kind_hook<prog> for an older form.
func progName(fam tpFamily, h tpHook, f tpForm) string { return string(fam) + "_" + h.Name + f.prog }

// hookForms are the forms of every hook's arguments on kernel; a hook the
// kernel has in no form tmpprobe reads keeps the current one, and loading
// it names the mismatch (tracepointForm).
func hookForms(kernel *btf.Spec) map[string]tpForm {
	forms := map[string]tpForm{}
	for _, h := range tpHooks {
		if f, err := tracepointForm(kernel, h.Name); err == nil {
			forms[h.Name] = f
		} else if fs := tpForms[h.Name]; len(fs) > 0 {
			forms[h.Name] = fs[0]
		}
	}
	return forms
}

// familyPrograms splits tpHooks into those whose fam program (in the
// form forms names) spec has, required and optional, and notes the
// optional ones it lacks; a required hook without its program is a
// *missingProgramError.
func familyPrograms(spec *ebpf.CollectionSpec, fam tpFamily, forms map[string]tpForm) (required, optional []tpHook, notes []string, err error) {
	var missing []string
	for _, h := range tpHooks {
		name := progName(fam, h, forms[h.Name])
		switch {
		case spec.Programs[name] != nil && h.Required:
			required = append(required, h)
		case spec.Programs[name] != nil:
			optional = append(optional, h)
		case h.Required:
			missing = append(missing, name)
		default:
			notes = append(notes, fmt.Sprintf("%s/%s (%s): no program %s in the BPF object", fam, h.Name, h.Why, name))
		}
	}
	if len(missing) > 0 {
		return nil, nil, nil, &missingProgramError{missing}
	}
	return required, optional, notes, nil
}

// loadTracepoints loads the maps and the tracepoint programs of the first
// family the kernel accepts.
func loadTracepoints(cfg tmpprobeConfig, cache *btf.Cache) (*Probe, error) {
	var errs []string
	var first error
	for _, fam := range []tpFamily{familyTpBtf, familyRawTp} {
		p, err := loadFamily(fam, cfg, cache)
		var missing *missingProgramError
		if err != nil && cfg.Stacks && !errors.As(err, &missing) {
			// The programs that take stacks need what an older kernel
			// lacks (bpf_loop, v5.17): the probe goes on without them.
			plain := cfg
			plain.Stacks = false
			if p, perr := loadFamily(fam, plain, cache); perr == nil {
				p.stacksRefused = Refusal(err)
				return p, nil
			}
		}
		if err == nil || errors.As(err, &missing) {
			return p, err
		}
		if first == nil {
			first = err
		}
		errs = append(errs, fmt.Sprintf("%s: %v", fam, errText(err)))
	}
	return nil, fmt.Errorf("loading tracepoint programs (%s): %w", strings.Join(errs, "; "), first)
}

// loadFamily loads the maps and the family's required tracepoint programs
// in one collection, then each optional one on its own: a tracepoint the
// kernel lacks (a module's, not loaded) fails only its own hook.
func loadFamily(fam tpFamily, cfg tmpprobeConfig, cache *btf.Cache) (*Probe, error) {
	spec, err := loadTmpprobe()
	if err != nil {
		return nil, err
	}
	if err := spec.Variables[tmpprobeVarConfig].Set(cfg); err != nil {
		return nil, fmt.Errorf("setting the BPF config: %w", err)
	}
	kernel, _ := cache.Kernel() // Open has checked it is there
	forms := hookForms(kernel)
	if cfg.Stacks {
		withStackPrograms(forms)
	} else {
		shrinkStackMaps(spec)
	}
	if cfg.CompareTaskState && forms["sched_switch"].older != "" {
		return nil, notSupported("comparing the task's state with prev_state needs sched_switch's prev_state (v5.18)")
	}
	required, optional, notes, err := familyPrograms(spec, fam, forms)
	if err != nil {
		return nil, err
	}
	// Only this family's programs reach the verifier: a refused hook type
	// must not fail the load of the others.
	base := *spec
	base.Programs = map[string]*ebpf.ProgramSpec{}
	for _, h := range required {
		name := progName(fam, h, forms[h.Name])
		base.Programs[name] = spec.Programs[name]
	}
	coll, err := ebpf.NewCollectionWithOptions(&base, ebpf.CollectionOptions{Cache: cache})
	if err != nil {
		printVerifierLog(err)
		return nil, err
	}
	p := &Probe{Cookie: cfg.Cookie, family: fam, userFloor: map[uint32]uint64{}, coll: coll, spec: spec, cache: cache, progs: map[string]*ebpf.Program{},
		forms: forms, rawHooks: map[string]bool{}, classicHooks: map[string]bool{}, unavailable: notes}
	for name, prog := range coll.Programs {
		p.progs[name] = prog
	}
	if cfg.Stacks {
		if err := p.loadPlainSyscallPrograms(); err != nil {
			coll.Close()
			return nil, err
		}
	}
	for _, h := range optional {
		name := progName(fam, h, forms[h.Name])
		// Open has checked the required hooks' arguments (checkKernel).
		_, formErr := tracepointForm(kernel, h.Name)
		err := formErr
		var prog *ebpf.Program
		if err == nil {
			prog, err = p.loadOne(name, "")
		}
		if err != nil && formErr == nil && fam == familyTpBtf {
			// A module's tracepoint without module BTF (before v5.11)
			// takes no tp_btf program; raw_tp finds it by name.
			raw := progName(familyRawTp, h, forms[h.Name])
			rawProg, rerr := p.loadOne(raw, "")
			if rerr == nil {
				p.progs[raw] = rawProg
				p.rawHooks[h.Name] = true
				continue
			}
			err = fmt.Errorf("raw_tp instead: %s; tp_btf: %w", errText(rerr), err)
		}
		if err != nil && formErr == nil && h.Classic != "" {
			classic := progName(familyClassic, h, tpForm{})
			cerr := checkClassicRecord(h.Classic, h.Name)
			var cprog *ebpf.Program
			if cerr == nil {
				cprog, cerr = p.loadOne(classic, "")
			}
			if cerr == nil {
				p.progs[classic] = cprog
				p.classicHooks[h.Name] = true
				continue
			}
			err = fmt.Errorf("classic tracepoint instead: %s; %w", errText(cerr), err)
		}
		if err != nil {
			p.unavailable = append(p.unavailable, fmt.Sprintf("%s/%s (%s): %s", fam, h.Name, h.Why, Refusal(err)))
			continue
		}
		p.progs[name] = prog
	}
	return p, nil
}

// loadOne loads one program of the object with the maps of the probe's
// collection, attached to target when it is set (fentry/fexit).
func (p *Probe) loadOne(name, target string) (*ebpf.Program, error) {
	ps := p.spec.Programs[name]
	if ps == nil {
		return nil, &missingProgramError{[]string{name}}
	}
	ps = ps.Copy()
	if target != "" {
		ps.AttachTo = target
	}
	one := *p.spec
	one.Programs = map[string]*ebpf.ProgramSpec{name: ps}
	c, err := ebpf.NewCollectionWithOptions(&one, ebpf.CollectionOptions{MapReplacements: p.coll.Maps, Cache: p.cache})
	if err != nil {
		printVerifierLog(err)
		return nil, err
	}
	// The program holds the maps it uses; the collection's clones of
	// their fds would only pile up: before v5.11 a fentry program is
	// loaded again at every traced batch (attachFuncProg), 36 of them
	// with 31 clones each, and on 5.10 the first traced batch's reload
	// ran out of fds.
	for m, mp := range c.Maps {
		mp.Close()
		delete(c.Maps, m)
	}
	p.colls = append(p.colls, c)
	return c.Programs[name], nil
}

func printVerifierLog(err error) {
	var ve *ebpf.VerifierError
	if errors.As(err, &ve) && os.Getenv("TMPPROBE_VERIFIER_LOG") != "" {
		fmt.Fprintf(os.Stderr, "%+v\n", ve)
	}
}

// funcPlan is what a function backend will hook on this kernel.
type funcPlan struct {
	hooks       []funcHook
	owned       syscallSet // bit nr: timed by a function hook
	ownedNames  []string
	unavailable []string
}

// planFuncHooks keeps the function hooks whose target this kernel has:
// kallsyms for both backends, and BTF for fentry. A syscall without its
// function stays with sys_enter/sys_exit; a stage without one is skipped.
func planFuncHooks(b Backend, cache *btf.Cache) (funcPlan, error) {
	var plan funcPlan
	syms, err := readKallsyms(funcTargets())
	if err != nil {
		return plan, fmt.Errorf("reading kallsyms: %w", err)
	}
	var kernel *btf.Spec
	if b == BackendFentry {
		if kernel, err = cache.Kernel(); err != nil {
			return plan, fmt.Errorf("kernel BTF: %w", err)
		}
	}
	for _, h := range funcHooks() {
		why := syms.Missing(h.target)
		if why == "" && kernel != nil {
			var fn *btf.Func
			if err := kernel.TypeByName(h.target, &fn); err != nil {
				why = "no BTF for " + h.target
			}
		}
		if why != "" {
			note := fmt.Sprintf("%s %s: %s", b, h.label(), why)
			if h.syscall != "" {
				note += "; timed by sys_enter/sys_exit"
			}
			plan.unavailable = append(plan.unavailable, note)
			continue
		}
		plan.hooks = append(plan.hooks, h)
		if h.syscall == "" {
			continue
		}
		nr, ok := syscallNr(h.syscall)
		if max := 64 * len(plan.owned); !ok || int(nr) >= max {
			return plan, fmt.Errorf("syscall %s has no %s number below %d", h.syscall, archName, max)
		}
		plan.owned[nr/64] |= 1 << (nr % 64)
		plan.ownedNames = append(plan.ownedNames, h.syscall)
	}
	if len(plan.ownedNames) == 0 {
		return plan, notSupported("no " + syscallPrefix + "* function in kallsyms (kernel before v4.17?)")
	}
	return plan, nil
}

// funcPrograms keeps the hooks whose entry and exit programs for b are in
// spec, noting the stages without; a syscall hook without its programs, or
// the kprobe backend without its kprobe.multi pair, is a
// *missingProgramError.
func funcPrograms(spec *ebpf.CollectionSpec, b Backend, hooks []funcHook) (have []funcHook, notes []string, err error) {
	var missing []string
	if b == BackendKprobe {
		for _, name := range []string{tmpprobeProgKprobeMultiEntry, tmpprobeProgKretprobeMultiExit} {
			if spec.Programs[name] == nil {
				missing = append(missing, name)
			}
		}
	}
	for _, h := range hooks {
		var lacks []string
		for _, name := range h.progs(b) {
			if spec.Programs[name] == nil {
				lacks = append(lacks, name)
			}
		}
		switch {
		case len(lacks) == 0:
			have = append(have, h)
		case h.syscall != "":
			missing = append(missing, lacks...)
		default:
			notes = append(notes, fmt.Sprintf("%s %s: no program %s in the BPF object", b, h.label(), strings.Join(lacks, ", ")))
		}
	}
	if len(missing) > 0 {
		return nil, nil, &missingProgramError{missing}
	}
	return have, notes, nil
}

// funcProgs are the entry and exit programs of one function hook, each
// loaded on its own so a stage the verifier refuses costs only that stage.
type funcProgs struct {
	hook        funcHook
	entry, exit *ebpf.Program
}

// loadFuncs loads the backend's programs for hooks, sharing the maps of
// the tracepoint collection. A syscall hook that fails fails the backend;
// a stage hook that fails is noted and skipped.
func (p *Probe) loadFuncs(hooks []funcHook) error {
	for _, h := range hooks {
		f := funcProgs{hook: h}
		progs := h.progs(p.Backend)
		var err error
		if f.entry, err = p.loadOne(progs[0], h.target); err == nil {
			f.exit, err = p.loadOne(progs[1], h.target)
		}
		if err != nil {
			if h.syscall != "" {
				return fmt.Errorf("loading %s on %s: %w", progs[0], h.target, err)
			}
			p.unavailable = append(p.unavailable, fmt.Sprintf("%s %s: %s", p.Backend, h.label(), Refusal(err)))
			continue
		}
		p.funcs = append(p.funcs, f)
	}
	return nil
}
