//go:build linux

package probe

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
)

// without is spec less the program name, as an object built from
// sources that lack it would be.
func without(spec *ebpf.CollectionSpec, name string) *ebpf.CollectionSpec {
	s := spec.Copy()
	delete(s.Programs, name)
	return s
}

// wantMissing checks that err is a *missingProgramError naming name.
func wantMissing(t *testing.T, err error, name string) {
	t.Helper()
	var missing *missingProgramError
	if !errors.As(err, &missing) || !slices.Equal(missing.Programs, []string{name}) || !strings.Contains(err.Error(), name) {
		t.Errorf("without %s: error %v, want one naming it", name, err)
	}
}

// Every hook has its program in the object for each family, and every
// function hook its entry and exit programs for each function backend,
// of the type the loader attaches them as. Without a required one the
// loader fails naming it; without an optional one it goes on and lists
// the hook as missing.
func TestHookPrograms(t *testing.T) {
	spec := objectSpec(t)
	types := map[tpFamily]ebpf.ProgramType{familyTpBtf: ebpf.Tracing, familyRawTp: ebpf.RawTracepoint}
	// Every hook in its current form, and every hook that has one in its
	// older form (as on 5.10).
	older := map[string]tpForm{}
	for hook, forms := range tpForms {
		if len(forms) > 1 {
			older[hook] = forms[len(forms)-1]
		}
	}
	for setName, forms := range map[string]map[string]tpForm{"current": {}, "older": older} {
		for _, fam := range []tpFamily{familyTpBtf, familyRawTp} {
			for _, h := range tpHooks {
				t.Run(setName+"/"+string(fam)+"/"+h.Name, func(t *testing.T) {
					name := progName(fam, h, forms[h.Name])
					if ps := spec.Programs[name]; ps == nil || ps.Type != types[fam] {
						t.Fatalf("program %s: %v, want a %s program", name, ps, types[fam])
					}
					req, opt, notes, err := familyPrograms(without(spec, name), fam, forms)
					if h.Required {
						wantMissing(t, err, name)
						return
					}
					if err != nil || len(notes) != 1 || !strings.Contains(notes[0], name) {
						t.Errorf("without %s: error %v, notes %q; want it listed as missing", name, err, notes)
					}
					if len(req)+len(opt) != len(tpHooks)-1 || slices.Contains(opt, h) {
						t.Errorf("without %s: %d required, %d optional hooks of %d", name, len(req), len(opt), len(tpHooks))
					}
				})
			}
			req, opt, notes, err := familyPrograms(spec, fam, forms)
			if err != nil || len(notes) > 0 || len(req)+len(opt) != len(tpHooks) {
				t.Errorf("%s %s: %d required, %d optional of %d hooks; notes %q, error %v", setName, fam, len(req), len(opt), len(tpHooks), notes, err)
			}
		}
	}
	kinds := map[string]ebpf.AttachType{"kprobe": ebpf.AttachNone, "kretprobe": ebpf.AttachNone,
		"fentry": ebpf.AttachTraceFEntry, "fexit": ebpf.AttachTraceFExit}
	for _, b := range []Backend{BackendKprobe, BackendFentry} {
		for _, h := range funcHooks() {
			for _, name := range h.progs(b) {
				t.Run(string(b)+"/"+name, func(t *testing.T) {
					kind, _, _ := strings.Cut(name, "_")
					ps := spec.Programs[name]
					if ps == nil || ps.AttachType != kinds[kind] || (b == BackendKprobe) != (ps.Type == ebpf.Kprobe) {
						t.Fatalf("program %s: %v, want %s", name, ps, kind)
					}
					have, notes, err := funcPrograms(without(spec, name), b, funcHooks())
					if h.syscall != "" {
						wantMissing(t, err, name)
						return
					}
					if err != nil || len(notes) != 1 || !strings.Contains(notes[0], name) || slices.Contains(have, h) {
						t.Errorf("without %s: error %v, notes %q; want the stage listed as missing", name, err, notes)
					}
				})
			}
		}
		have, notes, err := funcPrograms(spec, b, funcHooks())
		if err != nil || len(notes) > 0 || len(have) != len(funcHooks()) {
			t.Errorf("%s: %d of %d function hooks; notes %q, error %v", b, len(have), len(funcHooks()), notes, err)
		}
	}
	for _, name := range []string{tmpprobeProgKprobeMultiEntry, tmpprobeProgKretprobeMultiExit} {
		_, _, err := funcPrograms(without(spec, name), BackendKprobe, funcHooks())
		wantMissing(t, err, name)
	}
}

// Every program of the object is one the loader knows: a hook added in C
// alone would otherwise never load.
func TestNoProgramWithoutHook(t *testing.T) {
	known := map[string]bool{
		tmpprobeProgKprobeMultiEntry: true, tmpprobeProgKretprobeMultiExit: true,
		tmpprobeProgTestHistSlot:  true,                                  // run by TestHistSlotMatchesBPF
		tmpprobeProgPerfCpuSample: true, tmpprobeProgUprobePyStart: true, // startStacks'
	}
	for _, fam := range []tpFamily{familyTpBtf, familyRawTp} {
		known[string(fam)+execClockSuffix] = true // StartExecClock's
		for _, h := range pyLayoutHooks {
			known[string(fam)+h.suffix] = true
		}
		for _, h := range tpHooks {
			known[progName(fam, h, tpForm{})] = true
			if h.Name == "sys_enter" || h.Name == "sys_exit" {
				known[progName(fam, h, tpForm{prog: stackVariant})] = true
			}
			for _, f := range tpForms[h.Name] {
				known[progName(fam, h, f)] = true
			}
			if h.Classic != "" {
				known[progName(familyClassic, h, tpForm{})] = true
			}
		}
	}
	for _, b := range []Backend{BackendKprobe, BackendFentry} {
		for _, h := range funcHooks() {
			for _, name := range h.progs(b) {
				known[name] = true
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(objectSpec(t).Programs)) {
		if !known[name] {
			t.Errorf("program %s is in the object but in no Go table (tpHooks, tpForms, backendSyscalls, stageFuncs)", name)
		}
	}
}

// A required hook whose program did not load fails Attach, naming the
// program; an optional one is skipped (load listed it as missing).
func TestAttachNeedsRequiredPrograms(t *testing.T) {
	p := &Probe{family: familyTpBtf, progs: map[string]*ebpf.Program{}}
	steps := p.attachSteps()
	var names []string
	for _, s := range steps {
		names = append(names, s.name)
		if !s.required {
			t.Errorf("step %s without a program", s.name)
			continue
		}
		if _, err := s.attach(); err == nil || !strings.Contains(err.Error(), "tp_btf_"+strings.TrimPrefix(s.name, "tp_btf/")) {
			t.Errorf("%s: %v, want an error naming its program", s.name, err)
		}
	}
	var required []string
	for _, h := range tpHooks {
		if h.Required {
			required = append(required, "tp_btf/"+h.Name)
		}
	}
	if !slices.Equal(names, required) {
		t.Errorf("steps %v, want the required hooks %v", names, required)
	}
}

// The programs every run loads are the ones a 5.10 kernel takes: bpf_loop
// (v5.17) and the callbacks it is handed are in the programs that take
// stacks only, which load where stacks are asked for.
func TestOnlyStackProgramsUseBPFLoop(t *testing.T) {
	stackProgs := map[string]bool{tmpprobeProgPerfCpuSample: true, tmpprobeProgUprobePyStart: true}
	usesLoop := func(ps *ebpf.ProgramSpec) bool {
		for _, ins := range ps.Instructions {
			if ins.IsBuiltinCall() && ins.Constant == int64(asm.FnLoop) || ins.IsLoadOfFunctionPointer() {
				return true
			}
		}
		return false
	}
	spec := objectSpec(t)
	for name, ps := range spec.Programs {
		if !stackProgs[name] && !strings.HasSuffix(name, stackVariant) && usesLoop(ps) {
			t.Errorf("%s: a program every run loads uses bpf_loop", name)
		}
	}
	if !usesLoop(spec.Programs[tmpprobeProgTpBtfSysEnterStacks]) {
		t.Errorf("%s takes no Python stack: the check finds nothing", tmpprobeProgTpBtfSysEnterStacks)
	}
}
