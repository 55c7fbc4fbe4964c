//go:build linux

package main

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// interrupts turns SIGINT/SIGTERM into a cancelled context: the run stops
// between batches, kills its worker, detaches, cleans up and still reports
// what finished. A second signal exits at once: it runs abort (which must
// end whatever the run started and remove its work dirs) and removes the
// temp files being written, since the writer's defers never run. BPF links
// and programs go with the process's fds.
type interrupts struct {
	mu    sync.Mutex
	first os.Signal
	ch    chan os.Signal
}

func watchInterrupts(abort func()) (context.Context, *interrupts, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	in := &interrupts{ch: make(chan os.Signal, 2)}
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
				in.mu.Unlock()
				if first {
					cancel()
					continue
				}
				abort()
				runfile.RemoveTemps()
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
	return ctx, in, stop
}

// code is the exit status for the first signal seen, 0 for none.
func (in *interrupts) code() int {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.first == nil {
		return 0
	}
	return exitCode(in.first)
}

func exitCode(s os.Signal) int {
	if s == syscall.SIGTERM {
		return exitSIGTERM
	}
	return exitSIGINT
}
