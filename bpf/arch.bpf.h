/* Where each architecture keeps a syscall's number, arguments and return
 * value (struct pt_regs in headers/vmlinux_min.h). The syscall's own
 * registers: sys_enter/sys_exit get the user's pt_regs, and so do the
 * syscall wrappers the function backends hook (__x64_sys_X, __arm64_sys_X,
 * each taking const struct pt_regs *). A probed function's own: the
 * kprobe's pt_regs. */
#ifndef __ARCH_BPF_H__
#define __ARCH_BPF_H__

#if defined(__TARGET_ARCH_arm64)
/* x0..x2 hold the first arguments until the syscall returns (invoke_syscall
 * then stores the return value in x0); syscallno is an int, -1
 * (NO_SYSCALL) after rt_sigreturn, like x86's orig_ax. */
#define SYSCALL_ARG0(regs) BPF_CORE_READ(regs, regs[0])
#define SYSCALL_ARG1(regs) BPF_CORE_READ(regs, regs[1])
#define SYSCALL_ARG2(regs) BPF_CORE_READ(regs, regs[2])
#define SYSCALL_NR(regs) ((long)BPF_CORE_READ(regs, syscallno))
#define SYSCALL_NR_BTF(regs) ((long)(regs)->syscallno)
#define KPROBE_ARG0(ctx) ((ctx)->regs[0])
#define KPROBE_RET(ctx) ((ctx)->regs[0])
/* Stacks: the user's stack pointer at a syscall; the TLS base, which is
 * not pthread_self() on arm64 (glibc puts struct pthread below it), so
 * CPython 3.8-3.10's thread states match no thread there; a CPU sample
 * taken in user mode (EL0t). */
#define USER_SP(regs) BPF_CORE_READ(regs, sp)
#define TLS_BASE(task) BPF_CORE_READ(task, thread.uw.tp_value)
#define UPROBE_IP(regs) BPF_CORE_READ(regs, pc)
#define PERF_IN_USER_MODE(ctx) (((ctx)->regs.pstate & 0xf) == 0)
/* arm64's open flags are the generic ones but for these (asm/fcntl.h). */
#define O_DIRECTORY 040000
#else
#define SYSCALL_ARG0(regs) BPF_CORE_READ(regs, di)
#define SYSCALL_ARG1(regs) BPF_CORE_READ(regs, si)
#define SYSCALL_ARG2(regs) BPF_CORE_READ(regs, dx)
#define SYSCALL_NR(regs) ((long)BPF_CORE_READ(regs, orig_ax))
#define SYSCALL_NR_BTF(regs) ((long)(regs)->orig_ax)
#define KPROBE_ARG0(ctx) ((ctx)->di)
#define KPROBE_RET(ctx) ((ctx)->ax)
#define USER_SP(regs) BPF_CORE_READ(regs, sp)
#define TLS_BASE(task) BPF_CORE_READ(task, thread.fsbase)
#define UPROBE_IP(regs) BPF_CORE_READ(regs, ip)
/* CPL 3 */
#define PERF_IN_USER_MODE(ctx) (((ctx)->regs.cs & 3) == 3)
#define O_DIRECTORY 0200000
#endif

#endif
