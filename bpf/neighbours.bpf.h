/* Neighbours: who else used the CPU a traced worker waited for, or the
 * disk its work was on, while a batch ran (offcpu.bpf.h counts the CPU's,
 * block.bpf.h the disk's). */
#ifndef __NEIGHBOURS_BPF_H__
#define __NEIGHBOURS_BPF_H__

#define PF_KTHREAD 0x00200000

/* from may be another map's value that another CPU rewrites meanwhile (a
 * CPU slot settled from the CPU the worker got back on): the map is given
 * a copy on the stack. Handing it from directly let the key change between
 * the hash the update took and the bytes it stored, leaving an element in
 * the wrong bucket that lookups never find and the map's iteration cycles
 * on (ErrIterationAborted in Go, one run in three of the buffers lab). */
static __always_inline void count_neighbour(const struct neighbour_key *from, __u64 ns, __u64 bytes)
{
	static const struct neighbour_stats zero;
	struct neighbour_key key = *from;
	struct neighbour_stats *n;

	n = bpf_map_lookup_elem(&neighbours, &key);
	if (!n) {
		if (bpf_map_update_elem(&neighbours, &key, &zero, BPF_NOEXIST) &&
		    !bpf_map_lookup_elem(&neighbours, &key)) {
			count_drop(DROP_NEIGHBOURS_FULL);
			return;
		}
		n = bpf_map_lookup_elem(&neighbours, &key);
		if (!n)
			return;
	}
	__sync_fetch_and_add(&n->count, 1);
	__sync_fetch_and_add(&n->ns, ns);
	/* Not an atomic add of 0 where a caller's bytes is 0: clang makes that
	 * an atomic or, which kernels before v5.12 refuse ("BPF_STX uses
	 * reserved fields"); they have only the atomic add. */
	if (bytes)
		__sync_fetch_and_add(&n->bytes, bytes);
}

/* Who a task is, as a neighbour of a batch in phase. */
static __always_inline void neighbour_of(struct neighbour_key *key, struct task_struct *t, __u32 phase,
					 enum neighbour_kind kind)
{
	__builtin_memset(key, 0, sizeof(*key));
	key->phase = phase;
	key->kind = kind;
	key->pid = BPF_CORE_READ(t, tgid);
	key->cgroup = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
	key->kthread = (BPF_CORE_READ(t, flags) & PF_KTHREAD) != 0;
	BPF_CORE_READ_STR_INTO(&key->comm, t, comm);
}

#endif
