//go:build linux

package session

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/tmpprobe/tmpprobe/internal/atomicfile"
)

// Interrupts turns SIGINT/SIGTERM into a session's end: a session stops
// between batches, kills its worker, detaches, cleans up and still
// reports what finished. A second signal exits at once: it runs the abort
// the session set (which ends whatever it started and removes its work
// dirs) and removes the temp files being written, since the writer's
// defers never run. BPF links and programs go with the process's fds.
//
// It is watched before a command reads its flags: a shell starts a
// background job with SIGINT ignored, and a signal that comes while it is
// still ignored is lost, so a Ctrl-C sent in the first 0.3 s (while the
// run probed Python and the work dirs) let the whole run go on and exit 0.
// Notify un-ignores it; the steps before the measuring check Stopped.
type Interrupts struct {
	mu    sync.Mutex
	first os.Signal
	// decided is set when the measuring ends; decidedBy is the signal it
	// settled on (nil: not interrupted by then).
	decided   bool
	decidedBy os.Signal
	abort     func()
	// done is closed by the first signal (or when the watching stops).
	done  chan struct{}
	close sync.Once
	// quit ends tmpprobe on a second signal, with code: the temp files
	// being written removed (atomicfile.RemoveTemps, which refuses any
	// new one), os.Exit.
	quit func(code int)
}

// newInterrupts are interrupts no signal has come to yet.
func newInterrupts() *Interrupts {
	return &Interrupts{done: make(chan struct{}), quit: func(code int) {
		atomicfile.RemoveTemps()
		os.Exit(code)
	}}
}

// Watch starts watching for SIGINT and SIGTERM; stop ends it.
func Watch() (in *Interrupts, stop func()) {
	in = newInterrupts()
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	stopped := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				in.receive(s)
			case <-stopped:
				return
			}
		}
	}()
	return in, func() {
		signal.Stop(ch)
		close(stopped)
		in.end()
	}
}

// receive takes a signal: the first ends the session's measuring, a
// second tmpprobe.
func (in *Interrupts) receive(s os.Signal) {
	in.mu.Lock()
	first := in.first == nil
	if first {
		in.first = s
	}
	abort := in.abort
	in.mu.Unlock()
	if first {
		in.end()
		return
	}
	if abort != nil {
		abort()
	}
	in.quit(ExitCode(s))
}

// end closes done, once.
func (in *Interrupts) end() { in.close.Do(func() { close(in.done) }) }

// ended says the first signal came (or the watching stopped).
func (in *Interrupts) ended() bool {
	select {
	case <-in.done:
		return true
	default:
		return false
	}
}

// Context is a context that ends with the first signal: what a command
// waits for before its session starts (an interpreter's version check),
// and what a session's measuring runs under, wait on it.
func (in *Interrupts) Context() context.Context { return untilSignal{in} }

// untilSignal is the context of Interrupts: done when they end.
type untilSignal struct{ in *Interrupts }

func (untilSignal) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c untilSignal) Done() <-chan struct{}     { return c.in.done }
func (untilSignal) Value(any) any               { return nil }
func (c untilSignal) Err() error {
	if c.in.ended() {
		return context.Canceled
	}
	return nil
}

// onSecond sets what a second signal runs before tmpprobe exits.
func (in *Interrupts) onSecond(abort func()) {
	in.mu.Lock()
	in.abort = abort
	in.mu.Unlock()
}

// signal is the first signal seen, nil for none; once decide has run,
// the one it settled on.
func (in *Interrupts) signal() os.Signal {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.decided {
		return in.decidedBy
	}
	return in.first
}

// decide settles the outcome when the measuring ends and returns the
// signal that interrupted it (nil: none). A first signal after it, while
// the report and the files are written, changes neither what run.json
// says nor the exit status: the run they describe had finished, and the
// first signal lets the saving finish (a second one still exits at once,
// leaving the previous files). Before, a SIGINT just after the last batch
// exited 130 beside a run.json that said the run was complete.
func (in *Interrupts) decide() os.Signal {
	s := in.signal()
	in.mu.Lock()
	in.decided, in.decidedBy = true, s
	in.mu.Unlock()
	return s
}

// late reports a first signal that came after decide: said, not obeyed.
func (in *Interrupts) late() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.decided && in.decidedBy == nil && in.first != nil
}

// Stopped is the error of a command a signal stopped before its session
// began (during an interpreter's version check), nil if none did.
func (in *Interrupts) Stopped() error {
	if !in.ended() {
		return nil
	}
	return in.before()
}

// before is the error of a session stopped before it measured anything.
func (in *Interrupts) before() error {
	return &Interrupted{Signal: in.signal(), Before: true}
}

// ExitCode is the status a shell gives a process the signal ended:
// 128 + its number, 130 for SIGINT, 143 for SIGTERM.
func ExitCode(s os.Signal) int {
	if s == syscall.SIGTERM {
		return 128 + int(syscall.SIGTERM)
	}
	return 128 + int(syscall.SIGINT)
}
