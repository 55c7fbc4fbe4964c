//go:build linux

package probe

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		class  Class
		reason string
	}{
		{"nil", nil, ClassYes, ""},
		{"cilium not supported", fmt.Errorf("attach: %w", ebpf.ErrNotSupported), ClassNotSupported, "not supported: attach: not supported"},
		{"kernel fact", fmt.Errorf("attach kprobe x: %w", notSupported("no kprobe PMU")), ClassNotSupported, "not supported: attach kprobe x: no kprobe PMU"},
		{"EPERM with cilium's memlock hint", fmt.Errorf("load program: %w"+memlockHint, unix.EPERM), ClassPermission, "permission refused: load program: operation not permitted"},
		{"EACCES", fmt.Errorf("load: %w", unix.EACCES), ClassPermission, "permission refused: load: permission denied"},
		{"os.ErrPermission", &os.PathError{Op: "open", Path: "/sys/kernel/btf/vmlinux", Err: os.ErrPermission}, ClassPermission, "permission refused: open /sys/kernel/btf/vmlinux: permission denied"},
		{"anything else is inconclusive", errors.New("invalid argument\nverifier log"), ClassOther, "other: invalid argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c := Classify(tc.err); c != tc.class {
				t.Errorf("class %q, want %q", c, tc.class)
			}
			if r := Reason(tc.err); r != tc.reason {
				t.Errorf("reason %q, want %q", r, tc.reason)
			}
		})
	}
}
