/* Stacks: the user stack of a followed thread, its Python frames
 * (pyframes.bpf.h) or its native ones (frame pointers, bpf_get_stackid),
 * counted per (phase, class, stack): at a CPU-clock perf event while the
 * thread runs in user mode (user time by function), and at the entry of
 * a syscall of a class config.stack_all names, or of one call in
 * config.stack_every (the call site behind a syscall), whose count gets
 * the call's time and its time off the CPU at its exit. Each new stack
 * is kept in stack_frames and sent through the ring buffer, where Go
 * names it. Loaded only where stacks are asked for (config.stacks): the
 * walk needs bpf_loop (v5.17). */
#ifndef __STACKS_BPF_H__
#define __STACKS_BPF_H__

#define EEXIST 17

/* Frame-pointer unwinding reads return addresses from the frames the
 * frame pointer chains; a leaf that pushed no frame (a libc or Go
 * assembly syscall stub) has its caller's return address elsewhere, so
 * the function that made the syscall is missing from the chain. */
#if defined(__TARGET_ARCH_arm64)
/* bl leaves it in the link register. */
static __always_inline __u64 leaf_return(struct pt_regs *regs)
{
	return BPF_CORE_READ(regs, regs[30]);
}
#else
/* call pushed it at [sp]: taken when the bytes before it end with a call
 * instruction (e8 rel32, ff /2 in 2, 3 or 6 bytes), so only a real
 * return address enters the key, never a stack datum that would split
 * one call site into many keys. glibc's cancellable syscalls in a
 * multi-threaded program move sp first (sub $0x18,%rsp): there the
 * caller stays missing. */
static __always_inline __u64 leaf_return(struct pt_regs *regs)
{
	__u64 ret = read_user_u64(USER_SP(regs));
	__u8 b[8];

	if (ret < 4096 || ret >= (1ULL << 47) || bpf_probe_read_user(b, sizeof(b), (void *)(ret - 8)))
		return 0;
	if (b[3] == 0xe8 || (b[6] == 0xff && ((b[7] >> 3) & 7) == 2) ||
	    (b[5] == 0xff && ((b[6] >> 3) & 7) == 2) || (b[2] == 0xff && ((b[3] >> 3) & 7) == 2))
		return ret;
	return 0;
}
#endif

/* Keeps a new stack (stamping its code objects first) and sends it. */
static __always_inline void publish(const struct py_layout *l, struct stack_scratch *s)
{
	struct stack_key *k = &s->key;
	long err;

	if (bpf_map_lookup_elem(&stack_frames, &k->hash))
		return;
	if (l && k->nframes)
		stamp_frames(l, s);
	err = bpf_map_update_elem(&stack_frames, &k->hash, k, BPF_NOEXIST);
	if (err == -EEXIST)
		return; /* another CPU's, just now */
	if (err)
		count_drop(DROP_STACKS_FULL);
	count_stack_stat(STACK_STAT_NEW_STACKS);
	if (bpf_ringbuf_output(&stack_events, k, sizeof(*k), 0))
		count_drop(DROP_STACK_RING_FULL);
}

/* The current thread's stack, hashed and kept; regs: the user's
 * registers at a syscall (0 for a CPU sample). */
static __always_inline struct stack_key *take_stack(void *ctx, __u32 tid, struct pt_regs *regs)
{
	__u32 zero = 0, tgid = bpf_get_current_pid_tgid() >> 32;
	struct stack_scratch *s = bpf_map_lookup_elem(&stack_scratch, &zero);
	const struct py_layout *l;
	struct stack_key *k;
	long id;
	__u64 h;

	if (!s)
		return 0;
	k = &s->key;
	/* No memset of the whole key: frames past nframes are never read. */
	k->tgid = tgid;
	k->native_id = -1;
	k->nframes = 0;
	k->flags = 0;
	k->pad = 0;
	k->leaf_ret = 0;
	k->hash = 0;
	l = bpf_map_lookup_elem(&py_layouts, &tgid);
	if (l) {
		k->flags |= SF_PYTHON;
		py_walk(l, tid, s);
	}
	if (config.stack_native == 2 || (config.stack_native == 1 && !l)) {
		id = bpf_get_stackid(ctx, &native_stacks, BPF_F_USER_STACK);
		if (id >= 0) {
			k->native_id = id;
			k->flags |= SF_NATIVE;
		} else {
			count_stack_stat(STACK_STAT_NATIVE_ERR);
		}
		if (regs)
			k->leaf_ret = leaf_return(regs);
	}
	h = mix(k->hash, tgid);
	h = mix(h, ((__u64)(__u32)k->native_id << 32) | ((__u32)k->nframes << 16) | k->flags);
	k->hash = mix(h, k->leaf_ret) | 1; /* never 0, thread_state's "none" */
	publish(l, s);
	return k;
}

/* Counts one sample or call of a stack; false when the map is full. */
static __always_inline bool count_stack(struct stack_count_key *key, __u64 ns)
{
	static const struct stack_count zero;
	struct stack_count *c = bpf_map_lookup_elem(&stack_counts, key);

	if (!c) {
		if (bpf_map_update_elem(&stack_counts, key, &zero, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&stack_counts, key)) {
			count_drop(DROP_STACKS_FULL);
			return false;
		}
		c = bpf_map_lookup_elem(&stack_counts, key);
		if (!c)
			return false;
	}
	__sync_fetch_and_add(&c->count, 1);
	if (ns) /* see count_neighbour: no atomic add of 0 */
		__sync_fetch_and_add(&c->ns, ns);
	return true;
}

/* Every call of a class config.stack_all names, or one call in
 * config.stack_every of the classes stack_some names (or of every other
 * class), drawn at random: a counter would alias with a program's own
 * period (read, write, read, write 1 in 2 is every read). */
static __always_inline bool stack_wanted(__u16 class)
{
	__u64 c = class;
	bool known = c < STACK_CLASS_BITS;

	if (known && (config.stack_all[c / 64] >> (c % 64)) & 1)
		return true;
	if (!config.stack_every)
		return false;
	if (!config.stack_some_any && !(known && (config.stack_some[c / 64] >> (c % 64)) & 1))
		return false;
	return bpf_get_prandom_u32() % config.stack_every == 0;
}

/* A syscall of class starts: its stack, if wanted, counted with the
 * call; stack_at_exit adds the call's time. */
static __always_inline void stack_at_enter(void *ctx, struct thread_state *st, __u32 tid, __u16 class,
					   struct pt_regs *regs)
{
	struct stack_count_key key = { .phase = st->phase, .class = class };
	struct stack_key *k;

	st->stack_hash = 0;
	if (!stack_wanted(class))
		return;
	k = take_stack(ctx, tid, regs);
	if (!k)
		return;
	key.hash = k->hash;
	if (!count_stack(&key, 0))
		return;
	st->stack_hash = key.hash;
	st->stack_class = class;
	st->call_off_ns = 0;
	count_stack_stat(STACK_STAT_SYSCALLS);
}

/* The syscall whose stack was taken returns at now. */
static __always_inline void stack_at_exit(struct thread_state *st, __u64 now)
{
	struct stack_count_key key = { .phase = st->phase, .class = st->stack_class, .hash = st->stack_hash };
	struct stack_count *c = bpf_map_lookup_elem(&stack_counts, &key);

	st->stack_hash = 0;
	if (!c)
		return;
	if (now > st->enter_ns)
		__sync_fetch_and_add(&c->ns, now - st->enter_ns);
	if (st->call_off_ns)
		__sync_fetch_and_add(&c->off_ns, st->call_off_ns);
}

/* A CPU-clock tick on a followed thread in user mode: a sample of its
 * user time, weighing the period it closed. Ticks in the kernel are
 * excluded by the event (exclude_kernel); the mode is checked again. */
static __always_inline int on_cpu_sample(struct bpf_perf_event_data *ctx)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct thread_state *st = thread_of(tid);
	struct stack_count_key key = { .class = CLASS_USER };
	struct stack_key *k;

	if (!st || st->in_syscall || st->in_flight || !PERF_IN_USER_MODE(ctx))
		return 0;
	key.phase = st->phase;
	count_stack_stat(STACK_STAT_SAMPLES);
	k = take_stack(ctx, tid, 0);
	if (!k)
		return 0;
	key.hash = k->hash;
	count_stack(&key, ctx->sample_period);
	return 0;
}

#define STACK_SAMPLER                                                          \
SEC("perf_event")                                                              \
int perf_cpu_sample(struct bpf_perf_event_data *ctx)                           \
{ HOOK(on_cpu_sample(ctx)); }

#endif
