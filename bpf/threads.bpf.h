/* The threads a run traces: the lseek markers that start and end a worker's
 * region (and a traced program's own regions), the threads and processes
 * that inherit tracing at fork, a thread's state moved at exec, and the
 * exec clock that starts a compared command's run. */
#ifndef __THREADS_BPF_H__
#define __THREADS_BPF_H__

/* Returns 1 when the syscall was one of our markers (and handled it). */
static __always_inline int handle_marker(__u32 tid, struct pt_regs *regs)
{
	struct thread_state *cur;
	struct class_stats *s;
	__u32 whence;
	__u64 now;

	/* Most lseeks are real ones (Python's buffered files make four per
	 * op): read one register to dismiss them, the rest only for a marker. */
	if ((__u32)SYSCALL_ARG0(regs) != (__u32)-1 || config.cookie == 0 ||
	    SYSCALL_ARG1(regs) != config.cookie)
		return 0;
	whence = SYSCALL_ARG2(regs);
	cur = traced_thread(tid); /* a cgroup thread's first syscall may be a marker */
	now = bpf_ktime_get_ns();
	/* The user time up to a marker is the phase's it ends; the marker's
	 * exit starts the next phase's (sys_exit). */
	if (cur) {
		user_time_stop(cur, now);
		user_time_flush(cur);
	}
	if (cur && cur->base_phase) {
		/* A traced program marking its own region: switch phase, and
		 * count the region's entries and time. */
		cur->in_marker = 1;
		if (whence & 1) {
			cur->phase = REGION_FLAG | (whence >> 1);
			cur->region_start = now;
		} else if (cur->phase != cur->base_phase) {
			s = stats_for(cur->phase, CLASS_REGION, STAGE_SYSCALL);
			if (s && cur->region_start) {
				s->calls++;
				s->total_ns += now - cur->region_start;
			}
			cur->phase = cur->base_phase;
		}
		return 1;
	}
	if (!(whence & 1)) {
		forget_thread(tid);
		return 1;
	}
	cur = new_thread(tid, BPF_ANY);
	if (!cur) {
		count_drop(DROP_THREADS_FULL);
		return 1;
	}
	cur->phase = whence >> 1;
	cur->in_marker = 1;
	return 1;
}

/* New threads of a traced process are traced; with follow, new processes
 * too. The tracepoint runs in the parent before the child first runs. */
static __always_inline int on_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptid = BPF_CORE_READ(parent, pid), ctid;
	struct thread_state *st = thread_of(ptid), *ns;

	if (!st || !st->base_phase)
		return 0;
	if (!st->follow && BPF_CORE_READ(child, tgid) != BPF_CORE_READ(parent, tgid))
		return 0;
	ctid = BPF_CORE_READ(child, pid);
	ns = new_thread(ctid, BPF_NOEXIST);
	if (!ns) {
		count_drop(DROP_THREADS_FULL);
		return 0;
	}
	ns->phase = ns->base_phase = st->base_phase;
	ns->follow = st->follow;
	ns->in_marker = 1; /* its first event is the exit from clone, never entered */
	return 0;
}

static __always_inline int on_task_exit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st = thread_of(tid);

	__u8 one = 1;

	/* Killed by a signal, a thread leaves user mode without a syscall. */
	if (st) {
		struct task_struct *task = (struct task_struct *)bpf_get_current_task();
		__u64 now = bpf_ktime_get_ns();

		/* Its last switch off comes after this forgets it: settled
		 * from a run time up to a tick behind. */
		switch_unseen(st, now);
		switch_unseen_settle(st, BPF_CORE_READ(task, se.sum_exec_runtime), now);
		user_time_stop(st, now);
		user_time_flush(st);
		if (config.count_neighbours)
			bpf_map_update_elem(&exited_tids, &tid, &one, BPF_ANY);
	}
	/* A worker killed inside a region must not leave its tid active for
	 * the next task that gets the same tid. */
	forget_thread(tid);
	return 0;
}

static __always_inline void send_exec(struct linux_binprm *bprm)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct exec_rec *r = bpf_ringbuf_reserve(&stack_events, sizeof(*r), 0);

	if (!r) {
		count_drop(DROP_STACK_RING_FULL);
		return;
	}
	r->magic = EXEC_REC_MAGIC;
	r->tgid = bpf_get_current_pid_tgid() >> 32;
	r->start_code = BPF_CORE_READ(task, mm, start_code);
	r->end_code = BPF_CORE_READ(task, mm, end_code);
	r->ino = BPF_CORE_READ(task, mm, exe_file, f_inode, i_ino);
	r->dev = BPF_CORE_READ(task, mm, exe_file, f_inode, i_sb, s_dev);
	r->pad = 0;
	if (bpf_probe_read_kernel_str(r->path, sizeof(r->path), BPF_CORE_READ(bprm, filename)) < 0)
		r->path[0] = 0;
	bpf_ringbuf_submit(r, 0);
}

static __always_inline int on_exec(__u32 old_tid, struct linux_binprm *bprm)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st = thread_of(tid);

	/* A thread other than the leader exec'd: de_thread() killed the
	 * leader (whose exit removed the leader's tid here) and gave this
	 * thread the leader's tid, so its state is still under the tid it had.
	 * Move it, or the program it became goes untraced and a later thread
	 * that reuses the old tid inherits it. A Go launcher execs from
	 * whichever thread its main goroutine was last scheduled on. */
	if (!st && old_tid != tid) {
		struct thread_state *old = thread_of(old_tid);

		if (!old)
			return 0;
		st = new_thread(tid, BPF_NOEXIST);
		if (!st) {
			count_drop(DROP_THREADS_FULL);
			return 0;
		}
		__builtin_memcpy(st, old, sizeof(*st));
		st->tid = tid;
		forget_thread(old_tid);
	}
	if (st && config.launch_phase && st->base_phase == config.launch_phase)
		st->phase = st->base_phase = config.trace_phase;
	if (st && config.stacks)
		send_exec(bprm);
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

#define THREAD_TRACEPOINTS(kind)                                               \
SEC(#kind "/sched_process_fork")                                               \
int kind##_sched_process_fork(__u64 *ctx)                                      \
{ HOOK(on_fork((struct task_struct *)ctx[0], (struct task_struct *)ctx[1])); } \
SEC(#kind "/sched_process_exec")                                               \
int kind##_sched_process_exec(__u64 *ctx) { HOOK(on_exec((__u32)ctx[1], (struct linux_binprm *)ctx[2])); }    \
SEC(#kind "/sched_process_exec")                                               \
int kind##_exec_clock(__u64 *ctx) { return on_exec_clock(); }                  \
SEC(#kind "/sched_process_exit")                                               \
int kind##_sched_process_exit(__u64 *ctx)                                      \
{ HOOK(on_task_exit()); }

#endif
