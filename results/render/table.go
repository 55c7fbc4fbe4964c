package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// WriteTable prints per group (lab × runtime × dir × parameter) one line
// an arm, then each arm's syscall breakdown. Lines stay under 80 columns.
func WriteTable(w io.Writer, sums []*results.Summary) {
	for _, g := range results.PeerGroups(sums) {
		writeGroupTable(w, g)
		for _, s := range g {
			writeBreakdown(w, s)
		}
	}
}

// groupTitle names a peer group: lab × runtime × dir × parameter.
func groupTitle(s *results.Summary) string {
	if s.Lab == results.LabCompare {
		// Commands have no runtime, and the dir they ran in is in the
		// footer: "compare lab · - ·  · per run" said nothing twice.
		return "compared commands · " + s.ParamTitle()
	}
	return explain.GroupTitle(s.Lab, s.Runtime, s.Dir, s.ParamTitle())
}

// writeGroupTable is one group's table: a line an arm.
func writeGroupTable(w io.Writer, g []*results.Summary) {
	first := g[0]
	fmt.Fprintf(w, "\n%s\n", groupTitle(first))
	rate, unit := "ops/s", "µs/op"
	if first.SizeBytes > 0 {
		rate, unit = "MB/s", "µs/round"
	}
	fmt.Fprintf(w, tableRow, "ARM", rate+" ±95%", "RATIO [95% CI]", unit, "KERNEL", "TRACED")
	for _, s := range g {
		if s.Error != "" && !s.OpsPerS.Known() {
			fmt.Fprintf(w, "%-23s FAILED: %s\n", trunc(s.Arm, 23), trunc(errtext.FirstLine(s.Error), 56))
			continue
		}
		head := s.OpsPerS
		if first.SizeBytes > 0 {
			head = s.MBPerS()
		}
		wall, kernel := results.Micros(s.WallNsPerOp), results.Micros(s.KernelNsPerOp)
		if s.Traced == nil && s.OpsPerS.Known() {
			// Throughput only (--attach none): wall from the median
			// round, and no kernel time was measured.
			wall, kernel = results.Micros(1e9/s.OpsPerS.Center), "-"
		}
		fmt.Fprintf(w, tableRow, trunc(s.Arm, 23), rateCell(head), results.RatioText(s.Ratio), wall, kernel,
			shortRatioCell(s.Observer))
		if s.Error != "" {
			fmt.Fprintf(w, "%-23s FAILED after %d rounds: %s\n", "", len(s.Rounds), trunc(errtext.FirstLine(s.Error), 36))
		}
	}
}

// tableRow is 79 columns with the widest cells ("NamedTemporaryFile-keep",
// "154907 ±12%", "0.61 [0.59–0.63]", "0.93 ±13%").
const tableRow = "%-23s %11s %16s %8s %7s %9s\n"

func writeBreakdown(w io.Writer, s *results.Summary) {
	if s.Traced == nil {
		return
	}
	fmt.Fprintf(w, "\n  %s\n", strings.TrimSuffix(explain.TimeSplit(s), "."))
	writeClassTable(w, s)
}

// writeClassTable is the breakdown's table: a row per syscall class, its
// stages under it.
func writeClassTable(w io.Writer, s *results.Summary) {
	unit, t := s.Unit(), s.TimeScale()
	fmt.Fprintf(w, "    %-22s %9s %9s %9s %8s %8s\n", "SYSCALL", "CALLS/"+unit, t.Unit+"/"+unit, "OFFCPU "+t.Unit, "p50 µs", "p99 µs")
	parent, beside, overlapped := "", false, false
	for _, c := range s.Classes {
		if c.Overlapped {
			overlapped = true
			fmt.Fprintf(w, "    %-22s %9s %9s %9s %8s %8s\n", trunc("("+c.Class+")", 22), results.Count(c.CallsPerOp),
				t.Of(c.NsPerOp), t.Of(c.OffNsPerOp), results.Micros(float64(c.P50)), results.Micros(float64(c.P99)))
			parent = c.Class
			continue
		}
		name := c.Class
		if c.Stage != "" {
			mark := " > "
			if c.Beside {
				mark, beside = " ⋯ ", true
			}
			name = " " + mark + c.Stage
			if c.Class != parent {
				name = c.Class + mark + c.Stage
			}
		}
		parent = c.Class
		switch {
		case c.Class == results.ClassUser && c.Stage == "":
			// Off the CPU between syscalls: part of user time, not work.
			fmt.Fprintf(w, "    %-22s %9s %9s %9s\n", "user (between calls)", "-", "-", t.Of(c.OffNsPerOp))
		case c.Stage != "" && c.NsPerOp == 0:
			fmt.Fprintf(w, "    %-22s %9s\n", trunc(name, 22), results.Count(c.CallsPerOp))
		case c.Stage != "":
			// Stages carry a total, not a histogram of single calls.
			fmt.Fprintf(w, "    %-22s %9s %9s %9s\n", trunc(name, 22), results.Count(c.CallsPerOp),
				t.Of(c.NsPerOp), t.Of(c.OffNsPerOp))
		default:
			fmt.Fprintf(w, "    %-22s %9s %9s %9s %8s %8s\n", trunc(name, 22), results.Count(c.CallsPerOp),
				t.Of(c.NsPerOp), t.Of(c.OffNsPerOp), results.Micros(float64(c.P50)), results.Micros(float64(c.P99)))
		}
	}
	if beside {
		fmt.Fprintln(w, "    ⋯ the device was busy while inside, but this syscall cannot wait for it")
	}
	if overlapped {
		fmt.Fprintln(w, "    (…) waiting for a child, whose own time is above: in no sum")
	}
}

func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// WriteFailures names each arm that failed and shows the tail of its
// worker's stderr.
func WriteFailures(w io.Writer, arms []results.ArmResult) {
	for _, f := range Failures(arms) {
		fmt.Fprintf(w, "\nFAILED %s\n", f.Head)
		for _, l := range f.Tail {
			fmt.Fprintf(w, "  | %s\n", trunc(l, 74))
		}
	}
}
