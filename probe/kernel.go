//go:build linux

package probe

import (
	"fmt"

	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
)

// minKernel is the oldest Linux the BPF side runs on: 5.10, the oldest
// long-term kernel of the lab fleet (Debian 11, Amazon Linux 2), booted by
// make vmtest. It needs: tp_btf and fentry (5.5), BTF in sysfs (5.4),
// global variables (5.2), the syscall wrappers (__x64_sys_* 4.17,
// __arm64_sys_* 4.19). Hooks whose arguments moved since have a program
// for each form (tpForms); kprobe.multi (5.18, CONFIG_FPROBE) is optional.
const minKernel = "5.10"

// tpArg is a tracepoint argument the BPF side reads by position (ctx[i] in
// the bpf/*.bpf.h families' wrappers): read on a kernel with another prototype,
// ctx[i] is another argument (the verifier does not mind, BPF_CORE_READ
// reads whatever the pointer points at) or past the end (tp_btf refuses
// to load and raw_tp to attach, with an EINVAL that does not say why).
type tpArg struct {
	index int    // i of ctx[i]
	want  string // its C type, as cType spells it
	name  string
	since string // the change that put it there, if it moved
}

// where says where a.name is, and since when.
func (a tpArg) where() string {
	if a.since == "" {
		return fmt.Sprintf("ctx[%d]", a.index)
	}
	return fmt.Sprintf("ctx[%d], %s", a.index, a.since)
}

// tpForm is one prototype of a tracepoint the BPF side can read: the
// arguments it reads by position, and the program that reads them
// (HOOKS names it kind_<hook><prog>).
type tpForm struct {
	prog  string // "" for the current form
	args  []tpArg
	older string // an older form: what it reads instead, for check and the notes
}

// tpForms are the hooks whose arguments are read by position, each form
// newest first; the loader takes the first whose arguments the kernel's
// BTF prototype has (typedef btf_trace_<tp>, which tp_btf programs are
// verified against), so a distribution kernel with a backport is read by
// what it has, not by its version (as libbpf-tools does with CO-RE:
// core_fixes.bpf.h re-reads task->__state, biolatency reads ctx[1] before
// 5.11). Hooks not listed read no argument by position, or none that moved.
var tpForms = map[string][]tpForm{
	"sched_switch": {
		{args: []tpArg{{3, "unsigned int", "prev_state", "v5.18, commit fa2c3254d7cf"}}},
		{prog: "_task", args: []tpArg{{1, "struct task_struct *", "prev", ""}},
			older: "the task's state, not prev_state (an argument since v5.18)"},
	},
	"block_rq_issue": {
		{args: []tpArg{{0, "struct request *", "rq", "v5.11, commit a54895fa057c dropped the request_queue before it"}}},
		{prog: "_q", args: []tpArg{{1, "struct request *", "rq", ""}},
			older: "the request after the request_queue (before v5.11)"},
	},
	"block_bio_queue": {
		{args: []tpArg{{0, "struct bio *", "bio", "v5.11, when the request_queue before it was dropped"}}},
		{prog: "_q", args: []tpArg{{1, "struct bio *", "bio", ""}},
			older: "the bio after the request_queue (before v5.11)"},
	},
	"block_rq_complete":  {{args: []tpArg{{0, "struct request *", "rq", ""}, {2, "unsigned int", "nr_bytes", ""}}}},
	"block_io_start":     {{args: []tpArg{{0, "struct request *", "rq", ""}}}},
	"sched_process_exec": {{args: []tpArg{{1, "int", "old_pid", ""}, {2, "struct linux_binprm *", "bprm", ""}}}},
}

// tracepointForm is the form of hook's arguments this kernel has: the
// current one when the kernel has no BTF for the tracepoint (attaching it
// will say so) or the hook reads nothing by position, else the first form
// that matches, or what is wrong with the current one when none does.
func tracepointForm(kernel *btf.Spec, hook string) (tpForm, error) {
	forms := tpForms[hook]
	if len(forms) == 0 || kernel == nil {
		return tpForm{}, nil
	}
	var td *btf.Typedef
	if err := kernel.TypeByName("btf_trace_"+hook, &td); err != nil {
		return forms[0], nil
	}
	ptr, _ := btf.UnderlyingType(td.Type).(*btf.Pointer)
	var proto *btf.FuncProto
	if ptr != nil {
		proto, _ = ptr.Target.(*btf.FuncProto)
	}
	if proto == nil {
		return tpForm{}, fmt.Errorf("btf_trace_%s is not a function pointer", hook)
	}
	var first error
	for _, f := range forms {
		err := formMismatch(proto, hook, f)
		if err == nil {
			return f, nil
		}
		if first == nil {
			first = err
		}
	}
	return tpForm{}, first
}

// formMismatch says how proto lacks an argument of f, or nil.
func formMismatch(proto *btf.FuncProto, hook string, f tpForm) error {
	for _, a := range f.args {
		// The first parameter is the tracepoint's private data pointer;
		// the TP_PROTO arguments, ctx[0] on, follow it.
		if a.index+1 >= len(proto.Params) {
			return notSupported(fmt.Sprintf("%s has no %s argument (%s)", hook, a.name, a.where()))
		}
		if got := cType(proto.Params[a.index+1].Type); got != a.want {
			return notSupported(fmt.Sprintf("%s's %s argument is %s, not %s (%s)", hook, a.name, got, a.want, a.where()))
		}
	}
	return nil
}

// cType spells t as C does, enough to compare tracepoint arguments.
func cType(t btf.Type) string {
	switch t := btf.UnderlyingType(t).(type) {
	case *btf.Pointer:
		return cType(t.Target) + " *"
	case *btf.Struct:
		return "struct " + t.Name
	case *btf.Union:
		return "union " + t.Name
	case *btf.Enum:
		return "enum " + t.Name
	case *btf.Void:
		return "void"
	case *btf.Fwd:
		return t.Kind.String() + " " + t.Name
	case *btf.Int:
		return t.Name
	}
	return fmt.Sprintf("%T", t)
}

// kernelTooOld is why this kernel cannot run tmpprobe at all: no BTF, or a
// required hook's argument is not where the BPF side reads it. One line,
// naming the kernel, the missing fact and minKernel.
type kernelTooOld struct {
	Release string
	Err     error
}

func (e *kernelTooOld) Error() string {
	return fmt.Sprintf("Linux %s cannot run tmpprobe (needs %s or later, with BTF): %s", e.Release, minKernel, errText(e.Err))
}

func (e *kernelTooOld) Unwrap() error { return e.Err }

// checkKernel returns a *kernelTooOld when the kernel lacks what every
// backend needs: BTF (the programs are CO-RE: every field they read is
// relocated against it) and a form of the required hooks' arguments.
func checkKernel(cache *btf.Cache) error {
	kernel, err := cache.Kernel()
	if err != nil {
		return &kernelTooOld{kernelRelease(), fmt.Errorf("no kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): %w", err)}
	}
	for _, h := range tpHooks {
		if !h.Required {
			continue
		}
		if _, err := tracepointForm(kernel, h.Name); err != nil {
			return &kernelTooOld{kernelRelease(), err}
		}
	}
	return nil
}

// olderForms are the hooks this kernel has in an older form, each "hook:
// what it reads instead", in tpHooks order.
func olderForms(kernel *btf.Spec) []string {
	var out []string
	for _, h := range tpHooks {
		if f, err := tracepointForm(kernel, h.Name); err == nil && f.older != "" {
			out = append(out, h.Name+": "+f.older)
		}
	}
	return out
}

// kernelSummary is the yes of the check's kernel row.
func kernelSummary(older int) string {
	if older == 0 {
		return fmt.Sprintf("%s: BTF, and every hook in its current form", kernelRelease())
	}
	return fmt.Sprintf("%s: BTF; %d hooks in an older form (below)", kernelRelease(), older)
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "?"
	}
	return unix.ByteSliceToString(u.Release[:])
}
