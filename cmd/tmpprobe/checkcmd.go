//go:build linux

package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"tmpprobe/probe"
)

const checkUsage = `Usage: tmpprobe check

Tries every hook type and hook tmpprobe can use on this kernel (tp_btf,
raw_tp, tracepoint, kprobe, kretprobe, fentry, fexit on each function it
times) and each attach backend, and says yes, or no and why. Exits 0 when
at least one backend works, 2 when none does.

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
		return exitError{exitUsage, "no attach backend works on this kernel (see above)"}
	}
	return nil
}
