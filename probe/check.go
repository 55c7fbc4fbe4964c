//go:build linux

package probe

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/asm"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/link"
)

// checkRow is one fact of 'tmpprobe check': a name, yes or the verdict of
// no, and why.
type checkRow struct {
	Name    string
	Verdict Verdict
	Why     string
}

// ok reports a yes.
func (r checkRow) ok() bool { return r.Verdict == VerdictYes }

// funcRow is one kernel function with a trial of each function hook kind.
type funcRow struct {
	Func  string
	Role  string              // the syscall it is, or "in" the syscalls of a stage
	Kinds map[string]checkRow // by funcKinds
}

// funcKinds are the hook kinds the function backends use.
var funcKinds = []string{"kprobe", "kretprobe", "fentry", "fexit"}

// CheckReport is everything 'tmpprobe check' found.
type CheckReport struct {
	env      []checkRow // privileges, BTF, tracefs, kallsyms, kprobe PMU
	older    []string   // hooks in an older form: "hook: what it reads instead"
	types    []checkRow // each hook type, tried on one exact hook
	funcs    []funcRow  // each function hook, tried on its function
	backends []checkRow // each backend, opened and attached for real
	Auto     Backend    // what --attach auto takes; "" when nothing works
}

// Check tries every hook type and hook tmpprobe can use, then each backend
// as 'tmpprobe run' would open it. It loads tiny programs of its own for
// the hook trials, so a verifier problem of the real programs shows in the
// backend rows only.
func Check() *CheckReport {
	defer mountTracefs()()
	raiseMemlock() // Open says why, if it fails
	r := &CheckReport{}
	cache := btf.NewCache()
	syms, symErr := readKallsyms(funcTargets())
	var kernel *btf.Spec
	if k, err := cache.Kernel(); err == nil {
		kernel = k
		r.older = olderForms(k)
	}
	r.env = envRows(cache, syms, symErr, len(r.older))
	t := trial{kernel: kernel}
	openat := syscallPrefix + "openat"
	typeRow := map[string]checkRow{}
	for _, tr := range []struct{ name, on string }{
		{"tp_btf", "sys_enter"}, {"raw_tp", "sys_enter"}, {"tracepoint", "raw_syscalls:sys_enter"},
		{"kprobe", openat}, {"kretprobe", openat}, {"kprobe.multi", openat},
		{"fentry", openat}, {"fexit", openat},
	} {
		row := checkRow{Name: tr.name, Verdict: VerdictYes, Why: "on " + tr.on}
		if err := t.try(tr.name, tr.on); err != nil {
			row.Verdict, row.Why = Classify(err), errText(err)
		}
		typeRow[tr.name] = row
		r.types = append(r.types, row)
	}
	for _, h := range funcHooks() {
		fr := funcRow{Func: h.target, Role: h.syscall, Kinds: map[string]checkRow{}}
		if h.syscall == "" {
			fr.Role = "in " + stageUnder(h.target)
		}
		for _, kind := range funcKinds {
			fr.Kinds[kind] = t.funcCell(kind, h.target, syms, typeRow[kind])
		}
		r.funcs = append(r.funcs, fr)
	}
	for _, b := range autoOrder {
		row := checkRow{Name: string(b), Verdict: VerdictYes}
		p, err := Open(Options{Attach: b})
		var be *BackendError
		var old *kernelTooOld
		switch {
		case errors.As(err, &old):
			row.Verdict, row.Why = Classify(err), "the kernel cannot run tmpprobe (see its row above)"
		case errors.As(err, &be):
			row.Verdict, row.Why = Classify(be.Err), errText(be.Err)
		case err != nil:
			row.Verdict, row.Why = Classify(err), errText(err)
		default:
			row.Why = p.Describe()
			if len(p.unavailable) > 0 {
				row.Why += fmt.Sprintf("; %d hooks missing", len(p.unavailable))
			}
			p.Close()
			if r.Auto == "" {
				r.Auto = b
			}
		}
		r.backends = append(r.backends, row)
	}
	return r
}

func stageUnder(fn string) string {
	for _, s := range stageFuncs {
		if s.Func == fn {
			return s.Under
		}
	}
	return "?"
}

// funcCell tries one kind on one function, unless the function is not in
// the kernel or the kind failed on every function already (its type row).
func (t trial) funcCell(kind, fn string, syms hookSymbols, typeRow checkRow) checkRow {
	if why := syms.Missing(fn); why != "" {
		return checkRow{Name: kind, Verdict: VerdictMissing, Why: why}
	}
	if c := typeRow.Verdict; c == VerdictNotSupported || c == VerdictPermission {
		return checkRow{Name: kind, Verdict: c, Why: typeRow.Why}
	}
	if err := t.try(kind, fn); err != nil {
		return checkRow{Name: kind, Verdict: Classify(err), Why: errText(err)}
	}
	return checkRow{Name: kind, Verdict: VerdictYes}
}

// trial loads a program that returns 0 and attaches it to one hook.
type trial struct{ kernel *btf.Spec }

func (t trial) try(kind, on string) error {
	spec := &ebpf.ProgramSpec{
		Name: "tmpprobe_check", License: "GPL",
		Instructions: asm.Instructions{asm.Mov.Imm(asm.R0, 0), asm.Return()},
	}
	switch kind {
	case "tp_btf":
		spec.Type, spec.AttachType, spec.AttachTo = ebpf.Tracing, ebpf.AttachTraceRawTp, on
	case "raw_tp":
		spec.Type = ebpf.RawTracepoint
	case "tracepoint":
		spec.Type = ebpf.TracePoint
	case "kprobe", "kretprobe":
		spec.Type = ebpf.Kprobe
	case "kprobe.multi":
		spec.Type, spec.AttachType = ebpf.Kprobe, ebpf.AttachTraceKprobeMulti
	case "fentry", "fexit":
		spec.Type, spec.AttachTo = ebpf.Tracing, on
		spec.AttachType = ebpf.AttachTraceFEntry
		if kind == "fexit" {
			spec.AttachType = ebpf.AttachTraceFExit
		}
	}
	prog, err := ebpf.NewProgramWithOptions(spec, ebpf.ProgramOptions{KernelTypes: t.kernel})
	if err != nil {
		return err
	}
	defer prog.Close()
	var l link.Link
	switch kind {
	case "tp_btf":
		l, err = link.AttachTracing(link.TracingOptions{Program: prog, AttachType: ebpf.AttachTraceRawTp})
	case "raw_tp":
		l, err = link.AttachRawTracepoint(link.RawTracepointOptions{Name: on, Program: prog})
	case "tracepoint":
		group, name, _ := strings.Cut(on, ":")
		l, err = link.Tracepoint(group, name, prog, nil)
	case "kprobe.multi":
		// The kprobe backend needs both directions; one row says both.
		opts := link.KprobeMultiOptions{Symbols: []string{on}}
		if l, err = attachMulti("kretprobe.multi", prog, opts); err == nil {
			l.Close()
			l, err = attachMulti(kind, prog, opts)
		}
	default:
		l, err = attachFunc(kind, on, prog)
	}
	if err != nil {
		return err
	}
	return l.Close()
}

func envRows(cache *btf.Cache, syms hookSymbols, symErr error, older int) []checkRow {
	var rows []checkRow
	add := func(name string, ok bool, verdict Verdict, why string) {
		if ok {
			verdict = VerdictYes
		}
		rows = append(rows, checkRow{name, verdict, why})
	}
	priv, why := privileges()
	add("privileges", priv, VerdictPermission, why)
	_, err := cache.Kernel()
	add("BTF", err == nil, Classify(err), btfWhy(err))
	kernelWhy := kernelSummary(older)
	if err = checkKernel(cache); err != nil {
		kernelWhy = errText(err)
	}
	add("kernel", err == nil, Classify(err), kernelWhy)
	tracefs := tracefsDir()
	add("tracefs", tracefs != "", VerdictMissing, orElse(tracefs, "not mounted (only classic tracepoints and the kprobe fallback need it)"))
	if symErr != nil {
		add("kallsyms", false, Classify(symErr), errText(symErr))
	} else {
		n := 0
		for _, fn := range funcTargets() {
			if syms.Funcs[fn] {
				n++
			}
		}
		add("kallsyms", n > 0, VerdictMissing, fmt.Sprintf("%d of %d hooked functions", n, len(funcTargets())))
	}
	pmu := haveKprobePMU()
	pmuWhy := "no " + kprobePMU
	if pmu {
		pmuWhy = kprobePMU
	}
	add("kprobe PMU", pmu, VerdictNotSupported, pmuWhy)
	return rows
}

func btfWhy(err error) string {
	if err != nil {
		return errText(err)
	}
	return "/sys/kernel/btf/vmlinux"
}

func orElse(s, alt string) string {
	if s != "" {
		return s
	}
	return alt
}

func tracefsDir() string {
	for _, d := range []string{"/sys/kernel/tracing", "/sys/kernel/debug/tracing"} {
		if _, err := os.Stat(d + "/available_events"); err == nil {
			return d
		}
	}
	return ""
}

// privileges: root, or CAP_BPF with CAP_PERFMON (v5.8+), or CAP_SYS_ADMIN.
func privileges() (bool, string) {
	if os.Geteuid() == 0 {
		return true, "root"
	}
	caps := effectiveCaps()
	const capSysAdmin, capPerfmon, capBPF = 21, 38, 39
	has := func(c uint) bool { return caps&(1<<c) != 0 }
	switch {
	case has(capBPF) && has(capPerfmon):
		return true, "CAP_BPF and CAP_PERFMON"
	case has(capSysAdmin):
		return true, "CAP_SYS_ADMIN"
	}
	return false, "not root and no CAP_BPF+CAP_PERFMON: run it with sudo"
}

func effectiveCaps() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			caps, _ := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return caps
		}
	}
	return 0
}
