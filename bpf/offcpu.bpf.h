/* Off-CPU time: a traced thread's time off the CPU, split by why it left
 * (preempted, asleep, blocked) and who woke it (an interrupt, jbd2, a
 * kworker, anyone else), the neighbours that ran on its CPU meanwhile, and
 * its page faults. */
#ifndef __OFFCPU_BPF_H__
#define __OFFCPU_BPF_H__

#define TASK_RUNNING 0
#define TASK_INTERRUPTIBLE 1

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

static __always_inline struct cpu_slot *cpu_slot(__u32 cpu)
{
	return cpu < MAX_CPU_SLOTS ? bpf_map_lookup_elem(&cpu_slots, &cpu) : 0;
}

/* next runs on a slot's CPU while its worker waits: a neighbour of the
 * batch in phase, unless it is followed itself. */
static __always_inline void slot_runs(struct cpu_slot *slot, struct task_struct *next, __u32 next_tid, __u32 phase)
{
	neighbour_of(&slot->running, next, phase, NEIGHBOUR_CPU);
	slot->followed = thread_of(next_tid) || bpf_map_lookup_elem(&exited_tids, &next_tid);
}

/* On this CPU, prev leaves and next runs at now: the task that ran while
 * a worker waited is charged up to now; next takes over the slot, unless
 * it is the worker itself. */
static __always_inline void cpu_slot_switch(struct cpu_slot *slot, struct task_struct *next, __u32 next_tid, __u64 now)
{
	struct thread_state *w;

	if (!slot || !slot->tid)
		return;
	w = thread_of(slot->tid);
	if (!w || w->off_since != slot->off_since) {
		slot->tid = 0; /* its wait ended elsewhere, and was settled there */
		return;
	}
	if (!slot->followed)
		count_neighbour(&slot->running, now - slot->since, 0);
	if (next_tid == slot->tid) {
		slot->tid = 0;
		return;
	}
	slot_runs(slot, next, next_tid, slot->running.phase);
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
	__u64 now = bpf_ktime_get_ns(), delta, runtime;
	__u32 label;
	__u16 class;

	st = thread_of(prev_tid);
	if (st) {
		/* Before the CPU's slot: a wait that had ended unseen is no
		 * neighbour's (cpu_slot_switch finds off_since changed). */
		runtime = BPF_CORE_READ(prev, se.sum_exec_runtime);
		switch_unseen(st, now);
		switch_unseen_settle(st, runtime, now);
		st->out_runtime = runtime;
	}
	if (config.count_neighbours) {
		slot = cpu_slot(cpu);
		cpu_slot_switch(slot, next, next_tid, now);
	}
	if (st) {
		if (!st->in_syscall)
			user_time_stop(st, now);
		user_time_flush(st);
		st->off_since = now;
		st->off_user = !st->in_syscall && !st->in_flight;
		st->off_state = off_state_of(preempt, prev_state);
		st->state_differs = 0;
		if (config.compare_task_state && !preempt)
			compare_task_state(st, prev, st->off_user ? CLASS_USER : st->class);
		if (st->off_state == OFF_PREEMPTED) {
			if (slot) {
				slot->tid = prev_tid;
				slot->off_since = slot->since = now;
				slot_runs(slot, next, next_tid, st->phase);
				st->preempt_cpu = cpu;
			}
		}
		st->waker = WAKER_NONE;
	}
	st = thread_of(next_tid);
	if (!st)
		return 0;
	if (!st->in_syscall && !st->in_flight)
		st->user_since = now;
	if (!st->off_since)
		return 0;
	/* Back on a CPU other than the one it waited for: settle that one. */
	if (config.count_neighbours && st->off_state == OFF_PREEMPTED && st->preempt_cpu != cpu) {
		there = cpu_slot(st->preempt_cpu);
		if (there && there->tid == next_tid && there->off_since == st->off_since) {
			if (!there->followed)
				count_neighbour(&there->running, now - there->since, 0);
			there->tid = 0;
		}
	}
	delta = now - st->off_since;
	st->off_since = 0;
	/* A call in flight when the thread was followed is no class's. */
	if (st->in_flight)
		return 0;
	/* Off the CPU between syscalls (preempted, or a major page fault) is
	 * user-space wall time that was not user-space work. */
	class = st->off_user ? CLASS_USER : st->class;
	if (config.compare_task_state && st->state_differs) {
		s = stats_for(st->phase, class, STAGE_TASK_STATE_DIFFERS);
		if (s)
			s->total_ns += delta;
	}
	if (!st->off_user && st->stack_hash)
		st->call_off_ns += delta;
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

	st = thread_of(tid);
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

	st = thread_of(tid);
	if (!st)
		return 0;
	s = stats_for(st->phase, st->in_syscall ? st->class : CLASS_USER, STAGE_PAGE_FAULT);
	if (s)
		s->calls++;
	return 0;
}

#define OFFCPU_TRACEPOINTS(kind)                                               \
SEC(#kind "/sched_switch")                                                     \
int kind##_sched_switch(__u64 *ctx)                                            \
{ HOOK(on_sched_switch((bool)ctx[0], (struct task_struct *)ctx[1],             \
			 (struct task_struct *)ctx[2], (unsigned int)ctx[3])); } \
SEC(#kind "/sched_switch")                                                     \
int kind##_sched_switch_task(__u64 *ctx)                                       \
{ HOOK(on_sched_switch((bool)ctx[0], (struct task_struct *)ctx[1],             \
			 (struct task_struct *)ctx[2],                         \
			 task_state((struct task_struct *)ctx[1]))); }         \
SEC(#kind "/sched_waking")                                                     \
int kind##_sched_waking(__u64 *ctx)                                            \
{ HOOK(on_sched_waking((struct task_struct *)ctx[0])); }

#define FAULT_TRACEPOINTS(kind)                                                \
SEC(#kind "/page_fault_user")                                                  \
int kind##_page_fault_user(__u64 *ctx)                                         \
{ HOOK(on_page_fault()); }                                                     \
SEC(#kind "/page_fault_kernel")                                                \
int kind##_page_fault_kernel(__u64 *ctx)                                       \
{ HOOK(on_page_fault()); }

#define IRQ_TRACEPOINTS(kind)                                                  \
SEC(#kind "/irq_handler_entry")                                                \
int kind##_irq_handler_entry(__u64 *ctx) { HOOK(on_irq(1)); }                  \
SEC(#kind "/irq_handler_exit")                                                 \
int kind##_irq_handler_exit(__u64 *ctx) { HOOK(on_irq(-1)); }                  \
SEC(#kind "/softirq_entry")                                                    \
int kind##_softirq_entry(__u64 *ctx) { HOOK(on_irq(1)); }                      \
SEC(#kind "/softirq_exit")                                                     \
int kind##_softirq_exit(__u64 *ctx) { HOOK(on_irq(-1)); }

#endif
