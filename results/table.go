package results

import (
	"fmt"
	"io"
	"strings"
)

// WriteTable prints the terminal report: per group (lab × runtime × dir ×
// parameter) one line an arm, then each arm's syscall breakdown. Lines stay
// under 80 columns.
func WriteTable(w io.Writer, sums []*Summary) {
	for _, g := range groups(sums) {
		first := g[0]
		fmt.Fprintf(w, "\n%s lab · %s · %s · %s\n", first.Lab, first.Runtime, first.Dir, paramTitle(first.ArmResult))
		rate, unit := "ops/s", "µs/op"
		if first.SizeBytes > 0 {
			rate, unit = "MB/s", "µs/round"
		}
		fmt.Fprintf(w, tableRow, "ARM", rate+" ±95%", "RATIO [95% CI]", unit, "KERNEL", "TRACED")
		for _, s := range g {
			if s.Error != "" && !s.OpsPerS.Known() {
				fmt.Fprintf(w, "%-23s FAILED: %s\n", trunc(s.Arm, 23), firstLine(s.Error))
				continue
			}
			head := s.OpsPerS
			if first.SizeBytes > 0 {
				head = s.MBPerS()
			}
			wall, kernel := Micros(s.WallNsPerOp), Micros(s.KernelNsPerOp)
			if s.Traced == nil && s.OpsPerS.Known() {
				// Throughput only (--attach none): wall from the median
				// round, and no kernel time was measured.
				wall, kernel = Micros(1e9/s.OpsPerS.Center), "-"
			}
			fmt.Fprintf(w, tableRow, trunc(s.Arm, 23), rateCell(head), ratioCell(s.Ratio), wall, kernel,
				shortRatioCell(s.Observer))
			if s.Error != "" {
				fmt.Fprintf(w, "%-23s FAILED after %d rounds: %s\n", "", len(s.Rounds), firstLine(s.Error))
			}
		}
		for _, s := range g {
			writeBreakdown(w, s)
		}
	}
}

// tableRow is 79 columns with the widest cells ("NamedTemporaryFile-keep",
// "154907 ±12%", "0.61 [0.59–0.63]", "0.93 ±13%").
const tableRow = "%-23s %11s %16s %8s %7s %9s\n"

func writeBreakdown(w io.Writer, s *Summary) {
	if s.Traced == nil {
		return
	}
	unit, t := s.Unit(), scaleOf(s)
	fmt.Fprintf(w, "\n  %s\n", strings.TrimSuffix(timeSplit(s), "."))
	fmt.Fprintf(w, "    %-22s %9s %9s %9s %8s %8s\n", "SYSCALL", "CALLS/"+unit, t.unit+"/"+unit, "OFFCPU "+t.unit, "p50 µs", "p99 µs")
	parent, beside := "", false
	for _, c := range s.Classes {
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
		case c.Class == "user" && c.Stage == "":
			// Off the CPU between syscalls: part of user time, not work.
			fmt.Fprintf(w, "    %-22s %9s %9s %9s\n", "user (between calls)", "-", "-", t.of(c.OffNsPerOp))
		case c.Stage != "" && c.NsPerOp == 0:
			fmt.Fprintf(w, "    %-22s %9s\n", trunc(name, 22), calls(c.CallsPerOp))
		case c.Stage != "":
			// Stages carry a total, not a histogram of single calls.
			fmt.Fprintf(w, "    %-22s %9s %9s %9s\n", trunc(name, 22), calls(c.CallsPerOp),
				t.of(c.NsPerOp), t.of(c.OffNsPerOp))
		default:
			fmt.Fprintf(w, "    %-22s %9s %9s %9s %8s %8s\n", trunc(name, 22), calls(c.CallsPerOp),
				t.of(c.NsPerOp), t.of(c.OffNsPerOp), Micros(float64(c.P50)), Micros(float64(c.P99)))
		}
	}
	if beside {
		fmt.Fprintln(w, "    ⋯ the device was busy while inside, but this syscall cannot wait for it")
	}
}

// groups splits summaries (kept in run order) by lab, runtime, dir and
// parameter.
func groups(sums []*Summary) [][]*Summary {
	return groupInOrder(sums, func(s *Summary) string { return peerKey(s.ArmResult) })
}

func paramTitle(a *ArmResult) string {
	if a.SizeBytes > 0 {
		return "size " + Bytes(int64(a.SizeBytes)) + "B"
	}
	return "payload " + Bytes(int64(a.PayloadBytes)) + "B"
}

func ratio(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", v)
}

func calls(v float64) string {
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.3f", v)
}

func trunc(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// WriteFailures names each arm that failed and shows the tail of its
// worker's stderr.
func WriteFailures(w io.Writer, arms []ArmResult) {
	for _, f := range Failures(arms) {
		fmt.Fprintf(w, "\nFAILED %s\n", f.Head)
		for _, l := range f.Tail {
			fmt.Fprintf(w, "  | %s\n", trunc(l, 74))
		}
	}
}
