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
	BPF_MAP_TYPE_LRU_HASH = 9,
};
enum { BPF_ANY = 0, BPF_NOEXIST = 1, BPF_EXIST = 2 };
enum { BPF_F_NO_PREALLOC = 1 };

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
#elif defined(__TARGET_ARCH_x86)
struct pt_regs {
	unsigned long r10;
	unsigned long r8;
	unsigned long dx;
	unsigned long si;
	unsigned long di;
	unsigned long orig_ax;
	unsigned long ax;
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

struct task_struct {
	int pid;
	int tgid;
	unsigned int flags;
	unsigned int __state; /* v5.14 on */
	char comm[16];
	struct css_set *cgroups;
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
