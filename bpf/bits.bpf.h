/* Bit arithmetic of the latency histograms (as libbpf-tools' bits.bpf.h);
 * Go's results.HistSlot is the same arithmetic, tested against this
 * geometry (enum hist_geometry). */
#ifndef __BITS_BPF_H__
#define __BITS_BPF_H__

/* floor(log2(v)) for v > 0, without a loop or a branch for the verifier. */
static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xFFFFFFFFULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xFFFF) << 4; v >>= shift; r |= shift;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r;
}

/* The histogram slot of v: exact below 1 << HIST_SUB_BITS, then each power
 * of two split in 1 << HIST_SUB_BITS sub-buckets by the bits below its top
 * bit; the last slot takes everything above. */
static __always_inline __u32 hist_slot(__u64 v)
{
	const __u32 subs = 1 << HIST_SUB_BITS;
	__u32 l, slot;

	if (v < subs)
		return v;
	l = log2_u64(v);
	slot = (l - HIST_SUB_BITS + 1) * subs + ((v >> (l - HIST_SUB_BITS)) & (subs - 1));
	return slot < HIST_SLOTS ? slot : HIST_SLOTS - 1;
}

#endif
