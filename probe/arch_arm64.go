//go:build linux

package probe

// syscallPrefix names the syscall table's entries: since v4.19 (commit
// 4378a7d4be30) arm64 calls __arm64_sys_X(const struct pt_regs *), which
// is what the BPF side reads the arguments from.
const syscallPrefix = "__arm64_sys_"

// archName is how messages name this architecture.
const archName = "arm64"

// ObjectFile is the committed BPF object bpf2go built for this
// architecture and embedded in the binary.
const ObjectFile = "tmpprobe_arm64_bpfel.o"
