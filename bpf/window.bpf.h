/* The I/O window: block requests and journal commits run in kworker, jbd2
 * and irq context, so the block and journal families match them to a
 * traced thread by time (the last traced thread that entered a syscall),
 * on a watched device, counting a stack of loop devices once. */
#ifndef __WINDOW_BPF_H__
#define __WINDOW_BPF_H__

static __always_inline void set_window(__u32 tid)
{
	__u32 zero = 0;
	__u32 *w = bpf_map_lookup_elem(&window, &zero);

	if (w && *w != tid)
		*w = tid;
}

/* The active thread currently inside a syscall, if the window has one. */
static __always_inline struct thread_state *window_thread(void)
{
	__u32 zero = 0;
	__u32 *tid = bpf_map_lookup_elem(&window, &zero);
	struct thread_state *st;

	if (!tid || !*tid)
		return 0;
	st = thread_of(*tid);
	return st && st->in_syscall ? st : 0;
}

/* The active thread of the window, in a syscall or not: a batch is
 * running, in its phase. */
static __always_inline struct thread_state *window_batch(void)
{
	__u32 zero = 0;
	__u32 *tid = bpf_map_lookup_elem(&window, &zero);

	if (!tid || !*tid)
		return 0;
	return thread_of(*tid);
}

static __always_inline bool watched(dev_t dev)
{
	return config.match_any_dev || bpf_map_lookup_elem(&watched_devs, &dev);
}

#define LOOP_MAJOR 7
#define MINORBITS 20

/* Kernel dev_t: the major number is above the 20 minor bits. */
static __always_inline bool is_loop(dev_t dev)
{
	return (dev >> MINORBITS) == LOOP_MAJOR;
}

/* A loop device's worker re-issues each of its requests as I/O on the
 * backing file, whose device then sees a request (and its filesystem a
 * journal commit) for the same data. The loop request is issued first
 * (loop_queue_rq starts it, then queues the work), so once a syscall's
 * window has seen one, other devices' work in that syscall is the same
 * I/O again, one layer down: count each request once, on the device the
 * traced I/O was submitted to. A loop device whose backing file is on
 * another loop device is a stack: only its top, the first loop device the
 * syscall's I/O reached, counts, however deep the stack goes. */
static __always_inline bool lower_layer(struct thread_state *st, dev_t dev)
{
	if (!st->top_loop) {
		if (is_loop(dev))
			st->top_loop = dev;
		return false;
	}
	return dev != st->top_loop;
}

#endif
