//go:build linux

package probe

import (
	"fmt"

	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
)

// minKernel is the oldest Linux the BPF side runs on: 5.18, where
// sched_switch gained its prev_state argument (tpArgs). Everything else it
// needs is older: tp_btf and fentry (5.5), BTF in sysfs (5.4), global
// variables (5.2), the __x64_sys_* wrappers (4.17), and the block
// tracepoints' one-argument form (5.11). Without CONFIG_FPROBE (5.18+)
// the kprobe backend uses single kprobes instead of kprobe.multi.
const minKernel = "5.18"

// tpArg is a tracepoint argument the BPF side reads by position (ctx[i] in
// bpf/tmpprobe.bpf.c's HOOKS) whose position or type changed in a kernel
// release: read on an older kernel, ctx[i] is another argument (the
// verifier does not mind, BPF_CORE_READ reads whatever the pointer points
// at) or past the end (tp_btf refuses to load and raw_tp to attach, with
// an EINVAL that does not say why).
type tpArg struct {
	hook  string // a tpHooks name
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

// tpArgs are checked against the kernel's BTF (typedef btf_trace_<tp>, the
// prototype tp_btf programs are verified against), so a distribution
// kernel with a backport passes on what it has, not on its version.
// libbpf-tools reads these per kernel version instead (biolatency's
// ctx[1] before 5.11, core_fixes.bpf.h re-reading task->__state): tmpprobe
// refuses a kernel it cannot read exactly rather than carry fallbacks no
// test boots (apt serves 6.1 and 6.12 here, see vmtest/), and re-reading
// prev->__state races with a wakeup, which is why 5.18 added the argument.
var tpArgs = []tpArg{
	{"sched_switch", 3, "unsigned int", "prev_state", "v5.18, commit fa2c3254d7cf"},
	{"block_rq_issue", 0, "struct request *", "rq", "v5.11, commit a54895fa057c dropped the request_queue before it"},
	{"block_rq_complete", 0, "struct request *", "rq", ""},
	{"block_io_start", 0, "struct request *", "rq", ""},
	{"block_bio_queue", 0, "struct bio *", "bio", "v5.11, when the request_queue before it was dropped"},
	{"sched_process_exec", 1, "int", "old_pid", ""},
}

// checkTracepointArgs says what is wrong with hook's arguments on this
// kernel, or nil. A kernel without the tracepoint passes: attaching it
// will say so.
func checkTracepointArgs(kernel *btf.Spec, hook string) error {
	if kernel == nil {
		return nil
	}
	for _, a := range tpArgs {
		if a.hook != hook {
			continue
		}
		var td *btf.Typedef
		if err := kernel.TypeByName("btf_trace_"+hook, &td); err != nil {
			return nil
		}
		ptr, _ := btf.UnderlyingType(td.Type).(*btf.Pointer)
		var proto *btf.FuncProto
		if ptr != nil {
			proto, _ = ptr.Target.(*btf.FuncProto)
		}
		if proto == nil {
			return fmt.Errorf("btf_trace_%s is not a function pointer", hook)
		}
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
// relocated against it) and the required hooks' arguments.
func checkKernel(cache *btf.Cache) error {
	kernel, err := cache.Kernel()
	if err != nil {
		return &kernelTooOld{kernelRelease(), fmt.Errorf("no kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF): %w", err)}
	}
	for _, h := range tpHooks {
		if !h.Required {
			continue
		}
		if err := checkTracepointArgs(kernel, h.Name); err != nil {
			return &kernelTooOld{kernelRelease(), err}
		}
	}
	return nil
}

// kernelSummary is the yes of the check's kernel row.
func kernelSummary() string {
	return fmt.Sprintf("%s: BTF, and the tracepoint arguments of %s+", kernelRelease(), minKernel)
}

func kernelRelease() string {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return "?"
	}
	return unix.ByteSliceToString(u.Release[:])
}
