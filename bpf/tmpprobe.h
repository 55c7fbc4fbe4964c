/* Types and numbers shared by the BPF programs and Go.
 *
 * Every number Go needs is an enumerator here, never a #define: bpf2go
 * -type turns each enum into typed Go constants (tmpprobe<Enum><NAME>), and
 * Go reads the stage, drop and off-CPU labels it prints from the
 * enumerators' names in the object's BTF (STAGE_BIO_WRITE is stage
 * "bio_write"), so nothing is kept twice. Count enumerators are NR_*,
 * outside their enum's prefix. */
#ifndef __TMPPROBE_H__
#define __TMPPROBE_H__

/* Latency histogram: log2 buckets split in 1 << HIST_SUB_BITS sub-buckets
 * (±12% resolution with 2 bits); slot = v below 1 << HIST_SUB_BITS, above
 * it (log2(v) - HIST_SUB_BITS + 1) << HIST_SUB_BITS | the next bits of v
 * (bits.bpf.h). 192 slots cover 1 ns .. 2^48 ns (3 days). */
enum hist_geometry {
	HIST_SUB_BITS = 2,
	HIST_SLOTS = 192,
};

/* Off-CPU label = state * NR_OFF_WAKERS + waker: why the thread left the
 * CPU (sched_switch prev_state) and who woke it (sched_waking). Both are a
 * byte of the thread's state (clang lets a C enum have a fixed type). */
enum off_state : __u8 {
	OFF_PREEMPTED, /* runnable */
	OFF_SLEEP,     /* TASK_INTERRUPTIBLE (S) */
	OFF_BLOCKED,   /* uninterruptible (D) */
	NR_OFF_STATES,
};

enum off_waker : __u8 {
	WAKER_NONE,
	WAKER_JBD2,
	WAKER_IRQ, /* irq or softirq context: a device completion */
	WAKER_KWORKER,
	WAKER_OTHER,
	NR_OFF_WAKERS,
};

/* off_ns[] length: a power of two, so a mask bounds the label for the
 * verifier. */
enum off_label {
	OFF_LABELS = 16,
};

_Static_assert(NR_OFF_STATES * NR_OFF_WAKERS <= OFF_LABELS, "off_ns[] too short");
_Static_assert((OFF_LABELS & (OFF_LABELS - 1)) == 0, "OFF_LABELS must be a power of two");

/* Syscall classes are syscall numbers, except these pseudo classes. */
enum pseudo_class {
	CLASS_OPENAT_TMPFILE = 1024, /* openat with O_TMPFILE */
	CLASS_OPENAT_CREATE = 1025,  /* openat with O_CREAT|O_EXCL */
	CLASS_USER = 1100,           /* outside any syscall (user space) */
	CLASS_REGION = 1101,         /* a marked region itself: entries, time inside */
};

/* Phases: the arms hand out 1, 2, …; a region a traced program marks
 * itself is REGION_FLAG | its own phase number. */
enum phase_flag {
	REGION_FLAG = 1 << 30,
};

/* Stage 0 is the syscall itself; others are inner stages or events seen
 * while the thread was inside that class. A stage's name is its
 * enumerator's, lower case, without STAGE_. 16 bits, as in the map key. */
enum stage : __u16 {
	STAGE_SYSCALL = 0,
	STAGE_PAGE_FAULT = 1, /* exceptions:page_fault_{user,kernel} */
	/* bios the thread queued itself (block_bio_queue runs in its context),
	 * by io_kind: write, read, discard, flush. */
	STAGE_BIO_WRITE = 2,
	STAGE_BIO_READ = 3,
	STAGE_BIO_DISCARD = 4,
	STAGE_BIO_FLUSH = 5, /* REQ_PREFLUSH or REQ_FUA, or a flush op */
	/* Requests on a watched device issued while the thread was in a
	 * syscall, by io_kind: total_ns is device time (block_rq_issue ..
	 * block_rq_complete). */
	STAGE_DEV_WRITE = 6,
	STAGE_DEV_READ = 7,
	STAGE_DEV_DISCARD = 8,
	STAGE_DEV_FLUSH = 9,
	STAGE_JBD2_COMMIT = 10, /* commits that ended while it was in a syscall */
	STAGE_JBD2_HANDLE = 11, /* journal handles it started */
	STAGE_EXT4_SYNC_FILE = 12,
	STAGE_EXT4_UNLINK = 13,
	STAGE_EXT4_EVICT_INODE = 14,
	STAGE_EXT4_FREE_INODE = 15,
	/* Flags of the bios the thread queued, counted besides their kind. */
	STAGE_BIO_SYNC = 16,
	STAGE_BIO_META = 17,
	STAGE_BIO_FUA = 18,
	/* ext4 inode allocation (ext4_request_inode .. ext4_allocate_inode):
	 * without a journal it skips every inode deleted in the last 60 s (360 s
	 * while its inode table block is dirty; fs/ext4/ialloc.c
	 * recently_deleted()). */
	STAGE_EXT4_NEW_INODE = 19,
	/* config.compare_task_state: switches out of the CPU where the state
	 * decides the off-CPU cause (not preempted), and those of them where
	 * the task's state, read in the tracepoint, says another cause than
	 * prev_state; its total_ns is their off-CPU time. */
	STAGE_TASK_STATE_READ = 20,
	STAGE_TASK_STATE_DIFFERS = 21,
	/* Kernel functions timed inside a syscall by the kprobe and fentry
	 * backends (backends.bpf.h), named as the function; from 32 on so
	 * tracepoint stages can grow below. */
	STAGE_DO_SYS_OPENAT2 = 32,
	STAGE_DO_UNLINKAT = 33,
	STAGE_VFS_UNLINK = 34,
	STAGE_VFS_FSYNC_RANGE = 35,
	STAGE_FILE_WRITE_AND_WAIT_RANGE = 36,
	STAGE_DO_LINKAT = 37,
	STAGE_VFS_LINK = 38,
	STAGE_DO_RENAMEAT2 = 39,
	STAGE_VFS_RENAME = 40,
	STAGE_ERRNO = 0x8000, /* | errno: failed calls by errno (trace --errors) */
};

/* io_kind() is added to these bases. */
_Static_assert(STAGE_BIO_READ == STAGE_BIO_WRITE + 1 && STAGE_BIO_DISCARD == STAGE_BIO_WRITE + 2 &&
	       STAGE_BIO_FLUSH == STAGE_BIO_WRITE + 3, "bio stages out of io_kind order");
_Static_assert(STAGE_DEV_READ == STAGE_DEV_WRITE + 1 && STAGE_DEV_DISCARD == STAGE_DEV_WRITE + 2 &&
	       STAGE_DEV_FLUSH == STAGE_DEV_WRITE + 3, "dev stages out of io_kind order");

/* ext4 stages timed between an enter and an exit tracepoint, each with a
 * start stamp in the thread's state. */
enum ext4_window {
	EXT4_WINDOW_SYNC_FILE,
	EXT4_WINDOW_UNLINK,
	EXT4_WINDOW_NEW_INODE,
	NR_EXT4_WINDOWS,
};

/* kprobe.multi attach cookies (backends.bpf.h): a syscall's nr, or
 * COOKIE_STAGE | a stage for a function timed inside a syscall. */
enum multi_cookie {
	COOKIE_STAGE = 1 << 16,
};

/* Drop reasons, counted rather than silently lost. */
enum drop_reason {
	DROP_NO_START,     /* sys_exit of an active thread with no sys_enter seen */
	DROP_NR_MISMATCH,  /* sys_exit for another nr than the recorded start */
	DROP_STATS_FULL,   /* stats and stats_spare full (or out of memory) */
	DROP_THREADS_FULL, /* thread map full: begin marker lost */
	DROP_NEIGHBOURS_FULL, /* neighbour map full: a neighbour's share lost */
	DROP_STACKS_FULL,  /* stack count map full: a stack's sample or call lost */
	DROP_STACK_RING_FULL, /* ring buffer full: a new stack or code object not sent */
	NR_DROP_REASONS,
};

/* The syscall numbers the BPF side names, spelled as the architecture's
 * asm/unistd.h __NR_*: SYSCALL_HOOKS(name) (backends.bpf.h) takes
 * NR_##name, and Go checks each against its own table of them (made from
 * the same headers, probe/sysnames_<arch>.go). arm64 has the generic
 * table: no open, unlink or rename, only their *at forms. */
#if defined(__TARGET_ARCH_arm64)
enum syscall_nr {
	NR_unlinkat = 35,
	NR_linkat = 37,
	NR_renameat = 38,
	NR_openat = 56,
	NR_lseek = 62,
	NR_fsync = 82,
	NR_fdatasync = 83,
	NR_renameat2 = 276,
};
#else
enum syscall_nr {
	NR_lseek = 8,
	NR_fsync = 74,
	NR_fdatasync = 75,
	NR_rename = 82,
	NR_unlink = 87,
	NR_openat = 257,
	NR_unlinkat = 263,
	NR_renameat = 264,
	NR_linkat = 265,
	NR_renameat2 = 316,
};
#endif

/* How much of each program runs (config.cut): all of it, or, to price its
 * parts (make bench), none (the floor: the same attach points, programs
 * that return at once; HOOK in tmpprobe.bpf.c), or in sys_enter and
 * sys_exit only finding the traced thread, or that and reading the clock. */
enum cost_cut : __u8 {
	CUT_NONE,
	CUT_ALL,
	CUT_AFTER_THREAD,
	CUT_AFTER_CLOCK,
};

/* Syscall nrs below this can be handed to a function backend. */
#define BACKEND_NR_MAX 512

/* Stacks (stacks.bpf.h, pyframes.bpf.h): their bounds. */
enum stack_bounds {
	/* Python frames kept per stack: past this the root end is dropped
	 * and the stack flagged truncated; the leaf, the code that ran or
	 * made the syscall, always stays. Deep import chains at start-up
	 * exceed 40. */
	MAX_PY_FRAMES = 64,
	/* Native frames of a stack map entry (bpf_get_stackid). */
	MAX_NATIVE_FRAMES = 64,
	/* Bytes read per Python frame in one bpf_probe_read_user: every
	 * member the walker needs (3.8's PyFrameObject.f_lasti ends at 108),
	 * little enough not to run past a small frame at the end of a
	 * mapped page. */
	FRAME_READ_MAX = 128,
	/* Bytes of a code object read to stamp it (3.13's co_qualname ends
	 * at 136). */
	CODE_READ_MAX = 256,
	/* The thread-state walk: interpreters, and threads of each. */
	MAX_INTERPS = 4,
	MAX_PY_THREADS = 128,
	/* What BPF copies of a code object at first sight. */
	CODE_NAME_MAX = 128,
	CODE_FILE_MAX = 256,
	CODE_TABLE_MAX = 2048,
	/* Classes config.stack_all covers: every syscall nr and the pseudo
	 * classes (openat[tmpfile] and openat[create] are 1024, 1025). */
	STACK_CLASS_BITS = 1088,
	/* A Python frame in a stack: the code object's address in its low
	 * CODE_ADDR_BITS (x86-64 and arm64 user addresses fit in 48), the
	 * instruction's index above. */
	CODE_ADDR_BITS = 48,
	/* A code record in the ring buffer starts with this, never a tgid. */
	CODE_REC_MAGIC = 0xC0DE0039,
	/* So does an exec record; EXEC_PATH_MAX bytes of its file's name. */
	EXEC_REC_MAGIC = 0xE8EC0039,
	EXEC_PATH_MAX = 256,
};

/* How a PyThreadState is matched to the thread a stack is taken on. */
enum tstate_match {
	/* tstate->native_thread_id == the kernel tid (3.11+) */
	MATCH_NATIVE_TID = 0,
	/* tstate->thread_id == pthread_self(), which on x86-64 glibc and
	 * musl is the thread pointer, task->thread.fsbase (3.8-3.10) */
	MATCH_PTHREAD_SELF = 1,
};

/* Where CPython keeps what the walker reads, for one process: addresses
 * from its ELF symbols and load bias, offsets from the interpreter's
 * headers (pyinterp/offsets) or, for 3.13, its _Py_DebugOffsets. */
struct py_layout {
	__u64 runtime_addr; /* &_PyRuntime in the process */
	__u32 runtime_interpreters_head;
	__u32 interp_next;
	__u32 interp_threads_head;
	__u32 tstate_next;
	__u32 tstate_match_off;
	__u32 tstate_match_kind; /* enum tstate_match */
	__u32 tstate_frame;
	__u32 cframe_current_frame;
	__u32 frame_previous;
	__u32 frame_code;
	__u32 frame_instr;
	__u32 frame_owner;
	__u32 frame_read_size; /* <= FRAME_READ_MAX */
	__u32 code_adaptive; /* offsetof(PyCodeObject, co_code_adaptive), 3.11+ */
	__u64 code_type_addr; /* &PyCode_Type, to stamp a new stack's code objects */
	__u32 code_read_size; /* <= CODE_READ_MAX */
	__u32 object_type;
	__u32 code_name; /* co_qualname where it exists, else co_name */
	__u32 code_filename;
	__u32 code_firstlineno;
	__u32 code_linetable; /* co_lnotab (3.8, 3.9) or co_linetable */
	__u32 varobject_size; /* PyVarObject.ob_size: a bytes' length, 3.11+ code's units */
	__u32 bytes_sval;
	__u32 unicode_length;
	__u32 unicode_state;
	__u32 unicode_ascii_size; /* where a compact ASCII str's characters start */
	__u32 unicode_compact_size; /* ... and a compact non-ASCII one's */
	__u8 code_size_is_units; /* 3.11+ */
	__u8 minor; /* 3.<minor>, for user space (the line table's format) */
	__u8 tstate_frame_is_cframe; /* 3.11, 3.12: tstate->cframe->current_frame */
	__u8 frame_is_interp; /* 3.11+: _PyInterpreterFrame, instr is a pointer */
	__u8 owner_cstack; /* FRAME_OWNED_BY_CSTACK (3.12+), else 255 */
	__u8 lasti_shift; /* 3.8, 3.9: f_lasti counts bytes: >> 1 to code units */
	__u8 pad[2];
};

/* A layout with file vaddrs where addresses go, and the vaddr of the
 * function its uprobe is on: the uprobe's ip minus entry_vaddr, rounded
 * down to a page, is the load bias (on_py_start). */
struct py_template {
	struct py_layout l;
	__u64 entry_vaddr;
};

enum stack_flag {
	SF_TRUNCATED = 1, /* more Python frames than MAX_PY_FRAMES */
	SF_NO_TSTATE = 2, /* no PyThreadState for this thread (yet) */
	SF_READ_ERR = 4,  /* a frame could not be read */
	SF_NO_FRAME = 8,  /* thread state found, no Python frame running */
	SF_PYTHON = 16,   /* the process has a CPython layout */
	SF_NATIVE = 32,   /* native_id is a stack map id */
};

/* One stack as taken. frames[i] is a code object's address in the low
 * CODE_ADDR_BITS and its instruction's index in code units (at most
 * 0xffff) in the high 16, leaf first; entries past nframes are stale. */
struct stack_key {
	__u32 tgid;
	__s32 native_id; /* stack map id of the native user stack, or -1 */
	__u16 nframes;
	__u16 flags; /* enum stack_flag */
	__u32 pad;
	__u64 leaf_ret; /* at a syscall: the leaf's caller (leaf_return) */
	__u64 hash; /* of everything above and frames[0..nframes) */
	__u64 frames[MAX_PY_FRAMES];
	/* Filled when the stack is first taken, not hashed: what each code
	 * object was then (stamp_step), 0 if it was none. */
	__u32 stamps[MAX_PY_FRAMES];
};

/* What a phase's stacks are counted by: a 64-bit hash of the stack
 * rather than the stack itself, whose hashing and comparing cost more
 * than the walk of a short stack (proto39's measurements). */
struct stack_count_key {
	__u32 phase;
	__u16 class; /* a syscall class, or CLASS_USER for CPU samples */
	__u16 pad;
	__u64 hash;
};

struct stack_count {
	/* CPU samples, or calls whose stack was taken */
	__u64 count;
	/* CPU samples: the sum of the periods they stand for; syscalls:
	 * the calls' time, and their time off the CPU */
	__u64 ns;
	__u64 off_ns;
};

/* What a code object was when a stack holding it was first taken,
 * copied by BPF into the ring buffer: user space names frames from it
 * even after the object (or the process) is gone. Strings and line
 * tables longer than the copy are told by their full lengths. */
struct code_rec {
	__u32 magic; /* CODE_REC_MAGIC */
	__u32 tgid;
	__u64 addr;
	__u32 stamp;
	__s32 firstlineno;
	__u32 units; /* 3.11+: code units (Py_SIZE), else 0 */
	__u32 name_len; /* characters in the str */
	__u32 file_len;
	__u32 table_len; /* bytes in the line table */
	__u8 name_kind; /* bytes per character: 1, 2, 4; 0: not read */
	__u8 file_kind;
	__u8 minor; /* 3.<minor>: the line table's format */
	__u8 pad[5];
	__u8 name[CODE_NAME_MAX];
	__u8 file[CODE_FILE_MAX];
	__u8 table[CODE_TABLE_MAX];
};

/* A traced process's exec, sent where stacks are taken: the program's
 * text (mm's start_code and end_code, load bias included) and file, by
 * which user space names its stacks after it has exited (its mappings
 * in /proc go with it, and a short program's stacks are often named
 * later), and past which nothing learnt of the process still holds. */
struct exec_rec {
	__u32 magic; /* EXEC_REC_MAGIC */
	__u32 tgid;
	__u64 start_code;
	__u64 end_code;
	__u64 ino; /* the executable's inode and device (the kernel's dev_t) */
	__u32 dev;
	__u32 pad;
	__u8 path[EXEC_PATH_MAX]; /* as exec was given it: may be relative */
};

/* (tgid, address, stamp) of a code object already sent. */
struct code_seen {
	__u32 tgid;
	__u32 stamp;
	__u64 addr;
};

/* What the stack programs did, counted per CPU (probe's tests and -v). */
enum stack_stat {
	STACK_STAT_SAMPLES,       /* CPU samples of followed threads in user mode */
	STACK_STAT_SYSCALLS,      /* syscall stacks taken */
	STACK_STAT_TSTATE_CACHED, /* thread state from the per-tid cache */
	STACK_STAT_TSTATE_WALKED, /* thread state found by walking the runtime */
	STACK_STAT_TSTATE_MISSING,
	STACK_STAT_READ_ERR,
	STACK_STAT_TRUNCATED,
	STACK_STAT_NEW_STACKS,
	STACK_STAT_NATIVE_ERR,    /* bpf_get_stackid failed */
	STACK_STAT_NOT_CODE,      /* a new stack's frame held no code object */
	STACK_STAT_CODES_SENT,
	STACK_STAT_LAYOUT_UPROBE, /* layouts installed by on_py_start */
	STACK_STAT_LAYOUT_FORK,   /* layouts a child process inherited */
	NR_STACK_STATS,
};

/* Set by the loader before load, as the one read-only global `config`. */
struct config {
	/* A random 63-bit value per run, so another process (or a second
	 * tmpprobe) cannot start or stop our regions. */
	__u64 cookie;
	/* trace --cgroup: threads of this cgroup (v2 id) are traced in phase
	 * trace_phase without markers. 0 = off, and the verifier drops the
	 * code. */
	__u64 target_cgroup;
	/* Syscall nrs timed by the kprobe or fentry backend's own hooks (bit
	 * nr). sys_enter/sys_exit skip them, so no call counts twice. */
	__u64 backend_syscalls[BACKEND_NR_MAX / 64];
	__u32 trace_phase;
	/* trace -- CMD: tmpprobe's launcher is traced in launch_phase until it
	 * execs the command, so its own (Go runtime) syscalls are kept apart. */
	__u32 launch_phase;
	bool count_errnos;  /* trace --errors: count failed calls per errno as stages */
	bool match_any_dev; /* match traced I/O on every block device; neighbours stay on watched_devs */
	bool count_neighbours; /* who else took the CPU and the disk (struct neighbour_key) */
	/* Also read each switched-out thread's state from the task, as the
	 * sched_switch_task programs do on kernels before v5.18, and count
	 * where it disagrees with prev_state (STAGE_TASK_STATE_*). */
	bool compare_task_state;
	enum cost_cut cut; /* make bench: how much of each program runs */
	/* Stacks (stacks.bpf.h) are taken: the sys_enter/sys_exit programs
	 * that take them are loaded, and the layouts of Python processes
	 * are kept through fork, exec and exit. */
	bool stacks;
	/* Where no Python layout names the frames: 0 no native stack, 1 a
	 * native stack where the process has no layout, 2 always. */
	__u8 stack_native;
	/* A syscall class's stack is taken at every call where its bit is
	 * set in stack_all (classes are syscall nrs and enum pseudo_class),
	 * else at one call in stack_every, drawn at random, where its bit is
	 * set in stack_some or stack_some_any is (0: none). */
	bool stack_some_any;
	__u32 stack_every;
	__u32 pad_every;
	__u64 stack_all[STACK_CLASS_BITS / 64];
	__u64 stack_some[STACK_CLASS_BITS / 64];
};

struct class_key {
	__u32 phase;
	__u16 class; /* a syscall nr or an enum pseudo_class */
	enum stage stage;
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

/* Neighbours: who else used what a traced batch needs. CPU: the task
 * that took the CPU from a worker preempted while runnable, charged the
 * worker's whole run-queue wait (the next task at the preemption; others
 * that ran before the worker got a CPU back are not told apart). Disk: a
 * request on a device of watched_devs (with match_any_dev too) started
 * (block_io_start, in the submitter's context) by a task that is not
 * traced, its device time issue .. complete. Kernel threads' requests while the worker is inside a syscall
 * are left to that syscall (its journal commit, its writeback); outside
 * one they are writeback for someone else. */
enum neighbour_kind : __u8 {
	NEIGHBOUR_CPU,
	NEIGHBOUR_DISK,
	NR_NEIGHBOUR_KINDS,
};

struct neighbour_key {
	__u32 phase;
	__u32 pid; /* tgid: the process */
	__u64 cgroup; /* cgroup v2 id */
	char comm[16];
	enum neighbour_kind kind;
	__u8 kthread;
	__u8 pad[6];
};

struct neighbour_stats {
	__u64 count; /* CPU: preemptions of a worker; disk: requests */
	__u64 ns;    /* CPU: the worker's run-queue wait; disk: device time */
	__u64 bytes; /* disk */
};

/* When the want-th exec in a cgroup happened (bpf_ktime_get_ns, that is
 * CLOCK_MONOTONIC), the value of the exec_clocks map by cgroup id: where
 * compare's runs start their clock (follow.ExecClock). Go writes want and
 * zeroes the rest before the run starts in its cgroup. */
struct exec_clock {
	__u64 ns;
	__u32 want;
	__u32 execs;
};

/* A traced thread, the value of the threads map (by tid). The BPF side
 * keeps it from a begin marker on; Go writes it for the threads that
 * trace -- CMD, --pid and --tid follow from the start (probe.TrackThreads). */
struct thread_state {
	__u32 phase;
	__u32 nr;         /* syscall in progress; valid when in_syscall */
	__u16 class;
	__u8 in_syscall;
	__u8 in_marker;   /* skip the next sys_exit: a marker's own, or the first
			   * of a thread adopted mid-syscall or just forked */
	enum off_state off_state; /* why it was switched out */
	enum off_waker waker;     /* who woke it */
	__u8 off_user;    /* switched out in user space, not in a syscall */
	/* The first loop device this syscall's I/O reached (kernel dev_t), 0
	 * for none: the top of its stack of loop devices. */
	__u32 top_loop;
	__u64 enter_ns;
	__u64 off_since;  /* switched out inside a syscall at; 0 = on CPU */
	__u64 window_ns[NR_EXT4_WINDOWS]; /* inside that ext4 stage since; 0 = not */
	/* Traced as a whole (trace --pid/--cgroup/-- CMD): the phase to return
	 * to when a marked region ends; 0 for arms, whose entry goes at the end
	 * marker. follow: children are traced too, not just threads. */
	__u32 base_phase;
	__u8 follow;
	__u8 state_differs; /* compare_task_state: this switch-out's states disagreed */
	/* Followed while blocked inside a syscall (trace --pid, --tid): until
	 * that call returns, its time is neither user time nor ours to count
	 * (Go read the call from /proc/TID/syscall and notes it). */
	__u8 in_flight;
	__u8 pad2;
	__u64 region_start;
	__u32 preempt_cpu; /* where it was last preempted (cpu_slots) */
	__u32 tid;         /* whose state this is (thread_of checks it) */
	/* On a CPU in user mode since (bpf_ktime_get_ns); 0 = not, or not
	 * known. Stamped where the thread returns to user space: a syscall's
	 * exit, a switch back onto a CPU outside a syscall, being followed
	 * while running (Go, TrackThreads). */
	__u64 user_since;
	/* The stack taken at this syscall's entry (0: none), whose count
	 * gets the call's time and call_off_ns at its exit. */
	__u64 stack_hash;
	__u64 call_off_ns; /* this call's time off the CPU so far */
	__u16 stack_class;
	__u8 pad4[6];
	/* User time measured and not yet added to its phase's user record
	 * (user_time_flush): a syscall's entry adds here, not to the map. */
	__u64 user_pending;
	/* A switch onto a CPU the kernel did not report (switch_unseen):
	 * the task's run time (se.sum_exec_runtime) at its last switch off,
	 * and, from when a hook in its own context found it running while
	 * off_since said it was not, when it had left and in which phase
	 * and class (a syscall or a marker since may change them; off_user,
	 * off_state and waker hold until its next switch off). */
	__u64 out_runtime;
	__u64 unseen_at;
	__u64 unseen_out;
	__u32 unseen_phase;
	__u16 unseen_class;
	__u8 pad5[2];
};

#endif
