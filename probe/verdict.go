//go:build linux

package probe

import (
	"errors"
	"os"
	"strings"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
)

// Verdict is what a failed load or attach says about the kernel, with
// cilium/ebpf features semantics: nil is yes, ErrNotSupported is a clear no,
// and anything else is inconclusive.
type Verdict string

const (
	VerdictYes          Verdict = "yes"
	VerdictNotSupported Verdict = "not supported"
	VerdictPermission   Verdict = "permission refused"
	VerdictMissing      Verdict = "missing" // the function is not in this kernel
	VerdictOther        Verdict = "other"
)

// notSupported is a kernel fact that cilium/ebpf reports otherwise; it
// classifies as ErrNotSupported without repeating "not supported".
type notSupported string

func (e notSupported) Error() string { return string(e) }
func (e notSupported) Unwrap() error { return ebpf.ErrNotSupported }

// Classify gives the verdict of a load or attach error.
func Classify(err error) Verdict {
	switch {
	case err == nil:
		return VerdictYes
	case errors.Is(err, ebpf.ErrNotSupported):
		return VerdictNotSupported
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES), errors.Is(err, os.ErrPermission):
		return VerdictPermission
	}
	return VerdictOther
}

// Refusal is the verdict and the error's first line, e.g. "permission
// refused: load program: operation not permitted".
func Refusal(err error) string {
	if err == nil {
		return ""
	}
	return string(Classify(err)) + ": " + errText(err)
}

// memlockHint is what cilium/ebpf appends to any EPERM from a program load.
// Since v5.11 BPF memory is charged to the memory cgroup, not MEMLOCK, and
// the tracepoint programs load under the same limit, so the hint misleads.
const memlockHint = " (MEMLOCK may be too low, consider rlimit.RemoveMemlock)"

func errText(err error) string {
	return strings.ReplaceAll(errtext.FirstLine(err.Error()), memlockHint, "")
}
