//go:build linux

package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/probe"
)

// A backend this kernel lacks is refused before any arm runs: one line
// on stderr, exit 2.
func TestUnavailableBackendExits2(t *testing.T) {
	needRoot(t)
	tried := 0
	for _, b := range []probe.Backend{probe.BackendFentry, probe.BackendKprobe} {
		if p, err := probe.Open(probe.Options{Attach: b}); err == nil {
			p.Close()
			continue
		}
		tried++
		var stdout, stderr bytes.Buffer
		code := run([]string{"run", "TemporaryFile", "--runtime", "go", "--attach", string(b), "--ops", "1", "--rounds", "1"}, &stdout, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != exitUsage || len(lines) != 1 || !strings.HasPrefix(lines[0], "tmpprobe: --attach "+string(b)+": ") {
			t.Errorf("--attach %s: exit %d, stderr %q", b, code, stderr.String())
		}
		if stdout.Len() > 0 {
			t.Errorf("--attach %s: wrote a report: %s", b, stdout.String())
		}
	}
	if tried == 0 {
		t.Skip("fentry and kprobe both work on this kernel")
	}
}

func TestCheck(t *testing.T) {
	needRoot(t)
	var stdout, stderr bytes.Buffer
	code := run([]string{"check"}, &stdout, &stderr)
	out := stdout.String()
	if code != exitOK || !strings.Contains(out, "\n--attach auto takes: ") {
		t.Fatalf("exit %d\n%s%s", code, out, stderr.String())
	}
	for _, hook := range []string{"tp_btf", "raw_tp", "tracepoint", "kprobe", "kretprobe", "fentry", "fexit",
		"BTF", "tracefs", "privileges", "__x64_sys_openat", "vfs_fsync_range"} {
		if !strings.Contains(out, "\n"+hook+" ") {
			t.Errorf("no row for %s", hook)
		}
	}
	for _, row := range []string{"COST of one syscall", "\n  detached ", "\n  attached ", "\n  traced "} {
		if !strings.Contains(out, row) {
			t.Errorf("no %q in the calibration", row)
		}
	}
}
