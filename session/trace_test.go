//go:build linux

package session

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/tmpprobe/tmpprobe/cmdbench"
	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/probe"
)

// How a trace and a comparison end before they measure: a signal before
// they start, a cgroup that is not one, the probe refused (which neither
// can do without: no --attach none). Nothing is saved.
func TestTraceAndCompareEndings(t *testing.T) {
	refused := errors.New("operation not permitted")
	refuse := func(t *testing.T) {
		probeOpen = func(probe.Options) (*probe.Probe, error) { return nil, refused }
		t.Cleanup(func() { probeOpen = probe.Open })
	}
	interrupt := func(in *Interrupts) { in.receive(syscall.SIGINT) }
	for _, c := range []struct {
		name   string
		run    func(in *Interrupts, out string) error
		set    func(t *testing.T, in *Interrupts)
		want   any
		status int
	}{
		{"trace interrupted before", func(in *Interrupts, out string) error {
			_, err := RunTrace(in, traceOf(&follow.Spec{PIDs: []int{os.Getpid()}}, out), new(strings.Builder))
			return err
		}, func(t *testing.T, in *Interrupts) { interrupt(in) }, &Interrupted{}, 130},
		{"trace of no cgroup", func(in *Interrupts, out string) error {
			_, err := RunTrace(in, traceOf(&follow.Spec{Cgroup: filepath.Join(t.TempDir(), "none")}, out), new(strings.Builder))
			return err
		}, func(*testing.T, *Interrupts) {}, &UsageError{}, ExitUsage},
		{"trace, the probe refused", func(in *Interrupts, out string) error {
			_, err := RunTrace(in, traceOf(&follow.Spec{PIDs: []int{os.Getpid()}}, out), new(strings.Builder))
			return err
		}, func(t *testing.T, _ *Interrupts) { refuse(t) }, &ProbeError{}, ExitUsage},
		{"compare interrupted before", func(in *Interrupts, out string) error {
			_, err := RunCompare(in, compareOf(out), new(strings.Builder))
			return err
		}, func(t *testing.T, in *Interrupts) { interrupt(in) }, &Interrupted{}, 130},
		{"compare, the probe refused", func(in *Interrupts, out string) error {
			_, err := RunCompare(in, compareOf(out), new(strings.Builder))
			return err
		}, func(t *testing.T, _ *Interrupts) { refuse(t) }, &ProbeError{}, ExitUsage},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, out := newInterrupts(), filepath.Join(t.TempDir(), "run")
			c.set(t, in)
			err := c.run(in, out)
			if err == nil || !sameType(err, c.want) {
				t.Fatalf("error %T %v, want a %T", err, err, c.want)
			}
			if status, _ := ExitStatus(err); status != c.status {
				t.Errorf("exit status %d, want %d", status, c.status)
			}
			var pe *ProbeError
			if errors.As(err, &pe) && pe.AttachNone {
				t.Errorf("%v offers --attach none, which a trace and a comparison cannot do without", err)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("--out %s was saved", out)
			}
		})
	}
}

func traceOf(spec *follow.Spec, out string) Trace {
	return Trace{Spec: spec, Backend: probe.Backend("tracepoint"), Quiet: true, Stderr: new(strings.Builder), Args: []string{"trace"},
		Outputs: Outputs{Format: "text", Sort: "time", Why: "short", Out: out}}
}

func compareOf(out string) Compare {
	return Compare{Options: cmdbench.Options{Commands: []cmdbench.Command{{Name: "true", Argv: []string{"true"}}, {Name: "false", Argv: []string{"false"}}}, Rounds: 1}, Backend: probe.Backend("tracepoint"),
		Stderr: new(strings.Builder), Args: []string{"compare", "true", "false"}, Outputs: Outputs{Format: "text", Sort: "time", Why: "short", Out: out}}
}
