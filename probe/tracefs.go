//go:build linux

package probe

import (
	"golang.org/x/sys/unix"
)

const tracefsMount = "/sys/kernel/tracing"

// mountTracefs mounts tracefs where the kernel expects it when nothing
// provides it yet: the kprobe fallback (kprobe_events, when the kernel has
// no kprobe PMU) and classic tracepoints need it; tp_btf and raw_tp do not.
// The returned func unmounts it again if, and only if, this call mounted it.
func mountTracefs() (unmount func()) {
	if tracefsDir() != "" {
		return func() {}
	}
	if err := unix.Mount("tracefs", tracefsMount, "tracefs", 0, ""); err != nil {
		return func() {} // the hooks that need it will say why they fail
	}
	return func() { unix.Unmount(tracefsMount, 0) }
}
