//go:build linux

package probe

import (
	"bytes"
	"strings"
	"testing"
)

// On a kernel too old for tmpprobe, check's last line gives the one reason
// every backend failed, as the kernel row says it.
func TestCheckTableKernelTooOld(t *testing.T) {
	old := &kernelTooOld{"5.15.0-91-generic", notSupported("sched_switch has no prev_state argument (ctx[3], v5.18, commit fa2c3254d7cf)")}
	r := &CheckReport{
		env: []checkRow{{"BTF", VerdictYes, "/sys/kernel/btf/vmlinux"}, {"kernel", Classify(old), errText(old)}},
	}
	for _, b := range autoOrder {
		r.backends = append(r.backends, checkRow{string(b), VerdictNotSupported, "the kernel cannot run tmpprobe (see its row above)"})
	}
	var buf bytes.Buffer
	r.WriteTable(&buf)
	out := buf.String()
	if !strings.Contains(out, "kernel         no   not supported: Linux 5.15.0-91-generic cannot run tmpprobe (needs 5.18 or later, with BTF): sched_switch has no prev_state") {
		t.Errorf("no kernel row:\n%s", out)
	}
	last := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n"):])
	if want := "--attach auto: no backend works here: Linux 5.15.0-91-generic cannot run tmpprobe"; !strings.HasPrefix(last, want) {
		t.Errorf("last line %q, want it to start %q", last, want)
	}
}
