//go:build linux

// Package probetest opens the real probe for tests and benchmarks of other
// packages: it skips only where BPF cannot run (not root, or the kernel
// says not supported) and fails on anything else.
package probetest

import (
	"errors"
	"os"
	"testing"

	"github.com/cilium/ebpf"

	"github.com/tmpprobe/tmpprobe/probe"
)

// Open loads and attaches a probe that is closed when the test ends.
func Open(tb testing.TB, opts probe.Options) *probe.Probe {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("needs root to load BPF")
	}
	p, err := probe.Open(opts)
	if errors.Is(err, ebpf.ErrNotSupported) {
		tb.Skipf("BPF not supported: %v", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	if err := p.Attach(); err != nil {
		tb.Fatal(err)
	}
	return p
}
