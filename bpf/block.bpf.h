/* Block I/O: the bios a traced syscall queues (by kind and rwbs flag), the
 * requests issued in its I/O window timed from issue to completion on the
 * device they reach, and the requests of neighbours on the same disk. */
#ifndef __BLOCK_BPF_H__
#define __BLOCK_BPF_H__

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
	if (!st || bpf_map_lookup_elem(&foreign_rqs, &key))
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
 * them: a traced thread's, a neighbour's own, or a kworker's or jbd2's
 * writeback. A user process's own is not a traced syscall's, even issued
 * in its I/O window: matched by time, a trace beside `dd conv=fsync`
 * counted dd's request on another disk as its fsync's (202 requests where
 * the loop device it wrote to completed 201). */
static __always_inline int on_io_start(struct request *rq)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	struct neighbour_rq n = {};
	struct thread_state *batch;
	__u64 key = (__u64)rq;
	__u8 one = 1;
	dev_t dev;

	if (current_state()) {
		bpf_map_delete_elem(&foreign_rqs, &key);
		return 0;
	}
	if (BPF_CORE_READ(task, flags) & PF_KTHREAD)
		bpf_map_delete_elem(&foreign_rqs, &key);
	else
		bpf_map_update_elem(&foreign_rqs, &key, &one, BPF_ANY);
	if (!config.count_neighbours)
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

#define BLOCK_TRACEPOINTS(kind)                                                \
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
{ HOOK(on_rq_complete((struct request *)ctx[0], (unsigned int)ctx[2])); }

#endif
