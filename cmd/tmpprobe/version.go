//go:build linux

package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/pflag"

	"github.com/tmpprobe/tmpprobe/probe"
)

// versionUsage has no flags to show: %.0s takes parseCommand's empty list.
const versionUsage = `Usage: tmpprobe version   (or tmpprobe --version)

Prints this build: its version, the commit it was built from and whether
the tree had uncommitted changes, the Go that built it, and the BPF
object inside it. A bug report names these.
%.0s`

// cmdVersion prints what a bug report needs to name this build: the module
// version, the commit and whether the tree had uncommitted changes, the Go
// that built it, and the BPF object inside it.
func cmdVersion(args []string, stdout io.Writer) error {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	if err := parseCommand(fs, args, versionUsage, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("version takes no arguments")
	}
	version, revision, goVersion := "unknown", "unknown (built without VCS information)", runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		version, goVersion = bi.Main.Version, bi.GoVersion
		settings := map[string]string{}
		for _, s := range bi.Settings {
			settings[s.Key] = s.Value
		}
		if rev := settings["vcs.revision"]; rev != "" {
			revision = rev
			if t := settings["vcs.time"]; t != "" {
				revision += " (" + t + ")"
			}
			switch settings["vcs.modified"] {
			case "true":
				revision += ", dirty: uncommitted changes"
			case "false":
				revision += ", clean"
			}
		}
	}
	fmt.Fprintf(stdout, "tmpprobe %s\n", version)
	fmt.Fprintf(stdout, "revision  %s\n", revision)
	fmt.Fprintf(stdout, "go        %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(stdout, "bpf       sha256:%s (probe/%s)\n", probe.ObjectSHA256()[:16], probe.ObjectFile)
	return nil
}
