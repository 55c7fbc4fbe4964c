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
		name    string
		err     error
		verdict Verdict
		reason  string
	}{
		{"nil", nil, VerdictYes, ""},
		{"cilium not supported", fmt.Errorf("attach: %w", ebpf.ErrNotSupported), VerdictNotSupported, "not supported: attach: not supported"},
		{"kernel fact", fmt.Errorf("attach kprobe x: %w", notSupported("no kprobe PMU")), VerdictNotSupported, "not supported: attach kprobe x: no kprobe PMU"},
		{"EPERM with cilium's memlock hint", fmt.Errorf("load program: %w"+memlockHint, unix.EPERM), VerdictPermission, "permission refused: load program: operation not permitted"},
		{"EACCES", fmt.Errorf("load: %w", unix.EACCES), VerdictPermission, "permission refused: load: permission denied"},
		{"os.ErrPermission", &os.PathError{Op: "open", Path: "/sys/kernel/btf/vmlinux", Err: os.ErrPermission}, VerdictPermission, "permission refused: open /sys/kernel/btf/vmlinux: permission denied"},
		{"anything else is inconclusive", errors.New("invalid argument\nverifier log"), VerdictOther, "other: invalid argument"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if c := Classify(tc.err); c != tc.verdict {
				t.Errorf("verdict %q, want %q", c, tc.verdict)
			}
			if r := Refusal(tc.err); r != tc.reason {
				t.Errorf("reason %q, want %q", r, tc.reason)
			}
		})
	}
}
