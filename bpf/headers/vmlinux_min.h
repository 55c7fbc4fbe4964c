/* The few kernel types tmpprobe reads, declared for CO-RE: with
 * preserve_access_index every field offset is relocated against the running
 * kernel's BTF at load time, so these need only name the fields we touch,
 * not mirror the kernel's layout. */
#ifndef __VMLINUX_MIN_H__
#define __VMLINUX_MIN_H__

typedef unsigned char __u8;
typedef unsigned short __u16;
typedef unsigned int __u32;
typedef unsigned long long __u64;
typedef signed char __s8;
typedef short __s16;
typedef int __s32;
typedef long long __s64;
typedef __u16 __be16;
typedef __u32 __be32;
typedef __u32 __wsum;
typedef _Bool bool;
typedef __u32 dev_t;
typedef __u32 blk_opf_t;
typedef __u64 sector_t;
enum { false = 0, true = 1 };

enum bpf_map_type {
	BPF_MAP_TYPE_HASH = 1,
	BPF_MAP_TYPE_ARRAY = 2,
	BPF_MAP_TYPE_PERCPU_HASH = 5,
	BPF_MAP_TYPE_PERCPU_ARRAY = 6,
	BPF_MAP_TYPE_STACK_TRACE = 7,
	BPF_MAP_TYPE_LRU_HASH = 9,
	BPF_MAP_TYPE_RINGBUF = 27,
};
enum { BPF_ANY = 0, BPF_NOEXIST = 1, BPF_EXIST = 2 };
enum { BPF_F_NO_PREALLOC = 1 };
enum { BPF_F_USER_STACK = 256 };

/* The perf_event program's context is uapi, a fixed layout: no
 * relocation. Its registers are bpf_user_pt_regs_t, the architecture's
 * uapi pt_regs (x86-64) or user_pt_regs (arm64). */
#if defined(__TARGET_ARCH_arm64)
struct perf_user_regs {
	__u64 regs[31];
	__u64 sp;
	__u64 pc;
	__u64 pstate;
};
#else
struct perf_user_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
};
#endif
struct bpf_perf_event_data {
	struct perf_user_regs regs;
	__u64 sample_period;
	__u64 addr;
};

#pragma clang attribute push (__attribute__((preserve_access_index)), apply_to = record)

/* The registers a syscall entered with, and a probed function's. Named
 * per architecture; bpf2go -target defines __TARGET_ARCH_<arch>. */
#if defined(__TARGET_ARCH_arm64)
/* The kernel nests regs..pstate in an anonymous union with struct
 * user_pt_regs; CO-RE finds a field through anonymous members. */
struct pt_regs {
	unsigned long regs[31];
	unsigned long sp;
	unsigned long pc;
	unsigned long pstate;
	unsigned long orig_x0;
	int syscallno;
};

/* The TLS base (TPIDR_EL0). */
struct thread_struct {
	struct {
		unsigned long tp_value;
	} uw;
};
#elif defined(__TARGET_ARCH_x86)
struct pt_regs {
	unsigned long r10;
	unsigned long r8;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ax;
	unsigned long ip;
	unsigned long sp;
};

/* The TLS base: glibc's and musl's pthread_self(). */
struct thread_struct {
	unsigned long fsbase;
};
#else
#error "tmpprobe's BPF side is built for x86 or arm64 (bpf2go -target amd64,arm64)"
#endif

struct kernfs_node {
	__u64 id;
};

struct cgroup {
	struct kernfs_node *kn;
};

struct css_set {
	struct cgroup *dfl_cgrp;
};

struct sched_entity {
	__u64 sum_exec_runtime;
};

struct task_struct {
	struct sched_entity se;
	int pid;
	int tgid;
	unsigned int flags;
	unsigned int __state; /* v5.14 on */
	char comm[16];
	struct css_set *cgroups;
	struct mm_struct *mm;
	struct thread_struct thread;
};

/* Before v5.14 (commit 2f064a59a11f), the state was a long named state. */
struct task_struct___state_long {
	long state;
};

struct block_device {
	dev_t bd_dev;
};

struct bvec_iter {
	sector_t bi_sector;
	unsigned int bi_size;
};

struct bio {
	struct block_device *bi_bdev;
	blk_opf_t bi_opf;
	struct bvec_iter bi_iter;
};

struct gendisk {
	struct block_device *part0;
};

struct request_queue {
	struct gendisk *disk;
};

struct request {
	struct request_queue *q;
	struct block_device *part;
	blk_opf_t cmd_flags;
	unsigned int __data_len;
};

/* Before v5.11 (commit 0d02129e76ed merged it into struct block_device), a
 * request's partition was a struct hd_struct, its disk rq_disk, and the
 * disk's dev_t its major and first minor. */
struct device {
	dev_t devt;
};

struct hd_struct {
	struct device __dev;
};

struct gendisk___old {
	int major;
	int first_minor;
};

struct request___old {
	struct hd_struct *part;
	struct gendisk___old *rq_disk;
};

struct journal_s {
	struct block_device *j_fs_dev;
};
typedef struct journal_s journal_t;

struct super_block {
	dev_t s_dev;
};

struct inode {
	struct super_block *i_sb;
	unsigned long i_ino;
};

struct file {
	struct inode *f_inode;
};

struct mm_struct {
	unsigned long start_code;
	unsigned long end_code;
	struct file *exe_file;
};

struct linux_binprm {
	const char *filename;
};

/* Values are placeholders: bpf_core_enum_value() relocates them against
 * the running kernel (the flag bits moved across releases). */
enum req_flag_bits {
	__REQ_FAILFAST_DEV = 8,
	__REQ_SYNC = 11,
	__REQ_META = 12,
	__REQ_FUA = 17,
	__REQ_PREFLUSH = 18,
};

#pragma clang attribute pop

#endif
