/* The journal: jbd2 commits on a watched device timed from start to end
 * and charged to the traced syscall in the I/O window, and the journal
 * handles a traced thread starts. */
#ifndef __JOURNAL_BPF_H__
#define __JOURNAL_BPF_H__

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

#define JOURNAL_TRACEPOINTS(kind)                                              \
SEC(#kind "/jbd2_start_commit")                                                \
int kind##_jbd2_start_commit(__u64 *ctx)                                       \
{ HOOK(on_commit_start(ctx[0], journal_dev((journal_t *)ctx[0]))); }           \
SEC(#kind "/jbd2_end_commit")                                                  \
int kind##_jbd2_end_commit(__u64 *ctx)                                         \
{ HOOK(on_commit_end(ctx[0], journal_dev((journal_t *)ctx[0]))); }             \
SEC(#kind "/jbd2_handle_start")                                                \
int kind##_jbd2_handle_start(__u64 *ctx) { HOOK(on_event(STAGE_JBD2_HANDLE)); }

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

#define JOURNAL_CLASSIC_TRACEPOINTS                                            \
SEC("tracepoint/jbd2/jbd2_start_commit")                                       \
int tracepoint_jbd2_start_commit(struct jbd2_commit_record *ctx)               \
{ HOOK(on_commit_start(ctx->dev, ctx->dev)); }                                 \
SEC("tracepoint/jbd2/jbd2_end_commit")                                         \
int tracepoint_jbd2_end_commit(struct jbd2_commit_record *ctx)                 \
{ HOOK(on_commit_end(ctx->dev, ctx->dev)); }

#endif
