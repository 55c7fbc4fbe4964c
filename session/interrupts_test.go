//go:build linux

package session

import (
	"context"
	"errors"
	"syscall"
	"testing"
)

// The first signal ends the session's context and what it measures; a
// second runs the abort the session set and exits with its own status. A first signal after the measuring ended is said, not obeyed.
func TestInterrupts(t *testing.T) {
	in := newInterrupts()
	exited := -1
	in.quit = func(code int) { exited = code }
	ctx := in.Context()
	if ctx.Err() != nil || in.Stopped() != nil || in.signal() != nil {
		t.Fatal("interrupted before any signal")
	}
	aborted := false
	in.onSecond(func() { aborted = true })
	in.receive(syscall.SIGTERM)
	select {
	case <-ctx.Done():
	default:
		t.Fatal("the first signal did not end the context")
	}
	var ie *Interrupted
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.As(in.Stopped(), &ie) || !ie.Before || ie.Signal != syscall.SIGTERM {
		t.Errorf("after SIGTERM: context %v, stopped %v: want cancelled, interrupted before the run by SIGTERM", ctx.Err(), in.Stopped())
	}
	if aborted || exited != -1 {
		t.Error("the first signal aborted or exited")
	}
	if s := in.decide(); s != syscall.SIGTERM || in.late() {
		t.Errorf("decided %v (late %v), want SIGTERM, not late", s, in.late())
	}
	in.receive(syscall.SIGINT)
	if !aborted || exited != 130 {
		t.Errorf("second signal, SIGINT: aborted %v, exit %d; want the abort run and exit 130", aborted, exited)
	}

	late := newInterrupts()
	if s := late.decide(); s != nil {
		t.Fatalf("decided %v with no signal", s)
	}
	late.receive(syscall.SIGINT)
	if !late.late() || late.signal() != nil {
		t.Errorf("a signal after the measuring: late %v, signal %v; want late, and the run not interrupted", late.late(), late.signal())
	}
}

// A context made from it, with a deadline, still ends with the signal.
func TestInterruptsContextDerives(t *testing.T) {
	in := newInterrupts()
	ctx, cancel := context.WithCancel(in.Context())
	defer cancel()
	in.receive(syscall.SIGINT)
	<-ctx.Done()
	if !errors.Is(ctx.Err(), context.Canceled) {
		t.Errorf("derived context: %v", ctx.Err())
	}
}
