//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/probe"
)

const checkUsage = `Usage: tmpprobe check

Tries every hook type and hook tmpprobe can use on this kernel (tp_btf,
raw_tp, tracepoint, kprobe, kretprobe, fentry, fexit on each function it
times) and each attach backend, and says yes, or no and why. Exits 0 when
at least one backend works, 2 when none does. Last, it measures what the
backend auto takes costs one syscall (a getppid loop, detached, attached,
and traced).

Example:
  sudo tmpprobe check
`

func cmdCheck(args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(stdout, checkUsage)
			return errHelp
		}
		return usagef("%s", err)
	}
	if fs.NArg() > 0 {
		return usagef("check takes no arguments")
	}
	r := probe.Check()
	r.WriteTable(stdout)
	if r.Auto == "" {
		// Unprivileged, every hook fails with EPERM, which says nothing
		// about the kernel.
		if os.Geteuid() != 0 {
			return exitError{exitUsage, "no attach backend works without privileges: " + needPrivileges + ": run it with sudo"}
		}
		return exitError{exitUsage, "no attach backend works on this kernel (see above)"}
	}
	writeCost(stdout, r.Auto)
	return nil
}

// writeCost measures what the backend auto takes costs one syscall, here
// and now: a getppid loop with the probe detached, attached, and inside a
// traced region.
func writeCost(w io.Writer, b probe.Backend) {
	p, err := probe.Open(probe.Options{Attach: b})
	if err != nil {
		fmt.Fprintf(w, "\nCOST           could not open the %s backend: %s\n", b, errtext.FirstLine(openError(err)))
		return
	}
	defer p.Close()
	c, err := p.Calibrate(200000)
	if err != nil {
		fmt.Fprintf(w, "\nCOST           could not calibrate: %s\n", errtext.FirstLine(err.Error()))
		return
	}
	fmt.Fprintf(w, "\nCOST of one syscall (getppid, %s backend)\n", b)
	fmt.Fprintf(w, "  detached  %8v\n", c.Detached)
	fmt.Fprintf(w, "  attached  %8v  (+%v: every thread on the machine pays this)\n", c.Inactive, c.Inactive-c.Detached)
	fmt.Fprintf(w, "  traced    %8v  (+%v: each syscall of a traced thread)\n", c.Active, c.Active-c.Detached)
}
