//go:build ignore

/* tmpprobe kernel side: per (phase, syscall class) calls, time, off-CPU time
 * and latency histograms for threads inside a marked region.
 *
 * A worker marks each timed batch with lseek(-1, cookie, phase<<1 | begin),
 * which fails with EBADF before the kernel looks at the offset. Only the
 * thread that issued a begin marker is traced until its end marker, so the
 * fast path of every hook is one hash lookup on the current tid. */

#include "vmlinux_min.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "tmpprobe.h"
#include "bits.bpf.h"
#include "arch.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#define O_CREAT 0100
#define O_EXCL 0200
#define O_TMPFILE (020000000 | O_DIRECTORY) /* O_DIRECTORY: arch.bpf.h */
#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 1
#define PF_KTHREAD 0x00200000
#define MAX_ERRNO 4095

/* Set before load (struct config in tmpprobe.h); read-only from then on,
 * so the verifier knows each field and drops the code an option turns off. */
const volatile struct config config = {};

/* clang writes BTF only for the types a global, map or program uses, and
 * bpf2go -type exports only what BTF has: this global, never read, brings
 * the enums that no map or struct field uses into the object. */
const struct shared_enums {
	enum hist_geometry hist_geometry;
	enum off_label off_label;
	enum pseudo_class pseudo_class;
	enum phase_flag phase_flag;
	enum multi_cookie multi_cookie;
	enum drop_reason drop_reason;
	enum syscall_nr syscall_nr;
	enum neighbour_kind neighbour_kind;
	enum cost_cut cost_cut;
} shared_enums;

static __always_inline int backend_owns(__u64 nr)
{
	if (nr >= BACKEND_NR_MAX)
		return 0;
	return (config.backend_syscalls[nr / 64] >> (nr % 64)) & 1;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32); /* tid */
	__type(value, struct thread_state);
} threads SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct class_key);
	__type(value, struct class_stats);
} stats SEC(".maps");

/* Block requests and journal commits run in kworker, jbd2 and irq context,
 * so they are matched to a traced thread by time, not by pid: the last
 * active thread that entered a syscall is the window; work on a watched
 * device issued while that thread is still inside the syscall is its. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32); /* tid */
} window SEC(".maps");

/* Devices of the work directories (whole disk and partition), set from
 * user space; config.match_any_dev watches every device. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u32); /* dev_t, kernel encoding */
	__type(value, __u8);
} watched_devs SEC(".maps");

struct rq_start {
	__u64 ts;
	__u64 bytes;
	__u32 phase;
	__u16 class;
	enum stage stage;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* struct request * */
	__type(value, struct rq_start);
} rq_starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u64); /* cgroup id */
	__type(value, struct exec_clock);
} exec_clocks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 64);
	__type(key, __u64); /* journal_t * */
	__type(value, __u64);
} commit_starts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_DROP_REASONS);
	__type(key, __u32);
	__type(value, __u64);
} drops SEC(".maps");

static __always_inline void count_drop(enum drop_reason reason)
{
	__u32 key = reason;
	__u64 *n = bpf_map_lookup_elem(&drops, &key);
	if (n)
		(*n)++;
}

/* Cleared by Go after every traced batch, like stats; a full map counts
 * DROP_NEIGHBOURS_FULL. A busy host starts many short processes (a build's
 * compilers), each a neighbour of its own in a long batch: room for many,
 * allocated as they come. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct neighbour_key);
	__type(value, struct neighbour_stats);
} neighbours SEC(".maps");

/* A neighbour's request from block_io_start to completion: who, and when
 * it was issued (0 until then). */
struct neighbour_rq {
	struct neighbour_key key;
	__u64 issued;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64); /* struct request * */
	__type(value, struct neighbour_rq);
} neighbour_rqs SEC(".maps");

/* from may be another map's value that another CPU rewrites meanwhile (a
 * CPU slot settled from the CPU the worker got back on): the map is given
 * a copy on the stack. Handing it from directly let the key change between
 * the hash the update took and the bytes it stored, leaving an element in
 * the wrong bucket that lookups never find and the map's iteration cycles
 * on (ErrIterationAborted in Go, one run in three of the buffers lab). */
static __always_inline void count_neighbour(const struct neighbour_key *from, __u64 ns, __u64 bytes)
{
	static const struct neighbour_stats zero;
	struct neighbour_key key = *from;
	struct neighbour_stats *n;

	n = bpf_map_lookup_elem(&neighbours, &key);
	if (!n) {
		if (bpf_map_update_elem(&neighbours, &key, &zero, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&neighbours, &key)) {
			count_drop(DROP_NEIGHBOURS_FULL);
			return;
		}
		n = bpf_map_lookup_elem(&neighbours, &key);
		if (!n)
			return;
	}
	__sync_fetch_and_add(&n->count, 1);
	__sync_fetch_and_add(&n->ns, ns);
	/* Not an atomic add of 0 where a caller's bytes is 0: clang makes that
	 * an atomic or, which kernels before v5.12 refuse ("BPF_STX uses
	 * reserved fields"); they have only the atomic add. */
	if (bytes)
		__sync_fetch_and_add(&n->bytes, bytes);
}

/* Who a task is, as a neighbour of a batch in phase. */
static __always_inline void neighbour_of(struct neighbour_key *key, struct task_struct *t, __u32 phase,
					 enum neighbour_kind kind)
{
	__builtin_memset(key, 0, sizeof(*key));
	key->phase = phase;
	key->kind = kind;
	key->pid = BPF_CORE_READ(t, tgid);
	key->cgroup = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
	key->kthread = (BPF_CORE_READ(t, flags) & PF_KTHREAD) != 0;
	BPF_CORE_READ_STR_INTO(&key->comm, t, comm);
}

static __always_inline struct class_stats *stats_for(__u32 phase, __u16 class, enum stage stage)
{
	struct class_key key = { .phase = phase, .class = class, .stage = stage };
	static const struct class_stats zero;
	struct class_stats *s;

	s = bpf_map_lookup_elem(&stats, &key);
	if (s)
		return s;
	if (bpf_map_update_elem(&stats, &key, &zero, BPF_NOEXIST) && bpf_map_lookup_elem(&stats, &key) == 0) {
		count_drop(DROP_STATS_FULL);
		return 0;
	}
	return bpf_map_lookup_elem(&stats, &key);
}

static __always_inline __u16 classify(__u32 nr, struct pt_regs *regs)
{
	__u64 flags;

	if (nr != NR_openat)
		return nr;
	flags = SYSCALL_ARG2(regs);
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return CLASS_OPENAT_TMPFILE;
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		return CLASS_OPENAT_CREATE;
	return nr;
}

/* trace --cgroup: a thread of the target cgroup seen for the first time. */
static __always_inline struct thread_state *adopt_cgroup_thread(__u32 tid)
{
	struct thread_state st = {};

	if (!config.target_cgroup || bpf_get_current_cgroup_id() != config.target_cgroup)
		return 0;
	st.phase = st.base_phase = config.trace_phase;
	if (bpf_map_update_elem(&threads, &tid, &st, BPF_NOEXIST))
		return 0;
	return bpf_map_lookup_elem(&threads, &tid);
}

/* The state of a traced thread, adopting a thread of the traced cgroup on
 * its first syscall, whichever hook sees that syscall first. */
static __always_inline struct thread_state *traced_thread(__u32 tid)
{
	struct thread_state *st = bpf_map_lookup_elem(&threads, &tid);

	return st ? st : adopt_cgroup_thread(tid);
}

/* Returns 1 when the syscall was one of our markers (and handled it). */
static __always_inline int handle_marker(__u32 tid, struct pt_regs *regs)
{
	struct thread_state st = {}, *cur;
	struct class_stats *s;
	__u32 whence;

	/* Most lseeks are real ones (Python's buffered files make four per
	 * op): read one register to dismiss them, the rest only for a marker. */
	if ((__u32)SYSCALL_ARG0(regs) != (__u32)-1 || config.cookie == 0 ||
	    SYSCALL_ARG1(regs) != config.cookie)
		return 0;
	whence = SYSCALL_ARG2(regs);
	cur = traced_thread(tid); /* a cgroup thread's first syscall may be a marker */
	if (cur && cur->base_phase) {
		/* A traced program marking its own region: switch phase, and
		 * count the region's entries and time. */
		cur->in_marker = 1;
		if (whence & 1) {
			cur->phase = REGION_FLAG | (whence >> 1);
			cur->region_start = bpf_ktime_get_ns();
		} else if (cur->phase != cur->base_phase) {
			s = stats_for(cur->phase, CLASS_REGION, STAGE_SYSCALL);
			if (s && cur->region_start) {
				s->calls++;
				s->total_ns += bpf_ktime_get_ns() - cur->region_start;
			}
			cur->phase = cur->base_phase;
		}
		return 1;
	}
	if (!(whence & 1)) {
		bpf_map_delete_elem(&threads, &tid);
		return 1;
	}
	st.phase = whence >> 1;
	st.in_marker = 1;
	if (bpf_map_update_elem(&threads, &tid, &st, BPF_ANY))
		count_drop(DROP_THREADS_FULL);
	return 1;
}


static __always_inline void set_window(__u32 tid)
{
	__u32 zero = 0;
	__u32 *w = bpf_map_lookup_elem(&window, &zero);

	if (w && *w != tid)
		*w = tid;
}

/* A syscall starts: shared by sys_enter and the backends' entry hooks, so
 * off-CPU accounting and the I/O window see the same state whichever hook
 * timed the call. */
static __always_inline void begin_syscall(struct thread_state *st, __u32 tid, __u32 nr, struct pt_regs *regs)
{
	st->nr = nr;
	st->class = classify(nr, regs);
	st->in_syscall = 1;
	st->in_marker = 0; /* a marker's exit (if any) came before this enter */
	st->top_loop = 0;
	st->enter_ns = bpf_ktime_get_ns();
	set_window(tid);
}

static __always_inline void count_errno(struct thread_state *st, __u16 err)
{
	struct class_stats *s = stats_for(st->phase, st->class, STAGE_ERRNO | err);

	if (s)
		s->calls++;
}

static __always_inline void record_call(struct class_stats *s, __u64 delta, long ret)
{
	__u32 slot;

	s->calls++;
	if (ret < 0 && ret >= -MAX_ERRNO)
		s->errors++;
	s->total_ns += delta;
	slot = hist_slot(delta);
	/* hist_slot clamps already, but clang drops a repeated bound check
	 * and the verifier needs to see one. */
	asm volatile("" : "+r"(slot));
	if (slot < HIST_SLOTS)
		s->hist[slot]++;
}

/* A syscall ends; the caller has checked it is the one that began. */
static __always_inline void end_syscall(struct thread_state *st, long ret)
{
	struct class_stats *s;
	__u64 delta = bpf_ktime_get_ns() - st->enter_ns;

	s = stats_for(st->phase, st->class, STAGE_SYSCALL);
	if (s)
		record_call(s, delta, ret);
	if (config.count_errnos && ret < 0 && ret >= -MAX_ERRNO)
		count_errno(st, (__u16)-ret);
}

static __always_inline int on_sys_enter(struct pt_regs *regs, long id)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st;

	if (id == NR_lseek && handle_marker(tid, regs))
		return 0;
	st = traced_thread(tid);
	if (!st || config.cut == CUT_AFTER_THREAD)
		return 0;
	if (config.cut == CUT_AFTER_CLOCK) {
		st->enter_ns = bpf_ktime_get_ns();
		return 0;
	}
	if (backend_owns(id))
		return 0;
	begin_syscall(st, tid, id, regs);
	return 0;
}

/* btf: regs is a BTF-typed pointer (tp_btf), readable with a plain load;
 * raw_tp needs a probe-read helper call for every exit. */
static __always_inline int on_sys_exit(struct pt_regs *regs, long ret, bool btf)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st;
	__u64 nr;

	st = bpf_map_lookup_elem(&threads, &tid);
	if (!st || config.cut == CUT_AFTER_THREAD)
		return 0;
	if (config.cut == CUT_AFTER_CLOCK) {
		st->enter_ns = bpf_ktime_get_ns() - st->enter_ns;
		return 0;
	}
	if (st->in_marker) {
		st->in_marker = 0;
		return 0;
	}
	/* rt_sigreturn restores the signal frame's registers, so its exit
	 * shows nr -1: that is still the syscall we saw enter. */
	nr = btf ? SYSCALL_NR_BTF(regs) : SYSCALL_NR(regs);
	if (backend_owns(nr))
		return 0;
	if (!st->in_syscall) {
		count_drop(DROP_NO_START);
		return 0;
	}
	st->in_syscall = 0;
	if (nr != st->nr && nr != (__u64)-1) {
		count_drop(DROP_NR_MISMATCH);
		return 0;
	}
	end_syscall(st, ret);
	return 0;
}

/* Interrupt nesting per CPU. BPF cannot read the preempt count portably
 * (it moved between __preempt_count and pcpu_hot across kernels, and typed
 * per-CPU ksyms need loader support), so the irq/softirq entry and exit
 * tracepoints keep this count instead. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __s64);
} irq_depth SEC(".maps");

static __always_inline int on_irq(int delta)
{
	__u32 zero = 0;
	__s64 *d = bpf_map_lookup_elem(&irq_depth, &zero);

	/* Attaching mid-interrupt sees an exit without its entry. */
	if (d && (delta > 0 || *d > 0))
		*d += delta;
	return 0;
}

static __always_inline int bpf_in_interrupt_ctx(void)
{
	__u32 zero = 0;
	__s64 *d = bpf_map_lookup_elem(&irq_depth, &zero);

	return d && *d > 0;
}

static __always_inline enum off_waker waker_kind(void)
{
	char comm[8];

	bpf_get_current_comm(comm, sizeof(comm));
	if (comm[0] == 'j' && comm[1] == 'b' && comm[2] == 'd' && comm[3] == '2')
		return WAKER_JBD2;
	if (comm[0] == 'k' && comm[1] == 'w' && comm[2] == 'o' && comm[3] == 'r' && comm[4] == 'k')
		return WAKER_KWORKER;
	return WAKER_OTHER;
}

/* A worker preempted on a CPU waits on its run queue; whoever runs on that
 * CPU meanwhile is charged for its own share of the wait. One slot per CPU
 * (an array indexed by CPU, not a per-CPU map: the worker may get back on
 * another CPU, which then settles the slot). */
struct cpu_slot {
	__u32 tid;       /* the waiting worker; 0 = none */
	__u32 pad;
	__u64 off_since; /* its wait began (its thread_state.off_since) */
	__u64 since;     /* the running task's share began */
	struct neighbour_key running; /* the task on this CPU since then */
};

enum { MAX_CPU_SLOTS = 1024 };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_CPU_SLOTS);
	__type(key, __u32);
	__type(value, struct cpu_slot);
} cpu_slots SEC(".maps");

static __always_inline struct cpu_slot *cpu_slot(__u32 cpu)
{
	return cpu < MAX_CPU_SLOTS ? bpf_map_lookup_elem(&cpu_slots, &cpu) : 0;
}

/* On this CPU, prev leaves and next runs at now: the task that ran while
 * a worker waited is charged up to now; next takes over the slot, unless
 * it is the worker itself. */
static __always_inline void cpu_slot_switch(struct cpu_slot *slot, struct task_struct *next, __u32 next_tid, __u64 now)
{
	struct thread_state *w;

	if (!slot || !slot->tid)
		return;
	w = bpf_map_lookup_elem(&threads, &slot->tid);
	if (!w || w->off_since != slot->off_since) {
		slot->tid = 0; /* its wait ended elsewhere, and was settled there */
		return;
	}
	count_neighbour(&slot->running, now - slot->since, 0);
	if (next_tid == slot->tid) {
		slot->tid = 0;
		return;
	}
	neighbour_of(&slot->running, next, slot->running.phase, NEIGHBOUR_CPU);
	slot->since = now;
}

/* A task's state as it holds it now: __state since v5.14, state before
 * (libbpf-tools' core_fixes.bpf.h reads it the same way). */
static __always_inline unsigned int task_state(struct task_struct *t)
{
	struct task_struct___state_long *old = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return BPF_CORE_READ(t, __state);
	return BPF_CORE_READ(old, state);
}

static __always_inline enum off_state off_state_of(bool preempt, unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return OFF_PREEMPTED;
	if (state & TASK_INTERRUPTIBLE)
		return OFF_SLEEP;
	return OFF_BLOCKED;
}

/* config.compare_task_state: what the task's state would have said of a
 * switch that prev_state says is a sleep or a block. Between __schedule()
 * reading the state and this tracepoint, a wakeup can set it back to
 * running, and then the task's state reads as preempted. */
static __always_inline void compare_task_state(struct thread_state *st, struct task_struct *prev, __u16 class)
{
	struct class_stats *s = stats_for(st->phase, class, STAGE_TASK_STATE_READ);

	if (s)
		s->calls++;
	st->state_differs = off_state_of(false, task_state(prev)) != st->off_state;
	if (st->state_differs && (s = stats_for(st->phase, class, STAGE_TASK_STATE_DIFFERS)))
		s->calls++;
}

/* prev_state: the tracepoint's argument (v5.18 on), or the task's state
 * read here on older kernels (the sched_switch_task programs). */
static __always_inline int on_sched_switch(bool preempt, struct task_struct *prev,
					   struct task_struct *next, unsigned int prev_state)
{
	__u32 prev_tid = BPF_CORE_READ(prev, pid);
	__u32 next_tid = BPF_CORE_READ(next, pid);
	__u32 cpu = bpf_get_smp_processor_id();
	struct cpu_slot *slot = 0, *there;
	struct thread_state *st;
	struct class_stats *s;
	__u64 now = bpf_ktime_get_ns(), delta;
	__u32 label;
	__u16 class;

	if (config.count_neighbours) {
		slot = cpu_slot(cpu);
		cpu_slot_switch(slot, next, next_tid, now);
	}
	st = bpf_map_lookup_elem(&threads, &prev_tid);
	if (st) {
		st->off_since = now;
		st->off_user = !st->in_syscall;
		st->off_state = off_state_of(preempt, prev_state);
		st->state_differs = 0;
		if (config.compare_task_state && !preempt)
			compare_task_state(st, prev, st->off_user ? CLASS_USER : st->class);
		if (st->off_state == OFF_PREEMPTED) {
			if (slot) {
				slot->tid = prev_tid;
				slot->off_since = slot->since = now;
				neighbour_of(&slot->running, next, st->phase, NEIGHBOUR_CPU);
				st->preempt_cpu = cpu;
			}
		}
		st->waker = WAKER_NONE;
	}
	st = bpf_map_lookup_elem(&threads, &next_tid);
	if (!st || !st->off_since)
		return 0;
	/* Back on a CPU other than the one it waited for: settle that one. */
	if (config.count_neighbours && st->off_state == OFF_PREEMPTED && st->preempt_cpu != cpu) {
		there = cpu_slot(st->preempt_cpu);
		if (there && there->tid == next_tid && there->off_since == st->off_since) {
			count_neighbour(&there->running, now - there->since, 0);
			there->tid = 0;
		}
	}
	delta = now - st->off_since;
	st->off_since = 0;
	/* Off the CPU between syscalls (preempted, or a major page fault) is
	 * user-space wall time that was not user-space work. */
	class = st->off_user ? CLASS_USER : st->class;
	if (config.compare_task_state && st->state_differs) {
		s = stats_for(st->phase, class, STAGE_TASK_STATE_DIFFERS);
		if (s)
			s->total_ns += delta;
	}
	s = stats_for(st->phase, class, STAGE_SYSCALL);
	if (!s)
		return 0;
	label = (st->off_state * NR_OFF_WAKERS + st->waker) & (OFF_LABELS - 1);
	s->offcpu_ns += delta;
	s->off_ns[label] += delta;
	return 0;
}

static __always_inline int on_sched_waking(struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct thread_state *st;

	st = bpf_map_lookup_elem(&threads, &tid);
	if (!st || !st->off_since || st->waker)
		return 0;
	/* Hard and soft IRQ handlers run on whatever task they interrupted,
	 * so the context, not the comm, says "device completion". */
	st->waker = bpf_in_interrupt_ctx() ? WAKER_IRQ : waker_kind();
	return 0;
}

static __always_inline int on_page_fault(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st;
	struct class_stats *s;

	st = bpf_map_lookup_elem(&threads, &tid);
	if (!st)
		return 0;
	s = stats_for(st->phase, st->in_syscall ? st->class : CLASS_USER, STAGE_PAGE_FAULT);
	if (s)
		s->calls++;
	return 0;
}

/* New threads of a traced process are traced; with follow, new processes
 * too. The tracepoint runs in the parent before the child first runs. */
static __always_inline int on_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptid = BPF_CORE_READ(parent, pid), ctid;
	struct thread_state *st = bpf_map_lookup_elem(&threads, &ptid);
	struct thread_state ns = {};

	if (!st || !st->base_phase)
		return 0;
	if (!st->follow && BPF_CORE_READ(child, tgid) != BPF_CORE_READ(parent, tgid))
		return 0;
	ns.phase = ns.base_phase = st->base_phase;
	ns.follow = st->follow;
	ns.in_marker = 1; /* its first event is the exit from clone, never entered */
	ctid = BPF_CORE_READ(child, pid);
	if (bpf_map_update_elem(&threads, &ctid, &ns, BPF_NOEXIST))
		count_drop(DROP_THREADS_FULL);
	return 0;
}

static __always_inline int on_task_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	/* A worker killed inside a region must not leave its tid active for
	 * the next task that gets the same tid. */
	bpf_map_delete_elem(&threads, &tid);
	return 0;
}

/* The active thread currently inside a syscall, if the window has one. */
static __always_inline struct thread_state *window_thread(void)
{
	__u32 zero = 0;
	__u32 *tid = bpf_map_lookup_elem(&window, &zero);
	struct thread_state *st;

	if (!tid || !*tid)
		return 0;
	st = bpf_map_lookup_elem(&threads, tid);
	return st && st->in_syscall ? st : 0;
}

/* The active thread of the window, in a syscall or not: a batch is
 * running, in its phase. */
static __always_inline struct thread_state *window_batch(void)
{
	__u32 zero = 0;
	__u32 *tid = bpf_map_lookup_elem(&window, &zero);

	if (!tid || !*tid)
		return 0;
	return bpf_map_lookup_elem(&threads, tid);
}

static __always_inline bool watched(dev_t dev)
{
	return config.match_any_dev || bpf_map_lookup_elem(&watched_devs, &dev);
}

#define LOOP_MAJOR 7
#define MINORBITS 20

/* Kernel dev_t: the major number is above the 20 minor bits. */
static __always_inline bool is_loop(dev_t dev)
{
	return (dev >> MINORBITS) == LOOP_MAJOR;
}

/* A loop device's worker re-issues each of its requests as I/O on the
 * backing file, whose device then sees a request (and its filesystem a
 * journal commit) for the same data. The loop request is issued first
 * (loop_queue_rq starts it, then queues the work), so once a syscall's
 * window has seen one, other devices' work in that syscall is the same
 * I/O again, one layer down: count each request once, on the device the
 * traced I/O was submitted to. A loop device whose backing file is on
 * another loop device is a stack: only its top, the first loop device the
 * syscall's I/O reached, counts, however deep the stack goes. */
static __always_inline bool lower_layer(struct thread_state *st, dev_t dev)
{
	if (!st->top_loop) {
		if (is_loop(dev))
			st->top_loop = dev;
		return false;
	}
	return dev != st->top_loop;
}

/* 0 write, 1 read, 2 discard, 3 flush (added to a STAGE_BIO_ or STAGE_DEV_
 * base); -1 for other ops. REQ_OP_* values are stable since v4.10; the
 * flag bits are not, hence CO-RE enum relocations. */
static __always_inline int io_kind(__u32 opf)
{
	__u32 op = opf & 0xff;
	__u32 fua = 1U << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA);
	__u32 preflush = 1U << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH);

	if (op == 3)
		return 2;
	if (op == 2 || (opf & (fua | preflush)))
		return 3;
	if (op == 1)
		return 0;
	if (op == 0)
		return 1;
	return -1;
}

static __always_inline void count_event(struct thread_state *st, enum stage stage, __u64 ns, __u64 bytes)
{
	struct class_stats *s;

	s = stats_for(st->phase, st->in_syscall ? st->class : CLASS_USER, stage);
	if (!s)
		return;
	s->calls++;
	s->total_ns += ns;
	s->bytes += bytes;
}

static __always_inline struct thread_state *current_state(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	return bpf_map_lookup_elem(&threads, &tid);
}

static __always_inline int on_exec(__u32 old_tid)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st = bpf_map_lookup_elem(&threads, &tid);

	/* A thread other than the leader exec'd: de_thread() killed the
	 * leader (whose exit removed the leader's tid here) and gave this
	 * thread the leader's tid, so its state is still under the tid it had.
	 * Move it, or the program it became goes untraced and a later thread
	 * that reuses the old tid inherits it. A Go launcher execs from
	 * whichever thread its main goroutine was last scheduled on. */
	if (!st && old_tid != tid) {
		st = bpf_map_lookup_elem(&threads, &old_tid);
		if (!st)
			return 0;
		if (bpf_map_update_elem(&threads, &tid, st, BPF_NOEXIST)) {
			count_drop(DROP_THREADS_FULL);
			return 0;
		}
		bpf_map_delete_elem(&threads, &old_tid);
		st = bpf_map_lookup_elem(&threads, &tid);
	}
	if (st && config.launch_phase && st->base_phase == config.launch_phase)
		st->phase = st->base_phase = config.trace_phase;
	return 0;
}

/* The run's clock starts at its command's exec, read by the kernel: a
 * reader tmpprobe wakes at the exec (the close of a close-on-exec pipe)
 * is woken on the exec'ing CPU and often runs after the command did, so a
 * run of true timed from that wake-up took 18 µs. One hash lookup per
 * exec on the whole machine, attached apart from the other hooks for the
 * untraced runs too. */
static __always_inline int on_exec_clock(void)
{
	__u64 cgroup = bpf_get_current_cgroup_id();
	struct exec_clock *c = bpf_map_lookup_elem(&exec_clocks, &cgroup);

	if (c && ++c->execs == c->want)
		c->ns = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_bio_queue(struct bio *bio)
{
	struct thread_state *st = current_state();
	__u32 opf, size;
	int kind;

	if (!st)
		return 0;
	opf = BPF_CORE_READ(bio, bi_opf);
	kind = io_kind(opf);
	if (kind < 0)
		return 0;
	size = BPF_CORE_READ(bio, bi_iter.bi_size);
	count_event(st, STAGE_BIO_WRITE + kind, 0, size);
	/* The rwbs letters beyond the kind: S(ync), M(eta), F(UA). */
	if (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_SYNC)))
		count_event(st, STAGE_BIO_SYNC, 0, size);
	if (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_META)))
		count_event(st, STAGE_BIO_META, 0, size);
	if (opf & (1U << bpf_core_enum_value(enum req_flag_bits, __REQ_FUA)))
		count_event(st, STAGE_BIO_FUA, 0, size);
	return 0;
}

/* Flush requests made by the flush state machine carry no partition: then
 * the whole disk. */
static __always_inline dev_t request_dev(struct request *rq)
{
	struct request___old *old = (void *)rq;
	struct block_device *part;
	struct hd_struct *hd;

	if (bpf_core_type_exists(struct hd_struct)) {
		hd = BPF_CORE_READ(old, part);
		if (hd)
			return BPF_CORE_READ(hd, __dev.devt);
		return BPF_CORE_READ(old, rq_disk, major) << MINORBITS | BPF_CORE_READ(old, rq_disk, first_minor);
	}
	part = BPF_CORE_READ(rq, part);
	if (part)
		return BPF_CORE_READ(part, bd_dev);
	return BPF_CORE_READ(rq, q, disk, part0, bd_dev);
}

static __always_inline int on_rq_issue(struct request *rq)
{
	struct thread_state *st = window_thread();
	struct rq_start start = {};
	__u64 key = (__u64)rq;
	struct neighbour_rq *n;
	dev_t dev;
	int kind;

	if (config.count_neighbours) {
		n = bpf_map_lookup_elem(&neighbour_rqs, &key);
		if (n) {
			/* Another process's request: not the traced syscall's,
			 * whenever it is issued. */
			n->issued = bpf_ktime_get_ns();
			return 0;
		}
	}
	if (!st)
		return 0;
	dev = request_dev(rq);
	if (!watched(dev) || lower_layer(st, dev))
		return 0;
	kind = io_kind(BPF_CORE_READ(rq, cmd_flags));
	if (kind < 0)
		return 0;
	start.ts = bpf_ktime_get_ns();
	start.bytes = BPF_CORE_READ(rq, __data_len);
	start.phase = st->phase;
	start.class = st->class;
	start.stage = STAGE_DEV_WRITE + kind;
	bpf_map_update_elem(&rq_starts, &key, &start, BPF_ANY);
	return 0;
}

static __always_inline int neighbour_rq_complete(__u64 key)
{
	struct neighbour_rq *n = bpf_map_lookup_elem(&neighbour_rqs, &key);

	if (!n)
		return 0;
	if (n->issued)
		count_neighbour(&n->key, bpf_ktime_get_ns() - n->issued, n->bytes);
	bpf_map_delete_elem(&neighbour_rqs, &key);
	return 0;
}

/* A request is made from bios, in the context of the task that submitted
 * them: a neighbour's own, or a kworker's or jbd2's writeback. */
static __always_inline int on_io_start(struct request *rq)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct neighbour_rq n = {};
	struct thread_state *batch;
	__u64 key = (__u64)rq;
	dev_t dev;

	if (!config.count_neighbours || current_state())
		return 0;
	batch = window_batch();
	if (!batch)
		return 0;
	/* The devices user space set, even with match_any_dev: that widens
	 * which devices a traced syscall's own I/O is matched on (a command
	 * may write anywhere), not who shares the work's disk; a writer on
	 * another disk shares nothing with it. */
	dev = request_dev(rq);
	if (!bpf_map_lookup_elem(&watched_devs, &dev))
		return 0;
	neighbour_of(&n.key, task, batch->phase, NEIGHBOUR_DISK);
	if (n.key.kthread && batch->in_syscall)
		return 0;
	n.bytes = BPF_CORE_READ(rq, __data_len);
	bpf_map_update_elem(&neighbour_rqs, &key, &n, BPF_ANY);
	return 0;
}

/* block_rq_complete fires for each part of a request that completes
 * (blk_update_request, before it advances the request): a request counts
 * once, when the bytes completing are all it has left. Counted at every
 * part, a trace beside a disk writer counted 202 requests where the loop
 * device completed 200. */
static __always_inline int on_rq_complete(struct request *rq, unsigned int nr_bytes)
{
	__u64 key = (__u64)rq;
	struct rq_start *start = bpf_map_lookup_elem(&rq_starts, &key);
	struct class_stats *s;

	if (nr_bytes < BPF_CORE_READ(rq, __data_len))
		return 0;
	if (!start)
		return config.count_neighbours ? neighbour_rq_complete(key) : 0;
	s = stats_for(start->phase, start->class, start->stage);
	if (s) {
		s->calls++;
		s->total_ns += bpf_ktime_get_ns() - start->ts;
		s->bytes += start->bytes;
	}
	bpf_map_delete_elem(&rq_starts, &key);
	return 0;
}

/* A journal's commit, keyed by the journal (one commit runs at a time in
 * each), on its file system's device. */
static __always_inline int on_commit_start(__u64 key, dev_t dev)
{
	__u64 now;

	if (!watched(dev))
		return 0;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&commit_starts, &key, &now, BPF_ANY);
	return 0;
}

static __always_inline int on_commit_end(__u64 key, dev_t dev)
{
	__u64 *start = bpf_map_lookup_elem(&commit_starts, &key);
	struct thread_state *st;
	__u64 ns;

	if (!start)
		return 0;
	ns = bpf_ktime_get_ns() - *start;
	bpf_map_delete_elem(&commit_starts, &key);
	st = window_thread();
	if (st && !lower_layer(st, dev))
		count_event(st, STAGE_JBD2_COMMIT, ns, 0);
	return 0;
}

/* The journal's device. The journal is null-checked first: 6.12 types
 * some tracepoint pointers as maybe-null, and the verifier refuses pointer
 * arithmetic (a CO-RE read) on one not checked. */
static __always_inline dev_t journal_dev(journal_t *journal)
{
	return journal ? BPF_CORE_READ(journal, j_fs_dev, bd_dev) : 0;
}

static __always_inline int on_event(enum stage stage)
{
	struct thread_state *st = current_state();

	if (st)
		count_event(st, stage, 0, 0);
	return 0;
}

/* ext4 stage windows: enter stamps, exit records. They nest in one syscall
 * and never recurse, so one timestamp each is enough. */
static __always_inline int on_stage_enter(enum ext4_window w)
{
	struct thread_state *st = current_state();

	if (!st || !st->in_syscall || w >= NR_EXT4_WINDOWS)
		return 0;
	st->window_ns[w] = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int on_stage_exit(enum ext4_window w, enum stage stage)
{
	struct thread_state *st = current_state();
	__u64 since;

	if (!st || w >= NR_EXT4_WINDOWS)
		return 0;
	since = st->window_ns[w];
	if (!since || !st->in_syscall)
		return 0;
	count_event(st, stage, bpf_ktime_get_ns() - since, 0);
	st->window_ns[w] = 0;
	return 0;
}

/* A wrapper's body: its handler, or with CUT_ALL nothing at all (the
 * verifier drops the handler): the same programs at the same attach
 * points returning at once, the floor of what tmpprobe's hooks can cost,
 * which make bench holds the real ones to. */
#define HOOK(call) return config.cut == CUT_ALL ? 0 : (call)

/* Thin per-hook wrappers. tp_btf and raw_tp receive the same u64 args; the
 * loader picks one family (tp_btf where the kernel has BTF for the
 * tracepoint, raw_tp otherwise) and never loads the other. A hook whose
 * arguments changed has a program for each form, and the loader loads the
 * one the kernel's BTF prototype of the tracepoint matches (probe/kernel.go):
 * sched_switch_task before v5.18 (no prev_state), block_*_q before v5.11
 * (the request_queue first). */
#define HOOKS(kind, btf)                                                       \
SEC(#kind "/sys_enter")                                                        \
int kind##_sys_enter(__u64 *ctx)                                               \
{ HOOK(on_sys_enter((struct pt_regs *)ctx[0], (long)ctx[1])); }                \
SEC(#kind "/sys_exit")                                                         \
int kind##_sys_exit(__u64 *ctx)                                                \
{ HOOK(on_sys_exit((struct pt_regs *)ctx[0], (long)ctx[1], btf)); }            \
SEC(#kind "/sched_switch")                                                     \
int kind##_sched_switch(__u64 *ctx)                                            \
{ HOOK(on_sched_switch((bool)ctx[0], (struct task_struct *)ctx[1],             \
			 (struct task_struct *)ctx[2], (unsigned int)ctx[3])); }   \
SEC(#kind "/sched_switch")                                                     \
int kind##_sched_switch_task(__u64 *ctx)                                       \
{ HOOK(on_sched_switch((bool)ctx[0], (struct task_struct *)ctx[1],             \
			 (struct task_struct *)ctx[2],                         \
			 task_state((struct task_struct *)ctx[1]))); }          \
SEC(#kind "/sched_waking")                                                     \
int kind##_sched_waking(__u64 *ctx)                                            \
{ HOOK(on_sched_waking((struct task_struct *)ctx[0])); }                       \
SEC(#kind "/sched_process_fork")                                               \
int kind##_sched_process_fork(__u64 *ctx)                                      \
{ HOOK(on_fork((struct task_struct *)ctx[0], (struct task_struct *)ctx[1])); } \
SEC(#kind "/sched_process_exec")                                               \
int kind##_sched_process_exec(__u64 *ctx) { HOOK(on_exec((__u32)ctx[1])); }    \
SEC(#kind "/sched_process_exec")                                               \
int kind##_exec_clock(__u64 *ctx) { return on_exec_clock(); }                  \
SEC(#kind "/sched_process_exit")                                               \
int kind##_sched_process_exit(__u64 *ctx)                                      \
{ HOOK(on_task_exit()); }                                                      \
SEC(#kind "/page_fault_user")                                                  \
int kind##_page_fault_user(__u64 *ctx)                                         \
{ HOOK(on_page_fault()); }                                                     \
SEC(#kind "/page_fault_kernel")                                                \
int kind##_page_fault_kernel(__u64 *ctx)                                       \
{ HOOK(on_page_fault()); }                                                     \
SEC(#kind "/irq_handler_entry")                                                \
int kind##_irq_handler_entry(__u64 *ctx) { HOOK(on_irq(1)); }                  \
SEC(#kind "/irq_handler_exit")                                                 \
int kind##_irq_handler_exit(__u64 *ctx) { HOOK(on_irq(-1)); }                  \
SEC(#kind "/softirq_entry")                                                    \
int kind##_softirq_entry(__u64 *ctx) { HOOK(on_irq(1)); }                      \
SEC(#kind "/softirq_exit")                                                     \
int kind##_softirq_exit(__u64 *ctx) { HOOK(on_irq(-1)); }                      \
SEC(#kind "/block_bio_queue")                                                  \
int kind##_block_bio_queue(__u64 *ctx)                                         \
{ HOOK(on_bio_queue((struct bio *)ctx[0])); }                                  \
SEC(#kind "/block_bio_queue")                                                  \
int kind##_block_bio_queue_q(__u64 *ctx)                                       \
{ HOOK(on_bio_queue((struct bio *)ctx[1])); }                                  \
SEC(#kind "/block_rq_issue")                                                   \
int kind##_block_rq_issue(__u64 *ctx)                                          \
{ HOOK(on_rq_issue((struct request *)ctx[0])); }                               \
SEC(#kind "/block_rq_issue")                                                   \
int kind##_block_rq_issue_q(__u64 *ctx)                                        \
{ HOOK(on_rq_issue((struct request *)ctx[1])); }                               \
SEC(#kind "/block_io_start")                                                   \
int kind##_block_io_start(__u64 *ctx)                                          \
{ HOOK(on_io_start((struct request *)ctx[0])); }                               \
SEC(#kind "/block_rq_complete")                                                \
int kind##_block_rq_complete(__u64 *ctx)                                       \
{ HOOK(on_rq_complete((struct request *)ctx[0], (unsigned int)ctx[2])); }      \
SEC(#kind "/jbd2_start_commit")                                                \
int kind##_jbd2_start_commit(__u64 *ctx)                                       \
{ HOOK(on_commit_start(ctx[0], journal_dev((journal_t *)ctx[0]))); }           \
SEC(#kind "/jbd2_end_commit")                                                  \
int kind##_jbd2_end_commit(__u64 *ctx)                                         \
{ HOOK(on_commit_end(ctx[0], journal_dev((journal_t *)ctx[0]))); }             \
SEC(#kind "/jbd2_handle_start")                                                \
int kind##_jbd2_handle_start(__u64 *ctx) { HOOK(on_event(STAGE_JBD2_HANDLE)); } \
SEC(#kind "/ext4_sync_file_enter")                                             \
int kind##_ext4_sync_file_enter(__u64 *ctx) { HOOK(on_stage_enter(EXT4_WINDOW_SYNC_FILE)); } \
SEC(#kind "/ext4_sync_file_exit")                                              \
int kind##_ext4_sync_file_exit(__u64 *ctx)                                     \
{ HOOK(on_stage_exit(EXT4_WINDOW_SYNC_FILE, STAGE_EXT4_SYNC_FILE)); }          \
SEC(#kind "/ext4_unlink_enter")                                                \
int kind##_ext4_unlink_enter(__u64 *ctx) { HOOK(on_stage_enter(EXT4_WINDOW_UNLINK)); } \
SEC(#kind "/ext4_unlink_exit")                                                 \
int kind##_ext4_unlink_exit(__u64 *ctx)                                        \
{ HOOK(on_stage_exit(EXT4_WINDOW_UNLINK, STAGE_EXT4_UNLINK)); }                \
SEC(#kind "/ext4_request_inode")                                               \
int kind##_ext4_request_inode(__u64 *ctx) { HOOK(on_stage_enter(EXT4_WINDOW_NEW_INODE)); } \
SEC(#kind "/ext4_allocate_inode")                                              \
int kind##_ext4_allocate_inode(__u64 *ctx)                                     \
{ HOOK(on_stage_exit(EXT4_WINDOW_NEW_INODE, STAGE_EXT4_NEW_INODE)); }          \
SEC(#kind "/ext4_evict_inode")                                                 \
int kind##_ext4_evict_inode(__u64 *ctx) { HOOK(on_event(STAGE_EXT4_EVICT_INODE)); } \
SEC(#kind "/ext4_free_inode")                                                  \
int kind##_ext4_free_inode(__u64 *ctx) { HOOK(on_event(STAGE_EXT4_FREE_INODE)); }

HOOKS(tp_btf, true)
HOOKS(raw_tp, false)

/* jbd2's commit events as classic tracepoints, for a kernel whose jbd2 is
 * a module without BTF (before v5.11 module BTF), where neither the tp_btf
 * programs load nor CO-RE can read a journal_t. Their records begin, after
 * the 8-byte common header, with the journal's dev_t
 * (include/trace/events/jbd2.h; probe/ checks the offset in the event's
 * tracefs format). Keyed by the device: one commit at a time per journal. */
struct jbd2_commit_record {
	__u64 common;
	dev_t dev;
};

SEC("tracepoint/jbd2/jbd2_start_commit")
int tracepoint_jbd2_start_commit(struct jbd2_commit_record *ctx)
{ HOOK(on_commit_start(ctx->dev, ctx->dev)); }

SEC("tracepoint/jbd2/jbd2_end_commit")
int tracepoint_jbd2_end_commit(struct jbd2_commit_record *ctx)
{ HOOK(on_commit_end(ctx->dev, ctx->dev)); }

/* Never attached: Go's tests run it (BPF_PROG_TEST_RUN) to check
 * results.HistSlot against hist_slot of ctx[0]. */
SEC("raw_tp/test_hist_slot")
int test_hist_slot(__u64 *ctx) { return hist_slot(ctx[0]); }

/* kprobe and fentry backends: after the shared handlers they reuse. */
#include "backends.bpf.h"
