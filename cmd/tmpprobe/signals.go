//go:build linux

package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/tmpprobe/tmpprobe/internal/atomicfile"
)

// interrupts turns SIGINT/SIGTERM into a cancelled context: the run stops
// between batches, kills its worker, detaches, cleans up and still reports
// what finished. A second signal exits at once: it runs abort (which must
// end whatever the run started and remove its work dirs) and removes the
// temp files being written, since the writer's defers never run. BPF links
// and programs go with the process's fds.
//
// It is set up before a command reads its flags: a shell starts a
// background job with SIGINT ignored, and a signal that comes while it is
// still ignored is lost, so a Ctrl-C sent in the first 0.3 s (while the
// run probed Python and the work dirs) let the whole run go on and exit 0.
// Notify un-ignores it; the steps before the run check the context.
type interrupts struct {
	mu    sync.Mutex
	first os.Signal
	// decided is set when the measuring ends; decidedCode is the exit
	// status it settled on (0: not interrupted by then).
	decided     bool
	decidedCode int
	abort       func()
	ch          chan os.Signal
	ctx         context.Context
}

func watchInterrupts() (*interrupts, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	in := &interrupts{ch: make(chan os.Signal, 2), ctx: ctx}
	signal.Notify(in.ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-in.ch:
				in.mu.Lock()
				first := in.first == nil
				if first {
					in.first = s
				}
				abort := in.abort
				in.mu.Unlock()
				if first {
					cancel()
					continue
				}
				if abort != nil {
					abort()
				}
				atomicfile.RemoveTemps()
				os.Exit(exitCode(s))
			case <-done:
				return
			}
		}
	}()
	stop := func() {
		signal.Stop(in.ch)
		close(done)
		cancel()
	}
	return in, stop
}

// onSecond sets what a second signal runs before tmpprobe exits.
func (in *interrupts) onSecond(abort func()) {
	in.mu.Lock()
	in.abort = abort
	in.mu.Unlock()
}

// code is the exit status for the first signal seen, 0 for none; once
// decide has run, the status it settled on.
func (in *interrupts) code() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	switch {
	case in.decided:
		return in.decidedCode
	case in.first == nil:
		return 0
	}
	return exitCode(in.first)
}

// decide settles the outcome when the measuring ends and returns its exit
// status (0: not interrupted). A first signal after it, while the report
// and the files are written, changes neither what run.json says nor the
// exit status: the run they describe had finished, and the first signal
// lets the saving finish (a second one still exits at once, leaving the
// previous files). Before, a SIGINT just after the last batch exited 130
// beside a run.json that said the run was complete.
func (in *interrupts) decide() int {
	code := in.code()
	in.mu.Lock()
	in.decided, in.decidedCode = true, code
	in.mu.Unlock()
	return code
}

// late reports a first signal that came after decide: said, not obeyed.
func (in *interrupts) late() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.decided && in.decidedCode == 0 && in.first != nil
}

// before is the error of a command stopped before it measured anything.
func (in *interrupts) before() error {
	return exitError{in.code(), "interrupted before the run started"}
}

func exitCode(s os.Signal) int {
	if s == syscall.SIGTERM {
		return exitSIGTERM
	}
	return exitSIGINT
}
