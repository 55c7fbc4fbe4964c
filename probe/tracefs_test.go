//go:build linux

package probe

import (
	"os"
	"strings"
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

// The jbd2 commit events' records, as 5.10 and 6.18 format them, have the
// device where the classic programs read it; another layout is refused.
func TestCheckDevField(t *testing.T) {
	format := "name: jbd2_start_commit\nID: 1045\nformat:\n\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" +
		"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n" +
		"\tfield:char sync_commit;\toffset:12;\tsize:1;\tsigned:1;\n"
	if err := checkDevField(format); err != nil {
		t.Errorf("5.10's format: %v", err)
	}
	moved := strings.Replace(format, "dev_t dev;\toffset:8", "dev_t dev;\toffset:16", 1)
	if err := checkDevField(moved); err == nil || !strings.Contains(err.Error(), "offset:16") {
		t.Errorf("dev at 16: %v", err)
	}
	if err := checkDevField("format:\n\tfield:int x;\toffset:8;\tsize:4;\n"); err == nil {
		t.Error("no dev field: accepted")
	}
}
