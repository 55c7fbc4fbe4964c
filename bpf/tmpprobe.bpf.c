//go:build ignore

/* tmpprobe kernel side: per (phase, syscall class) calls, time, off-CPU time
 * and latency histograms for threads inside a marked region.
 *
 * A worker marks each timed batch with lseek(-1, cookie, phase<<1 | begin),
 * which fails with EBADF before the kernel looks at the offset. Only the
 * thread that issued a begin marker is traced until its end marker, so the
 * fast path of every hook is one array lookup on the current tid
 * (thread_of).
 *
 * One object, one file per hook family around one shared header (as
 * libbpf-tools keeps its tools): tmpprobe.bpf.h holds the settings, the
 * maps and the helpers every family uses; each family's file holds its
 * inline handlers and a macro of its thin per-hook wrappers, which this
 * file instantiates for each hook type. */

#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tmpprobe.h"
#include "bits.bpf.h"
#include "arch.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#include "tmpprobe.bpf.h"
#include "neighbours.bpf.h"
#include "pyframes.bpf.h"
#include "stacks.bpf.h"
#include "threads.bpf.h"
#include "window.bpf.h"
#include "syscall.bpf.h"
#include "offcpu.bpf.h"
#include "block.bpf.h"
#include "journal.bpf.h"
#include "fs.bpf.h"

/* Thin per-hook wrappers. tp_btf and raw_tp receive the same u64 args; the
 * loader picks one family (tp_btf where the kernel has BTF for the
 * tracepoint, raw_tp otherwise) and never loads the other. A hook whose
 * arguments changed has a program for each form, and the loader loads the
 * one the kernel's BTF prototype of the tracepoint matches (probe/kernel.go):
 * sched_switch_task before v5.18 (no prev_state), block_*_q before v5.11
 * (the request_queue first). Every program the loader can attach to a
 * tracepoint is in this list, in the object's order (probe/probe.go's
 * attach table names each by its family). */
#define HOOKS(kind, btf)                                                       \
	SYSCALL_TRACEPOINTS(kind, btf)                                         \
	OFFCPU_TRACEPOINTS(kind)                                               \
	THREAD_TRACEPOINTS(kind)                                               \
	FAULT_TRACEPOINTS(kind)                                                \
	IRQ_TRACEPOINTS(kind)                                                  \
	BLOCK_TRACEPOINTS(kind)                                                \
	JOURNAL_TRACEPOINTS(kind)                                              \
	EXT4_TRACEPOINTS(kind)                                                 \
	PYTHON_TRACEPOINTS(kind)

HOOKS(tp_btf, true)
HOOKS(raw_tp, false)

JOURNAL_CLASSIC_TRACEPOINTS

/* Stacks' own hooks, loaded only where stacks are asked for: the user
 * time sampler (a perf event per CPU) and the uprobe on each prepared
 * interpreter's entry. */
STACK_SAMPLER
PYTHON_UPROBES

/* Never attached: Go's tests run it (BPF_PROG_TEST_RUN) to check
 * results.HistSlot against hist_slot of ctx[0]. */
SEC("raw_tp/test_hist_slot")
int test_hist_slot(__u64 *ctx) { return hist_slot(ctx[0]); }

/* kprobe and fentry backends: after the shared handlers they reuse. */
#include "backends.bpf.h"
