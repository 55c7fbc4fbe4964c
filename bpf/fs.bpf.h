/* File-system stages: ext4's tracepoints that bracket a stage of a traced
 * syscall (sync_file, unlink, a new inode) time it; the ones that mark
 * one (evict, free an inode) count it. */
#ifndef __FS_BPF_H__
#define __FS_BPF_H__

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

#define EXT4_TRACEPOINTS(kind)                                                 \
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

#endif
