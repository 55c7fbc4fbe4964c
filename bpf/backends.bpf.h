/* The kprobe and fentry backends, included at the end of tmpprobe.bpf.c.
 *
 * Both time the named syscalls on their wrappers (__x64_sys_X on x86-64,
 * __arm64_sys_X on arm64: the syscall table's entries since v4.17 and
 * v4.19, each taking the user's struct pt_regs)
 * and time kernel functions inside them as stages. A kprobe/fentry entry
 * sets the thread state exactly as sys_enter would, the return records like
 * sys_exit, and sys_enter/sys_exit skip those nrs (config.backend_syscalls).
 *
 * Program names are <family>_<hook>; the loader keeps one family and sets
 * the real target (kallsyms / BTF name) itself, so the section suffix is
 * only a label. Families: kprobe_/kretprobe_ and fentry_/fexit_, and the
 * kprobe backend's kprobe.multi pair at the end. */

/* Entry time of each stage in progress, per thread. Stages nest
 * (do_unlinkat calls vfs_unlink), so the key carries the stage. */
struct func_stage_key {
	__u32 tid;
	__u32 stage;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct func_stage_key);
	__type(value, __u64);
} func_stage_starts SEC(".maps");

static __always_inline int on_backend_enter(__u32 nr, struct pt_regs *regs)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st = traced_thread(tid);

	if (st)
		begin_syscall(st, tid, nr, regs);
	return 0;
}

static __always_inline int on_backend_exit(__u32 nr, long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st = thread_of(tid);

	if (!st)
		return 0;
	/* A thread trace adopted while it sat in one of these syscalls
	 * returns from it without an enter: skip that exit, as sys_exit does. */
	if (st->in_marker) {
		st->in_marker = 0;
		return 0;
	}
	if (!st->in_syscall) {
		count_drop(DROP_NO_START);
		return 0;
	}
	st->in_syscall = 0;
	if (st->nr != nr) {
		count_drop(DROP_NR_MISMATCH);
		return 0;
	}
	end_syscall(st, ret, bpf_ktime_get_ns());
	return 0;
}

static __always_inline int on_func_stage_enter(enum stage stage)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *st = thread_of(tid);
	struct func_stage_key key = { .tid = tid, .stage = stage };
	__u64 now;

	if (!st || !st->in_syscall)
		return 0;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&func_stage_starts, &key, &now, BPF_ANY);
	return 0;
}

/* Stages count calls and time, not errors: their return types differ
 * (int, long) and fexit finds the return value after a per-kernel number
 * of arguments (vfs_unlink gained mnt_userns in v5.12). */
static __always_inline int on_func_stage_exit(enum stage stage)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct func_stage_key key = { .tid = tid, .stage = stage };
	struct thread_state *st;
	struct class_stats *s;
	__u64 *start, delta;

	start = bpf_map_lookup_elem(&func_stage_starts, &key);
	if (!start)
		return 0;
	delta = bpf_ktime_get_ns() - *start;
	bpf_map_delete_elem(&func_stage_starts, &key);
	st = thread_of(tid);
	if (!st || !st->in_syscall)
		return 0;
	s = stats_for(st->phase, st->class, stage);
	if (s)
		record_call(s, delta, 0);
	return 0;
}

/* kprobe: the probed wrapper's first argument is the user's pt_regs;
 * kretprobe: the return register holds the return value (arch.bpf.h). fentry/fexit get the same as u64
 * arguments, the return value after the one argument. */
#define SYSCALL_HOOKS(name)                                                    \
SEC("kprobe/sys_" #name)                                                       \
int kprobe_sys_##name(struct pt_regs *ctx)                                     \
{ HOOK(on_backend_enter(NR_##name, (struct pt_regs *)KPROBE_ARG0(ctx))); }     \
SEC("kretprobe/sys_" #name)                                                    \
int kretprobe_sys_##name(struct pt_regs *ctx)                                  \
{ HOOK(on_backend_exit(NR_##name, (long)KPROBE_RET(ctx))); }                   \
SEC("fentry/sys_" #name)                                                       \
int fentry_sys_##name(__u64 *ctx)                                              \
{ HOOK(on_backend_enter(NR_##name, (struct pt_regs *)ctx[0])); }               \
SEC("fexit/sys_" #name)                                                        \
int fexit_sys_##name(__u64 *ctx)                                               \
{ HOOK(on_backend_exit(NR_##name, (long)ctx[1])); }

#define FUNC_STAGE_HOOKS(fn, stage)                                                 \
SEC("kprobe/" #fn)                                                             \
int kprobe_##fn(void *ctx) { HOOK(on_func_stage_enter(stage)); }               \
SEC("kretprobe/" #fn)                                                          \
int kretprobe_##fn(void *ctx) { HOOK(on_func_stage_exit(stage)); }             \
SEC("fentry/" #fn)                                                             \
int fentry_##fn(void *ctx) { HOOK(on_func_stage_enter(stage)); }               \
SEC("fexit/" #fn)                                                              \
int fexit_##fn(void *ctx) { HOOK(on_func_stage_exit(stage)); }

SYSCALL_HOOKS(openat)
SYSCALL_HOOKS(unlinkat)
SYSCALL_HOOKS(fsync)
SYSCALL_HOOKS(fdatasync)
SYSCALL_HOOKS(linkat)
SYSCALL_HOOKS(renameat)
SYSCALL_HOOKS(renameat2)
/* Only x86-64 of the two has the plain forms (arm64's table is generic). */
#if defined(__TARGET_ARCH_x86)
SYSCALL_HOOKS(unlink)
SYSCALL_HOOKS(rename)
#endif

/* do_sys_openat2 is static (fs/open.c) but kept out of line since v5.6;
 * __do_sys_openat and do_fsync are inlined away on common builds. */
FUNC_STAGE_HOOKS(do_sys_openat2, STAGE_DO_SYS_OPENAT2)
FUNC_STAGE_HOOKS(do_unlinkat, STAGE_DO_UNLINKAT)
FUNC_STAGE_HOOKS(vfs_unlink, STAGE_VFS_UNLINK)
FUNC_STAGE_HOOKS(vfs_fsync_range, STAGE_VFS_FSYNC_RANGE)
FUNC_STAGE_HOOKS(file_write_and_wait_range, STAGE_FILE_WRITE_AND_WAIT_RANGE)
FUNC_STAGE_HOOKS(do_linkat, STAGE_DO_LINKAT)
FUNC_STAGE_HOOKS(vfs_link, STAGE_VFS_LINK)
FUNC_STAGE_HOOKS(do_renameat2, STAGE_DO_RENAMEAT2)
FUNC_STAGE_HOOKS(vfs_rename, STAGE_VFS_RENAME)

/* kprobe.multi (v5.18, commit 0dcac2725406, on kernels built with
 * CONFIG_FPROBE): one program for every entry and one for every return,
 * each attached to all the functions above in a single link, so the kernel
 * registers one fprobe (ftrace) instead of 36 kprobes, and a run holds two
 * links instead of 36. The attach cookie (also v5.18) says what the
 * function is: a syscall nr, or COOKIE_STAGE | stage. Arguments and the
 * return value come in pt_regs exactly as for a single kprobe. */
SEC("kprobe.multi/tmpprobe")
int kprobe_multi_entry(struct pt_regs *ctx)
{
	__u64 c;

	if (config.cut == CUT_ALL)
		return 0;
	c = bpf_get_attach_cookie(ctx);
	if (c & COOKIE_STAGE)
		return on_func_stage_enter(c & ~COOKIE_STAGE);
	return on_backend_enter(c, (struct pt_regs *)KPROBE_ARG0(ctx));
}

SEC("kretprobe.multi/tmpprobe")
int kretprobe_multi_exit(struct pt_regs *ctx)
{
	__u64 c;

	if (config.cut == CUT_ALL)
		return 0;
	c = bpf_get_attach_cookie(ctx);
	if (c & COOKIE_STAGE)
		return on_func_stage_exit(c & ~COOKIE_STAGE);
	return on_backend_exit(c, (long)KPROBE_RET(ctx));
}
