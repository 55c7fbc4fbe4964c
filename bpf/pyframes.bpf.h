/* CPython's frames, read from BPF: the thread state of the thread a stack
 * is taken on, its frames from the current one outwards (code object and
 * instruction, no names: user space names them), a stamp of each code
 * object a new stack holds with a copy of its names and line table, and
 * the uprobe that installs a process's layout as it enters the
 * interpreter. Uses bpf_loop (v5.17): loaded only where stacks are asked
 * for (stacks.bpf.h). */
#ifndef __PYFRAMES_BPF_H__
#define __PYFRAMES_BPF_H__

static __always_inline void count_stack_stat(enum stack_stat stat)
{
	__u32 key = stat;
	__u64 *n = bpf_map_lookup_elem(&stack_stats, &key);

	if (n)
		(*n)++;
}

/* 0 when unreadable: every pointer the walk follows is non-NULL when
 * valid, and 0 ends it. */
static __always_inline __u64 read_user_u64(__u64 addr)
{
	__u64 v = 0;

	if (bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

/* A 64-bit multiplicative mix (the golden-ratio constant), folded: cheap
 * in BPF, and collisions among a run's few thousand stacks are
 * vanishingly rare (~n^2 / 2^65). pyinterp.Mix is the same. */
static __always_inline __u64 mix(__u64 h, __u64 v)
{
	h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
	return h ^ (h >> 29);
}

/* The walks are bpf_loop callbacks, verified once whatever the bound: an
 * open-coded 40-frame walk exceeded the verifier's 1M-instruction
 * budget. */
struct tstate_walk {
	const struct py_layout *l;
	__u64 want;
	__u64 interp;
	__u64 ts;
	__u64 found;
};

static long tstate_step(__u32 i, void *data)
{
	struct tstate_walk *w = data;
	const struct py_layout *l = w->l;

	if (!w->interp)
		return 1;
	if (!w->ts) {
		w->interp = read_user_u64(w->interp + l->interp_next);
		w->ts = w->interp ? read_user_u64(w->interp + l->interp_threads_head) : 0;
		return 0;
	}
	if (read_user_u64(w->ts + l->tstate_match_off) == w->want) {
		w->found = w->ts;
		return 1;
	}
	w->ts = read_user_u64(w->ts + l->tstate_next);
	return 0;
}

/* The PyThreadState of the current thread. Not the TLS _Py_tss_tstate
 * (3.12+) nor _PyRuntime's GIL holder (3.8-3.11): both are NULL while
 * the thread has released the GIL, which CPython does around every
 * blocking syscall, exactly where a syscall's stack is taken. Instead
 * the runtime's list of thread states is walked once per thread and the
 * answer kept. */
static __always_inline __u64 find_tstate(const struct py_layout *l, __u32 tid)
{
	struct tstate_walk w = { .l = l, .want = tid };
	__u64 *cached;

	if (l->tstate_match_kind == MATCH_PTHREAD_SELF)
		w.want = TLS_BASE((struct task_struct *)bpf_get_current_task());
	cached = bpf_map_lookup_elem(&py_tstates, &tid);
	if (cached && *cached && read_user_u64(*cached + l->tstate_match_off) == w.want) {
		count_stack_stat(STACK_STAT_TSTATE_CACHED);
		return *cached;
	}
	w.interp = read_user_u64(l->runtime_addr + l->runtime_interpreters_head);
	w.ts = w.interp ? read_user_u64(w.interp + l->interp_threads_head) : 0;
	bpf_loop(MAX_INTERPS * MAX_PY_THREADS, tstate_step, &w, 0);
	if (w.found) {
		bpf_map_update_elem(&py_tstates, &tid, &w.found, BPF_ANY);
		count_stack_stat(STACK_STAT_TSTATE_WALKED);
		return w.found;
	}
	count_stack_stat(STACK_STAT_TSTATE_MISSING);
	return 0;
}

struct frame_walk {
	const struct py_layout *l;
	struct stack_scratch *s;
	__u64 f;
	__u64 h;
	__u32 n;
};

static long frame_step(__u32 i, void *data)
{
	struct frame_walk *w = data;
	const struct py_layout *l = w->l;
	struct stack_scratch *s = w->s;
	struct stack_key *k = &s->key;
	__u32 size = l->frame_read_size;
	__u32 off_prev = l->frame_previous, off_code = l->frame_code;
	__u32 off_instr = l->frame_instr, off_owner = l->frame_owner;
	__u64 code, prev, rec;
	__s64 idx;
	__u64 n = w->n;

	if (!w->f)
		return 1;
	/* 64-bit and behind a barrier: with bpf2go's -mcpu=v1 (no 32-bit
	 * ALU) clang otherwise indexes with a re-extended copy the verifier
	 * has no bound for. */
	asm volatile("" : "+r"(n));
	if (n >= MAX_PY_FRAMES) {
		k->flags |= SF_TRUNCATED;
		count_stack_stat(STACK_STAT_TRUNCATED);
		return 1;
	}
	if (size > FRAME_READ_MAX || off_prev > FRAME_READ_MAX - 8 || off_code > FRAME_READ_MAX - 8 ||
	    off_instr > FRAME_READ_MAX - 8 || off_owner > FRAME_READ_MAX - 1)
		return 1;
	if (bpf_probe_read_user(s->frame, size, (void *)w->f)) {
		k->flags |= SF_READ_ERR;
		count_stack_stat(STACK_STAT_READ_ERR);
		return 1;
	}
	code = *(__u64 *)&s->frame[off_code];
	prev = *(__u64 *)&s->frame[off_prev];
	if (l->frame_is_interp) {
		/* 3.12+ pushes a shim frame where C calls into Python: no code
		 * of the user's, skipped without spending a slot. */
		if (s->frame[off_owner] == l->owner_cstack) {
			w->f = prev;
			return 0;
		}
		idx = ((__s64)*(__u64 *)&s->frame[off_instr] - (__s64)code - (__s64)l->code_adaptive) >> 1;
	} else {
		idx = *(__s32 *)&s->frame[off_instr] >> l->lasti_shift;
	}
	/* A frame just pushed has no instruction yet (3.11: prev_instr is
	 * one before the first; 3.8-3.10: f_lasti is -1). */
	if (idx < 0)
		idx = 0;
	if (idx > 0xffff)
		idx = 0xffff;
	rec = (code & ((1ULL << CODE_ADDR_BITS) - 1)) | ((__u64)idx << CODE_ADDR_BITS);
	k->frames[n] = rec;
	w->h = mix(w->h, rec);
	w->n = n + 1;
	w->f = prev;
	return 0;
}

/* Fills s->key's frames from the thread's current Python frame outwards. */
static __always_inline void py_walk(const struct py_layout *l, __u32 tid, struct stack_scratch *s)
{
	struct stack_key *k = &s->key;
	struct frame_walk w = { .l = l, .s = s };
	__u64 ts = find_tstate(l, tid);

	if (!ts) {
		k->flags |= SF_NO_TSTATE;
		return;
	}
	w.f = read_user_u64(ts + l->tstate_frame);
	if (l->tstate_frame_is_cframe && w.f)
		w.f = read_user_u64(w.f + l->cframe_current_frame);
	if (!w.f) {
		k->flags |= SF_NO_FRAME;
		return;
	}
	/* Steps beyond MAX_PY_FRAMES: shim frames take none of the slots. */
	bpf_loop(MAX_PY_FRAMES + 8, frame_step, &w, 0);
	if (w.f && w.n < MAX_PY_FRAMES && !(k->flags & (SF_READ_ERR | SF_TRUNCATED)))
		k->flags |= SF_TRUNCATED; /* only shims filled the steps */
	k->nframes = w.n;
	k->hash = w.h;
}

/* Copies a compact str's characters (PyASCIIObject.state: kind in bits
 * 2-4, compact bit 5, ascii bit 6, the same in 3.8-3.13) into dst. */
static __always_inline void copy_str(const struct py_layout *l, struct stack_scratch *s, __u64 obj,
				     __u8 *dst, __u32 cap, __u32 *len, __u8 *kind)
{
	__u32 o_len = l->unicode_length, o_state = l->unicode_state;
	__u64 n, data, bytes;
	__u32 state, k;

	if (o_len > 56 || o_state > 60 || bpf_probe_read_user(s->str, sizeof(s->str), (void *)obj))
		return;
	n = *(__u64 *)&s->str[o_len];
	state = *(__u32 *)&s->str[o_state];
	k = (state >> 2) & 7;
	if (!((state >> 5) & 1) || (k != 1 && k != 2 && k != 4) || n > (1 << 20))
		return;
	data = obj + (((state >> 6) & 1) ? l->unicode_ascii_size : l->unicode_compact_size);
	bytes = n * k;
	if (bytes > cap)
		bytes = cap;
	/* Checked again on the register the call uses (see frame_step). */
	asm volatile("" : "+r"(bytes));
	if (bytes > CODE_FILE_MAX)
		return;
	if (bpf_probe_read_user(dst, bytes, (void *)data))
		return;
	*len = n;
	*kind = k;
}

/* Sends what user space needs to name code object code (read into
 * s->code) and its lines, once per (tgid, address, stamp). */
static __always_inline void send_code(const struct py_layout *l, struct stack_scratch *s, __u64 code, __u32 stamp)
{
	struct stack_key *k = &s->key;
	struct code_seen seen = { .tgid = k->tgid, .stamp = stamp, .addr = code };
	__u32 o_name = l->code_name, o_file = l->code_filename, o_first = l->code_firstlineno;
	__u32 o_tab = l->code_linetable, o_size = l->varobject_size;
	struct code_rec *r;
	__u64 tab, tlen = 0, copy;
	__u8 one = 1;

	if (bpf_map_lookup_elem(&codes_seen, &seen))
		return;
	if (o_name > CODE_READ_MAX - 8 || o_file > CODE_READ_MAX - 8 || o_first > CODE_READ_MAX - 4 ||
	    o_tab > CODE_READ_MAX - 8 || o_size > CODE_READ_MAX - 8)
		return;
	r = bpf_ringbuf_reserve(&stack_events, sizeof(*r), 0);
	if (!r) {
		count_drop(DROP_STACK_RING_FULL);
		return;
	}
	r->magic = CODE_REC_MAGIC;
	r->tgid = k->tgid;
	r->addr = code;
	r->stamp = stamp;
	r->firstlineno = *(__s32 *)&s->code[o_first];
	r->units = l->code_size_is_units ? *(__u64 *)&s->code[o_size] : 0;
	r->name_len = r->file_len = r->table_len = 0;
	r->name_kind = r->file_kind = 0;
	r->minor = l->minor;
	copy_str(l, s, *(__u64 *)&s->code[o_name], r->name, CODE_NAME_MAX, &r->name_len, &r->name_kind);
	copy_str(l, s, *(__u64 *)&s->code[o_file], r->file, CODE_FILE_MAX, &r->file_len, &r->file_kind);
	tab = *(__u64 *)&s->code[o_tab];
	if (o_size <= 56 && !bpf_probe_read_user(&tlen, sizeof(tlen), (void *)(tab + o_size))) {
		copy = tlen > CODE_TABLE_MAX ? CODE_TABLE_MAX : tlen;
		asm volatile("" : "+r"(copy));
		if (copy <= CODE_TABLE_MAX && !bpf_probe_read_user(r->table, copy, (void *)(tab + l->bytes_sval)))
			r->table_len = tlen;
	}
	bpf_ringbuf_submit(r, 0);
	bpf_map_update_elem(&codes_seen, &seen, &one, BPF_ANY);
	count_stack_stat(STACK_STAT_CODES_SENT);
}

struct stamp_walk {
	const struct py_layout *l;
	struct stack_scratch *s;
};

/* The stamp of frame i's code object, read when its stack is first seen:
 * a hash of its name and file pointers and first line, and (once per
 * object) a copy of its names and line table. CPython frees code objects
 * (a module's top-level code once imported) and reuses their memory for
 * others, and a process may exit before user space reads anything: the
 * copy names the frame, and the stamp says which copy. Only new stacks
 * pay for this. */
static long stamp_step(__u32 i, void *data)
{
	struct stamp_walk *w = data;
	const struct py_layout *l = w->l;
	struct stack_scratch *s = w->s;
	struct stack_key *k = &s->key;
	__u32 size = l->code_read_size, o_type = l->object_type, o_name = l->code_name;
	__u32 o_file = l->code_filename, o_first = l->code_firstlineno;
	__u32 stamp = 0;
	__u64 j = i, code, h;

	asm volatile("" : "+r"(j)); /* see frame_step */
	if (j >= MAX_PY_FRAMES || j >= k->nframes)
		return 1;
	if (size > CODE_READ_MAX || o_type > CODE_READ_MAX - 8 || o_name > CODE_READ_MAX - 8 ||
	    o_file > CODE_READ_MAX - 8 || o_first > CODE_READ_MAX - 4)
		return 1;
	code = k->frames[j] & ((1ULL << CODE_ADDR_BITS) - 1);
	if (bpf_probe_read_user(s->code, size, (void *)code) == 0 &&
	    *(__u64 *)&s->code[o_type] == l->code_type_addr) {
		h = mix(*(__u64 *)&s->code[o_name], *(__u64 *)&s->code[o_file]);
		stamp = (__u32)mix(h, *(__u32 *)&s->code[o_first]) | 1;
		send_code(l, s, code, stamp);
	} else {
		count_stack_stat(STACK_STAT_NOT_CODE);
	}
	k->stamps[j] = stamp;
	return 0;
}

static __always_inline void stamp_frames(const struct py_layout *l, struct stack_scratch *s)
{
	struct stamp_walk w = { .l = l, .s = s };

	bpf_loop(MAX_PY_FRAMES, stamp_step, &w, 0);
}

/* A process enters the interpreter (Py_BytesMain, Py_Initialize*): its
 * layout, from the file's template and the load bias the uprobe's ip
 * shows, is installed before any Python code runs. User space polling
 * /proc/PID/maps for libpython was seen to lose that race on a loaded
 * machine (a short script's five fsyncs went by first). Any process: a
 * lab's fork server is followed by none, its workers inherit its layout
 * (on_fork). */
static __always_inline int on_py_start(struct pt_regs *ctx, __u64 cookie, __u64 ip)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 key = (__u32)cookie;
	struct py_template *t = bpf_map_lookup_elem(&py_templates, &key);
	struct py_layout l;
	__u64 bias;

	if (!t)
		return 0;
	/* x86 reports the ip past the int3 (the probed address + 1); a bias
	 * is page-aligned, so rounding down absorbs either. */
	bias = (ip - t->entry_vaddr) & ~0xfffULL;
	l = t->l;
	l.runtime_addr += bias;
	l.code_type_addr += bias;
	if (bpf_map_update_elem(&py_layouts, &tgid, &l, BPF_ANY) == 0)
		count_stack_stat(STACK_STAT_LAYOUT_UPROBE);
	return 0;
}

/* A process's layout goes with it: a child keeps its parent's (fork
 * copies the address space: a lab's fork server starts the interpreter,
 * its workers run it), an exec drops it, and so does the process's end.
 * Attached apart from the other hooks, traced halves or not (a worker
 * may be forked in an untraced one): one lookup per fork, exec and exit
 * on the machine, only where stacks are taken. */
static __always_inline int py_layout_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid), ctgid = BPF_CORE_READ(child, tgid);
	struct py_layout *l;

	if (ctgid == ptgid || !(l = bpf_map_lookup_elem(&py_layouts, &ptgid)))
		return 0;
	if (bpf_map_update_elem(&py_layouts, &ctgid, l, BPF_ANY) == 0)
		count_stack_stat(STACK_STAT_LAYOUT_FORK);
	return 0;
}

static __always_inline int py_layout_drop(bool whole_process)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tgid = id >> 32;

	/* A process's leader ends last but for a rare pthread_exit(). */
	if (whole_process || (__u32)id == tgid)
		bpf_map_delete_elem(&py_layouts, &tgid);
	return 0;
}

#define PYTHON_TRACEPOINTS(kind)                                               \
SEC(#kind "/sched_process_fork")                                               \
int kind##_py_fork(__u64 *ctx)                                                 \
{ return py_layout_fork((struct task_struct *)ctx[0], (struct task_struct *)ctx[1]); } \
SEC(#kind "/sched_process_exec")                                               \
int kind##_py_exec(__u64 *ctx) { return py_layout_drop(true); }                \
SEC(#kind "/sched_process_exit")                                               \
int kind##_py_exit(__u64 *ctx) { return py_layout_drop(false); }

#define PYTHON_UPROBES                                                         \
SEC("uprobe.multi")                                                            \
int uprobe_py_start(struct pt_regs *ctx)                                       \
{ return on_py_start(ctx, bpf_get_attach_cookie(ctx), UPROBE_IP(ctx)); }

#endif
