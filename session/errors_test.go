//go:build linux

package session

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

// Every typed error a session ends with has its exit status, wrapped or
// not; any other error is none of a session's.
func TestExitStatus(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{&UsageError{"--dir /nowhere: no such directory"}, ExitUsage},
		{&ProbeError{Err: errors.New("operation not permitted"), AttachNone: true}, ExitUsage},
		{&Interrupted{Signal: syscall.SIGINT}, 130},
		{&Interrupted{Signal: syscall.SIGTERM, Finished: "the results above cover the arms that finished"}, 143},
		{&Interrupted{Before: true}, 130},
		{&CommandExit{Status: 3, Msg: "exit status 3"}, 3},
		{&OutputError{"--csv x: no space left on device; saved: out"}, ExitFailed},
		{&Regressed{Verdict: "Fails --threshold 5: modes/mkstemp-fsync (go)"}, ExitFailed},
		{ArmsFailed{}, ExitFailed},
		{fmt.Errorf("writing: %w", &OutputError{"x"}), ExitFailed},
	} {
		if got, ok := ExitStatus(c.err); !ok || got != c.want {
			t.Errorf("%T %v: exit status %d (%v), want %d", c.err, c.err, got, ok, c.want)
		}
	}
	if got, ok := ExitStatus(errors.New("the kernel said no")); ok {
		t.Errorf("an error no session ends with: exit status %d, want none of a session's", got)
	}
}
