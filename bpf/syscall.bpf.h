/* Syscalls: sys_enter and sys_exit time every syscall of a traced thread
 * by its class (openat split by its flags), with its latency histogram,
 * errors and errnos; the kprobe and fentry backends (backends.bpf.h) time
 * the syscalls they own with the same begin_syscall and end_syscall. */
#ifndef __SYSCALL_BPF_H__
#define __SYSCALL_BPF_H__

#define O_CREAT 0100
#define O_EXCL 0200
#define O_TMPFILE (020000000 | O_DIRECTORY) /* O_DIRECTORY: arch.bpf.h */
#define MAX_ERRNO 4095

static __always_inline int backend_owns(__u64 nr)
{
	if (nr >= BACKEND_NR_MAX)
		return 0;
	return (config.backend_syscalls[nr / 64] >> (nr % 64)) & 1;
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

/* A syscall starts: shared by sys_enter and the backends' entry hooks, so
 * off-CPU accounting and the I/O window see the same state whichever hook
 * timed the call. */
static __always_inline void begin_syscall(struct thread_state *st, __u32 tid, __u32 nr, struct pt_regs *regs)
{
	__u64 now = bpf_ktime_get_ns();

	switch_unseen(st, now);
	user_time_stop(st, now);
	st->nr = nr;
	st->class = classify(nr, regs);
	st->in_syscall = 1;
	st->in_marker = 0; /* a marker's exit (if any) came before this enter */
	st->in_flight = 0;
	st->top_loop = 0;
	st->enter_ns = now;
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

/* A syscall ends at now; the caller has checked it is the one that
 * began. */
static __always_inline void end_syscall(struct thread_state *st, long ret, __u64 now)
{
	struct class_stats *s;
	__u64 delta = now - st->enter_ns;

	s = stats_for(st->phase, st->class, STAGE_SYSCALL);
	if (s)
		record_call(s, delta, ret);
	if (config.count_errnos && ret < 0 && ret >= -MAX_ERRNO)
		count_errno(st, (__u16)-ret);
}

/* stacks: the program variant that takes stacks (stacks.bpf.h), loaded
 * only where they are asked for; the other has none of that code. */
static __always_inline int on_sys_enter(void *ctx, struct pt_regs *regs, long id, bool stacks)
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
	if (backend_owns(id)) {
		/* Timed by the backend's entry hook, which runs next. */
		if (stacks) {
			user_time_stop(st, bpf_ktime_get_ns());
			stack_at_enter(ctx, st, tid, classify(id, regs), regs);
		}
		return 0;
	}
	begin_syscall(st, tid, id, regs);
	if (stacks) {
		stack_at_enter(ctx, st, tid, st->class, regs);
		/* The call's time starts after the walk: that is tmpprobe's. */
		if (st->stack_hash)
			st->enter_ns = bpf_ktime_get_ns();
	}
	return 0;
}

/* btf: regs is a BTF-typed pointer (tp_btf), readable with a plain load;
 * raw_tp needs a probe-read helper call for every exit. */
static __always_inline int on_sys_exit(struct pt_regs *regs, long ret, bool btf, bool stacks)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st;
	__u64 nr, now;

	st = thread_of(tid);
	if (!st || config.cut == CUT_AFTER_THREAD)
		return 0;
	if (config.cut == CUT_AFTER_CLOCK) {
		st->enter_ns = bpf_ktime_get_ns() - st->enter_ns;
		return 0;
	}
	/* Whichever exit this is (a call timed here or by a backend, a
	 * marker's, the clone a new thread returns from, a call in flight
	 * when the thread was followed), the thread is back in user mode. */
	now = bpf_ktime_get_ns();
	switch_unseen(st, now);
	st->user_since = now;
	st->in_flight = 0;
	if (stacks && st->stack_hash)
		stack_at_exit(st, now);
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
	end_syscall(st, ret, now);
	return 0;
}

#define SYSCALL_TRACEPOINTS(kind, btf)                                         \
SEC(#kind "/sys_enter")                                                        \
int kind##_sys_enter(__u64 *ctx)                                               \
{ HOOK(on_sys_enter(ctx, (struct pt_regs *)ctx[0], (long)ctx[1], false)); }    \
SEC(#kind "/sys_exit")                                                         \
int kind##_sys_exit(__u64 *ctx)                                                \
{ HOOK(on_sys_exit((struct pt_regs *)ctx[0], (long)ctx[1], btf, false)); }     \
SEC(#kind "/sys_enter")                                                        \
int kind##_sys_enter_stacks(__u64 *ctx)                                        \
{ HOOK(on_sys_enter(ctx, (struct pt_regs *)ctx[0], (long)ctx[1], true)); }     \
SEC(#kind "/sys_exit")                                                         \
int kind##_sys_exit_stacks(__u64 *ctx)                                         \
{ HOOK(on_sys_exit((struct pt_regs *)ctx[0], (long)ctx[1], btf, true)); }

#endif
