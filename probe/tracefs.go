//go:build linux

package probe

import (
	"fmt"
	"os"
	"strings"

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

// checkClassicRecord checks that a classic tracepoint's record has the
// layout its program reads (bpf/journal.bpf.h, struct
// jbd2_commit_record): the event's dev_t dev at offset 8, after the
// common header, as its tracefs format file says.
func checkClassicRecord(group, name string) error {
	dir := tracefsDir()
	if dir == "" {
		return notSupported("tracefs is not mounted")
	}
	b, err := os.ReadFile(fmt.Sprintf("%s/events/%s/%s/format", dir, group, name))
	if err != nil {
		return err
	}
	return checkDevField(string(b))
}

// checkDevField finds "field:dev_t dev;	offset:8;	size:4;" in a format.
func checkDevField(format string) error {
	for _, line := range strings.Split(format, "\n") {
		f := strings.Split(strings.TrimSpace(line), ";")
		if len(f) >= 3 && strings.TrimSpace(f[0]) == "field:dev_t dev" {
			if strings.TrimSpace(f[1]) == "offset:8" && strings.TrimSpace(f[2]) == "size:4" {
				return nil
			}
			return notSupported(fmt.Sprintf("its dev field is at %s, %s, not offset:8, size:4", strings.TrimSpace(f[1]), strings.TrimSpace(f[2])))
		}
	}
	return notSupported("its record has no dev_t dev field")
}
