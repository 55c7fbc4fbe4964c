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
	old := &kernelTooOld{"4.19.0-27-amd64", notSupported("no kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF)")}
	r := &CheckReport{
		env: []checkRow{{"BTF", VerdictYes, "/sys/kernel/btf/vmlinux"}, {"kernel", Classify(old), errText(old)}},
	}
	for _, b := range autoOrder {
		r.backends = append(r.backends, checkRow{string(b), VerdictNotSupported, "the kernel cannot run tmpprobe (see its row above)"})
	}
	var buf bytes.Buffer
	r.WriteTable(&buf)
	out := buf.String()
	if !strings.Contains(out, "kernel         no   not supported: Linux 4.19.0-27-amd64 cannot run tmpprobe (needs 5.10 or later, with BTF): no kernel BTF") {
		t.Errorf("no kernel row:\n%s", out)
	}
	last := strings.TrimSpace(out[strings.LastIndex(strings.TrimSpace(out), "\n"):])
	if want := "--attach auto: no backend works here: Linux 4.19.0-27-amd64 cannot run tmpprobe"; !strings.HasPrefix(last, want) {
		t.Errorf("last line %q, want it to start %q", last, want)
	}
}
