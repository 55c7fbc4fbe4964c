/* What every hook family of tmpprobe.bpf.c shares: the settings user space
 * sets before load, every map (the kernel's state, which Go reads, sets
 * and clears) but the backends' own, and the helpers that find a traced
 * thread and count into its stats. Included once, by tmpprobe.bpf.c,
 * before the families. */
#ifndef __TMPPROBE_BPF_H__
#define __TMPPROBE_BPF_H__

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
	enum stack_bounds stack_bounds;
	enum tstate_match tstate_match;
	enum stack_flag stack_flag;
	enum stack_stat stack_stat;
	struct code_rec code_rec; /* sent through the ring buffer only */
	struct exec_rec exec_rec; /* likewise */
	struct stack_key stack_key; /* ... and read from stack_frames */
} shared_enums;

/* A traced thread's state is in the slot its tid maps to (tid mod
 * THREAD_SLOTS): every hook finds it, or that the thread is not traced,
 * with an array lookup, which the JIT inlines, where a hash lookup of the
 * tid cost 38 ns a hook on this guest (#40). A slot is claimed by adding
 * it to slot_owners (BPF_NOEXIST: one claimant wins; the compare-and-swap
 * that would do it in place is refused by 5.10's verifier even in code
 * the settings remove), and a thread whose slot another holds is kept in
 * the threads hash, its slot marked spilled so that a miss there looks
 * in the hash too. Go (TrackThreads) claims slots the same way. */
enum { THREAD_SLOTS = 8192 };

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, THREAD_SLOTS);
	__type(key, __u32); /* tid mod THREAD_SLOTS */
	__type(value, struct thread_state);
} thread_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, THREAD_SLOTS);
	__type(key, __u32);   /* slot */
	__type(value, __u32); /* tid */
} slot_owners SEC(".maps");

/* Set once a thread of the slot went to the hash; never cleared while
 * the probe is open (a stale mark costs a hash lookup on a miss, not a
 * wrong answer). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, THREAD_SLOTS);
	__type(key, __u32);
	__type(value, __u8);
} slots_spilled SEC(".maps");

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

/* A new key of stats can fail where the map is far from full: a per-CPU
 * value is allocated atomically from a per-CPU pool that a kworker
 * refills, and a burst of new keys (a batch's first switches, in
 * sched_switch with interrupts off) on a busy machine finds it empty
 * (ENOMEM; on 6.18 about 40 of a lab's 8,000 switches with the task's
 * state compared). These entries are allocated when the map is made: a
 * key that stats could not take is counted here, and Go adds the two. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 256);
	__type(key, struct class_key);
	__type(value, struct class_stats);
} stats_spare SEC(".maps");

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

/* Requests another user process made (block_io_start, in the context of
 * the task that submitted the bios, v6.5 on): that process's own I/O,
 * never a traced syscall's, whichever device and whenever issued. Set or
 * cleared each time a request is made, so a request reused keeps no mark
 * of its last use. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* struct request * */
	__type(value, __u8);
} foreign_rqs SEC(".maps");

/* Followed threads that have exited: a task runs on after
 * sched_process_exit forgets it (exit_notify, its last switch out), and
 * there it is still the target, not its neighbour. A tid is reused only
 * once its task is reaped, long after. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32); /* tid */
	__type(value, __u8);
} exited_tids SEC(".maps");

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

/* A worker preempted on a CPU waits on its run queue; whoever runs on that
 * CPU meanwhile is charged for its own share of the wait. One slot per CPU
 * (an array indexed by CPU, not a per-CPU map: the worker may get back on
 * another CPU, which then settles the slot). */
struct cpu_slot {
	__u32 tid;       /* the waiting worker; 0 = none */
	/* The running task is followed too (another thread of the target,
	 * a child a trace follows): the target's own, no neighbour. */
	__u32 followed;
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

/* Stacks (stacks.bpf.h, pyframes.bpf.h). Go shrinks these to one entry
 * where no stacks are asked for (config.stacks). */

/* tgid -> where its CPython keeps its frames: installed by on_py_start as
 * the process enters the interpreter, or by Go; inherited at fork. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct py_layout);
} py_layouts SEC(".maps");

/* uprobe cookie -> the layout template of the file it is attached to. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, struct py_template);
} py_templates SEC(".maps");

/* tid -> its PyThreadState. Checked at every use (its match field must
 * still name this thread), so a freed or reused state is walked again. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, __u64);
} py_tstates SEC(".maps");

/* What each phase's stacks took; Go reads and clears it with stats. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct stack_count_key);
	__type(value, struct stack_count);
} stack_counts SEC(".maps");

/* hash -> the stack, written once, when first taken: what Go names a
 * count by where the ring buffer's copy was not read in time. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct stack_key);
} stack_frames SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, MAX_NATIVE_FRAMES * sizeof(__u64));
} native_stacks SEC(".maps");

/* Each new stack, and each code object it is the first to hold, sent as
 * taken: Go names them while the process, its mappings and its code
 * objects are still there. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 21);
} stack_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct code_seen);
	__type(value, __u8);
} codes_seen SEC(".maps");

/* A stack and the buffers the walk reads into: too big for the BPF stack. */
struct stack_scratch {
	struct stack_key key;
	__u8 frame[FRAME_READ_MAX];
	__u8 code[CODE_READ_MAX];
	__u8 str[64]; /* a str object's header */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack_scratch);
} stack_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_STACK_STATS);
	__type(key, __u32);
	__type(value, __u64);
} stack_stats SEC(".maps");

static __always_inline void count_drop(enum drop_reason reason)
{
	__u32 key = reason;
	__u64 *n = bpf_map_lookup_elem(&drops, &key);
	if (n)
		(*n)++;
}

static __always_inline struct class_stats *stats_for(__u32 phase, __u16 class, enum stage stage)
{
	struct class_key key = { .phase = phase, .class = class, .stage = stage };
	static const struct class_stats zero;
	struct class_stats *s;

	s = bpf_map_lookup_elem(&stats, &key);
	if (s)
		return s;
	s = bpf_map_lookup_elem(&stats_spare, &key);
	if (s)
		return s;
	bpf_map_update_elem(&stats, &key, &zero, BPF_NOEXIST);
	s = bpf_map_lookup_elem(&stats, &key);
	if (s)
		return s;
	bpf_map_update_elem(&stats_spare, &key, &zero, BPF_NOEXIST);
	s = bpf_map_lookup_elem(&stats_spare, &key);
	if (!s)
		count_drop(DROP_STATS_FULL);
	return s;
}

/* The state of thread tid, 0 where it is not traced. tid 0 (the idle
 * task, an interrupt on an idle CPU) never is: a free slot's tid is 0. */
static __always_inline struct thread_state *thread_of(__u32 tid)
{
	__u32 slot = tid & (THREAD_SLOTS - 1);
	struct thread_state *st = bpf_map_lookup_elem(&thread_slots, &slot);
	__u8 *spilled;

	if (st && st->tid == tid && tid)
		return st;
	spilled = bpf_map_lookup_elem(&slots_spilled, &slot);
	if (!spilled || !*spilled)
		return 0;
	return bpf_map_lookup_elem(&threads, &tid);
}

/* A new thread's state, all zero but its tid, made in a map and not on
 * the stack: sys_enter's frame, with take_stack's loop callback, is near
 * the verifier's 512 bytes. flags: BPF_ANY starts an existing state
 * afresh, BPF_NOEXIST refuses it. 0 where the maps refused it. */
static __always_inline struct thread_state *new_thread(__u32 tid, __u64 flags)
{
	static const struct thread_state zero;
	__u32 slot = tid & (THREAD_SLOTS - 1);
	struct thread_state *st = bpf_map_lookup_elem(&thread_slots, &slot);
	__u8 one = 1;

	if (!st || !tid)
		return 0;
	if (st->tid != tid && bpf_map_update_elem(&slot_owners, &slot, &tid, BPF_NOEXIST)) {
		/* Another thread holds the slot. */
		bpf_map_update_elem(&slots_spilled, &slot, &one, BPF_ANY);
		if (bpf_map_update_elem(&threads, &tid, &zero, flags))
			return 0;
		st = bpf_map_lookup_elem(&threads, &tid);
		if (st)
			st->tid = tid;
		return st;
	}
	if (st->tid == tid && flags == BPF_NOEXIST)
		return 0;
	/* The slot is this thread's: a state the hash held from before (its
	 * slot was taken then) would be a second one. */
	bpf_map_delete_elem(&threads, &tid);
	bpf_map_update_elem(&thread_slots, &slot, &zero, BPF_ANY);
	st->tid = tid;
	return st;
}

/* Forgets thread tid's state, wherever it is. */
static __always_inline void forget_thread(__u32 tid)
{
	__u32 slot = tid & (THREAD_SLOTS - 1);
	struct thread_state *st = bpf_map_lookup_elem(&thread_slots, &slot);

	if (st && st->tid == tid && tid) {
		st->tid = 0;
		bpf_map_delete_elem(&slot_owners, &slot);
		return;
	}
	bpf_map_delete_elem(&threads, &tid);
}

/* trace --cgroup: a thread of the target cgroup seen for the first time. */
static __always_inline struct thread_state *adopt_cgroup_thread(__u32 tid)
{
	struct thread_state *st;

	if (!config.target_cgroup || bpf_get_current_cgroup_id() != config.target_cgroup)
		return 0;
	st = new_thread(tid, BPF_NOEXIST);
	if (st)
		st->phase = st->base_phase = config.trace_phase;
	return st;
}

/* The state of a traced thread, adopting a thread of the traced cgroup on
 * its first syscall, whichever hook sees that syscall first. */
static __always_inline struct thread_state *traced_thread(__u32 tid)
{
	struct thread_state *st = thread_of(tid);

	return st ? st : adopt_cgroup_thread(tid);
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

/* User time is measured, not left over: a thread's time on a CPU outside
 * syscalls runs from user_since to where it leaves user mode (a syscall's
 * entry, a switch off the CPU, a marker, its exit) and is the user
 * class's total_ns in its phase. Wall time minus syscall time is not
 * that: it holds time off the CPU, a call in flight when tracing began,
 * and is short where threads run in parallel. */
/* user_pending holds what a thread measured until it is added to its
 * phase's record: at a marker (before the phase changes), a switch off the
 * CPU, the thread's exit, or once a millisecond has gathered. The lookup
 * of the user record at every syscall's entry was a third of what a
 * traced syscall cost above the hooks' floor (#40); what a snapshot of a
 * trace can miss is under a millisecond a thread. */
enum user_flush {
	USER_FLUSH_NS = 1000000,
};

static __always_inline void user_time_flush(struct thread_state *st)
{
	struct class_stats *s;

	if (!st->user_pending)
		return;
	s = stats_for(st->phase, CLASS_USER, STAGE_SYSCALL);
	if (s)
		s->total_ns += st->user_pending;
	st->user_pending = 0;
}

static __always_inline void user_time_stop(struct thread_state *st, __u64 now)
{
	__u64 since = st->user_since;

	st->user_since = 0;
	if (!since || now <= since)
		return;
	st->user_pending += now - since;
	if (st->user_pending >= USER_FLUSH_NS)
		user_time_flush(st);
}

/* A switch onto a CPU can go unreported: on the Firecracker guests these
 * tests run on, no sched_switch ever has a thread of pid 1 (the guest
 * agent's tokio-rt-worker) as prev, neither for BPF nor for ftrace, so a
 * traced thread that one preempted runs again unseen, and its user time
 * until its next event was lost (a Python loop's 200-590 ms of 650 in one
 * run of 70). A hook in the thread's own context that finds off_since
 * still set knows it is back: it closes the wait there (switch_unseen),
 * and the thread's next switch off, where the scheduler's run time is
 * exact, settles the stretch before it (switch_unseen_settle). The count
 * of them, read by Go (Probe.UnseenSwitches), is a global, not a map: a
 * helper call here made the stacks' sys_enter spill past the verifier's
 * 512 bytes of stack with take_stack's loop callback. */
__u64 switch_unseen_count;

static __always_inline void switch_unseen(struct thread_state *st, __u64 now)
{
	if (!st->off_since)
		return;
	st->unseen_at = now;
	st->unseen_out = st->off_since;
	st->unseen_phase = st->phase;
	st->unseen_class = st->class;
	st->off_since = 0;
	if (st->off_user && !st->in_syscall && !st->in_flight)
		st->user_since = now;
	__sync_fetch_and_add(&switch_unseen_count, 1);
}

/* runtime: the task's se.sum_exec_runtime, exact where the thread leaves
 * a CPU (update_curr ran for it), up to a tick behind at its exit. It ran
 * runtime - out_runtime since the unseen switch, now - unseen_at of it
 * since it was found running: the rest ran before it was found, in the
 * state it had left in, and its wait is what remains of the gap. */
static __always_inline void switch_unseen_settle(struct thread_state *st, __u64 runtime, __u64 now)
{
	__u64 at = st->unseen_at, ran, since_found, gap, before = 0;
	struct class_stats *s;
	__u32 label;

	if (!at)
		return;
	st->unseen_at = 0;
	ran = runtime > st->out_runtime ? runtime - st->out_runtime : 0;
	since_found = now > at ? now - at : 0;
	gap = at - st->unseen_out;
	if (ran > since_found)
		before = ran - since_found;
	if (before > gap)
		before = gap;
	s = stats_for(st->unseen_phase, st->off_user ? CLASS_USER : st->unseen_class, STAGE_SYSCALL);
	if (!s)
		return;
	if (st->off_user)
		s->total_ns += before;
	label = (st->off_state * NR_OFF_WAKERS + st->waker) & (OFF_LABELS - 1);
	s->offcpu_ns += gap - before;
	s->off_ns[label] += gap - before;
}

static __always_inline struct thread_state *current_state(void)
{
	return thread_of((__u32)bpf_get_current_pid_tgid());
}

static __always_inline int on_event(enum stage stage)
{
	struct thread_state *st = current_state();

	if (st)
		count_event(st, stage, 0, 0);
	return 0;
}

/* A wrapper's body: its handler, or with CUT_ALL nothing at all (the
 * verifier drops the handler): the same programs at the same attach
 * points returning at once, the floor of what tmpprobe's hooks can cost,
 * which make bench holds the real ones to. */
#define HOOK(call) return config.cut == CUT_ALL ? 0 : (call)

#endif
