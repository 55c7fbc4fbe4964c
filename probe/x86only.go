//go:build !amd64

package probe

// tmpprobe is x86-64 only, and this file makes any other GOARCH fail to
// build with the line below, before anything compiles (an embed pattern
// matching no file is a package load error, so `go build ./...` stops at
// it instead of listing the undefined names the x86-64-only files leave).
// Why x86-64: the BPF programs read the syscall's registers from x86-64's
// struct pt_regs (di, si, dx, orig_ax, ax), hook the __x64_sys_* wrappers,
// and compare x86-64 syscall numbers; arms/ issues unlink and rename,
// which arm64 does not have. An arm64 port needs its own reads, hook
// names and numbers (bpf2go -target arm64), and a QEMU test to prove it.

import _ "embed"

//go:embed "tmpprobe builds for x86-64 only (GOARCH=amd64), see README.md"
var x86only string
