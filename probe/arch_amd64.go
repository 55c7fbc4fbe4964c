//go:build linux

package probe

// syscallPrefix names the syscall table's entries: since v4.17 (commit
// fa697140f9a2) x86-64 calls __x64_sys_X(const struct pt_regs *), which is
// what the BPF side reads the arguments from.
const syscallPrefix = "__x64_sys_"

// archName is how messages name this architecture.
const archName = "x86-64"

// ObjectFile is the committed BPF object bpf2go built for this
// architecture and embedded in the binary.
const ObjectFile = "tmpprobe_x86_bpfel.o"
