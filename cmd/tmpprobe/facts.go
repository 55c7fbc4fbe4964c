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

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
)

func hostFacts(rts []arms.Runtime) results.Meta {
	m := results.Meta{CPUs: runtime.NumCPU(), CPU: cpuModel()}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.KernelRelease = unix.ByteSliceToString(u.Release[:])
		m.Machine = unix.ByteSliceToString(u.Machine[:])
	}
	for _, rt := range rts {
		if rt.Name == "python" {
			m.Python = rt.Version
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

// writeTextReport is the terminal report of a lab run, fresh or saved:
// tables, histograms on request, explanations, failures, and the footer.
func writeTextReport(w io.Writer, run *results.Run, sums []*results.Summary, hist bool) {
	if isTrace(run) {
		writeTraceReport(w, run, sums, results.TraceView{Top: 20}, hist)
		return
	}
	results.WriteTable(w, sums)
	if hist {
		results.WriteHistograms(w, sums)
	}
	results.WriteExplanations(w, sums)
	results.WriteFailures(w, run.Arms)
	writeFooter(w, run)
}

// writeTraceReport is the terminal report of a trace, fresh or saved.
func writeTraceReport(w io.Writer, run *results.Run, sums []*results.Summary, v results.TraceView, hist bool) {
	results.WriteTrace(w, sums, v)
	if hist {
		results.WriteHistograms(w, sums)
	}
	writeFooter(w, run)
}

func isTrace(run *results.Run) bool {
	return len(run.Arms) > 0 && run.Arms[0].Lab == "trace"
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
	if line := run.Protocol.Line(); line != "" {
		fmt.Fprintln(w, line)
	}
	for _, d := range m.Dirs {
		fmt.Fprintf(w, "dir %s: %s on %s (%s)", d.Dir, d.FSType, d.Source, d.Options)
		if d.Journal != "" {
			fmt.Fprintf(w, " · journal %s", d.Journal)
		}
		if d.WriteCache != "" {
			fmt.Fprintf(w, " · %s cache, FUA %s", d.WriteCache, d.FUA)
		}
		fmt.Fprintln(w)
	}
	for _, warn := range m.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
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
