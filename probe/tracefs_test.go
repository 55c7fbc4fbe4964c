//go:build linux

package probe

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

func tracefsMounted() bool {
	var st unix.Statfs_t
	return unix.Statfs(tracefsMount, &st) == nil && st.Type == unix.TRACEFS_MAGIC
}

// check mounts tracefs for the hooks that need it and unmounts it after,
// leaving the system as it found it.
func TestTracefsMountedOnDemand(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	if tracefsMounted() {
		if err := unix.Unmount(tracefsMount, 0); err != nil {
			t.Skipf("tracefs is in use here, cannot test mounting it: %v", err)
		}
		defer unix.Mount("tracefs", tracefsMount, "tracefs", 0, "")
	}
	if tracefsDir() != "" {
		t.Skip("tracefs reachable through debugfs: nothing to mount")
	}
	r := Check()
	for _, row := range r.env {
		if row.Name == "tracefs" && !row.ok() {
			t.Errorf("check saw no tracefs while it had it mounted: %s", row.Why)
		}
	}
	if tracefsMounted() {
		t.Error("tracefs still mounted after check")
	}
}
