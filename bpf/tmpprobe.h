/* Types shared by the BPF programs and Go (bpf2go -type). */
#ifndef __TMPPROBE_H__
#define __TMPPROBE_H__

/* Latency histogram: log2 buckets split in 4 sub-buckets (±12% resolution),
 * slot = v for v < 4, else 4*(log2(v)-1) + next two bits. 192 slots cover
 * 1 ns .. 2^48 ns (3 days). */
#define HIST_SUB_BITS 2
#define HIST_SLOTS 192

/* Off-CPU label = state * OFF_WAKERS + waker. */
#define OFF_STATES 3 /* 0 preempted (runnable), 1 sleeping (S), 2 blocked (D) */
#define OFF_WAKERS 5 /* 0 none, 1 jbd2, 2 irq/softirq, 3 kworker, 4 other */
#define OFF_LABELS 16

/* Syscall classes are syscall numbers, except these pseudo classes. */
#define CLASS_OPENAT_TMPFILE 1024 /* openat with O_TMPFILE */
#define CLASS_OPENAT_CREATE 1025  /* openat with O_CREAT|O_EXCL */
#define CLASS_USER 1100           /* outside any syscall (user space) */
#define CLASS_REGION 1101         /* a marked region itself: entries, time inside */

/* Phases: the arms hand out 1, 2, …; a region a traced program marks
 * itself is REGION_FLAG | its own phase number. */
#define REGION_FLAG (1U << 30)

/* Stage 0 is the syscall itself; others are inner stages or events seen
 * while the thread was inside that class. */
#define STAGE_SYSCALL 0
#define STAGE_PAGE_FAULT 1 /* exceptions:page_fault_{user,kernel} */
/* bios the thread queued itself (block_bio_queue runs in its context). */
#define STAGE_BIO_WRITE 2
#define STAGE_BIO_READ 3
#define STAGE_BIO_DISCARD 4
#define STAGE_BIO_FLUSH 5 /* REQ_PREFLUSH or REQ_FUA, or a flush op */
/* Requests on a watched device issued while the thread was in a syscall:
 * total_ns is device time (block_rq_issue .. block_rq_complete). */
#define STAGE_DEV_WRITE 6
#define STAGE_DEV_READ 7
#define STAGE_DEV_DISCARD 8
#define STAGE_DEV_FLUSH 9
#define STAGE_JBD2_COMMIT 10 /* commits that ended while it was in a syscall */
#define STAGE_JBD2_HANDLE 11 /* journal handles it started */
#define STAGE_EXT4_SYNC_FILE 12
#define STAGE_EXT4_UNLINK 13
#define STAGE_EXT4_EVICT_INODE 14
#define STAGE_EXT4_FREE_INODE 15
/* Flags of the bios the thread queued, counted besides their kind. */
#define STAGE_BIO_SYNC 16
#define STAGE_BIO_META 17
#define STAGE_BIO_FUA 18
/* ext4 inode allocation (ext4_request_inode .. ext4_allocate_inode): without
 * a journal it skips every inode deleted in the last 60 s (360 s while its
 * inode table block is dirty; fs/ext4/ialloc.c recently_deleted()). */
#define STAGE_EXT4_NEW_INODE 19
/* 32 and up: stages of the kprobe/fentry backends. */
#define STAGE_ERRNO 0x8000 /* | errno: failed calls by errno (trace --errors) */

/* Kernel functions timed inside a syscall by the kprobe and fentry backends
 * (bpf/backends.bpf.h); from 32 on so tracepoint stages can grow below. */
#define STAGE_DO_SYS_OPENAT2 32
#define STAGE_DO_UNLINKAT 33
#define STAGE_VFS_UNLINK 34
#define STAGE_VFS_FSYNC_RANGE 35
#define STAGE_FILE_WRITE_AND_WAIT_RANGE 36
#define STAGE_DO_LINKAT 37
#define STAGE_VFS_LINK 38
#define STAGE_DO_RENAMEAT2 39
#define STAGE_VFS_RENAME 40

/* ext4 stages timed between an enter and an exit tracepoint, each with a
 * start stamp in the thread's state. */
#define EXT4_WINDOW_SYNC_FILE 0
#define EXT4_WINDOW_UNLINK 1
#define EXT4_WINDOW_NEW_INODE 2
#define EXT4_WINDOWS 3

/* kprobe.multi attach cookies (bpf/backends.bpf.h): a syscall's nr, or
 * COOKIE_STAGE | a stage above for a function timed inside a syscall. */
#define COOKIE_STAGE (1U << 16)

/* Drop reasons, counted rather than silently lost. */
#define DROP_NO_START 0     /* sys_exit of an active thread with no sys_enter seen */
#define DROP_NR_MISMATCH 1  /* sys_exit for another nr than the recorded start */
#define DROP_STATS_FULL 2   /* stats map full */
#define DROP_THREADS_FULL 3 /* thread map full: begin marker lost */
#define DROP_REASONS 4

struct class_key {
	__u32 phase;
	__u16 class;
	__u16 stage;
};

struct class_stats {
	__u64 calls;
	__u64 errors;
	__u64 total_ns;
	__u64 offcpu_ns;
	__u64 bytes;
	__u64 off_ns[OFF_LABELS];
	__u32 hist[HIST_SLOTS];
};

#endif
