//go:build linux

package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"tmpprobe/arms"
	"tmpprobe/results"
)

func hostFacts(python string, rts []arms.Runtime) results.Meta {
	m := results.Meta{CPUs: runtime.NumCPU(), CPU: cpuModel()}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.KernelRelease = unix.ByteSliceToString(u.Release[:])
		m.Machine = unix.ByteSliceToString(u.Machine[:])
	}
	for _, rt := range rts {
		if rt.Name == "python" {
			m.Python = pythonVersion(rt.Python)
		}
	}
	return m
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// writeFooter says how the numbers were taken and anything that was lost.
func writeFooter(w io.Writer, run *results.Run) {
	m := run.Meta
	backend := m.Backend
	if m.BackendDetail != "" {
		backend += " (" + m.BackendDetail + ")"
	}
	fmt.Fprintf(w, "\nbackend %s · kernel %s · %d CPUs", backend, m.KernelRelease, m.CPUs)
	if m.Python != "" {
		fmt.Fprintf(w, " · Python %s", m.Python)
	}
	fmt.Fprintln(w)
	for _, n := range m.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, h := range m.MissingHooks {
		fmt.Fprintf(w, "note: hook not attached: %s\n", h)
	}
	var lost []string
	for k, v := range run.Drops {
		if v > 0 {
			lost = append(lost, fmt.Sprintf("%s=%d", k, v))
		}
	}
	sort.Strings(lost)
	if len(lost) > 0 {
		fmt.Fprintf(w, "warning: events dropped: %s\n", strings.Join(lost, " "))
	}
	if !run.Complete {
		fmt.Fprintln(w, "warning: the run is incomplete")
	}
}
