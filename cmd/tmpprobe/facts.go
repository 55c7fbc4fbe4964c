//go:build linux

package main

import (
	"bufio"
	"io"
	"os"
	"runtime"
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
	results.WriteExplanations(w, sums, arms.Knowledge())
	results.WriteFailures(w, run.Arms)
	results.WriteFooter(w, run)
}

// writeTraceReport is the terminal report of a trace, fresh or saved.
func writeTraceReport(w io.Writer, run *results.Run, sums []*results.Summary, v results.TraceView, hist bool) {
	results.WriteTrace(w, sums, v)
	if hist {
		results.WriteHistograms(w, sums)
	}
	results.WriteFooter(w, run)
}

func isTrace(run *results.Run) bool {
	return len(run.Arms) > 0 && run.Arms[0].Lab == "trace"
}
