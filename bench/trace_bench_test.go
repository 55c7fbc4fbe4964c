//go:build linux

package bench

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// BenchmarkTraceOverhead runs one syscall-dense command (a Python loop of
// getppid) plain and under tmpprobe trace, strace -c and perf trace -s, in
// the same run, and reports each as plain ÷ traced wall time (1.0 = free):
// of the whole command, and of the loop alone (each tool's fixed start-up,
// measured with an empty loop, taken out).
func BenchmarkTraceOverhead(b *testing.B) {
	needRoot(b)
	out, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Skip("python3 not found")
	}
	py := strings.TrimSpace(string(out))
	bin := buildTmpprobe(b)
	const loops = 300000
	workload := func(n int) []string {
		return []string{py, "-c", fmt.Sprintf("import os\nfor _ in range(%d): os.getppid()\n", n)}
	}
	tools := []struct {
		name   string
		prefix []string
	}{
		{"plain", nil},
		{"tmpprobe trace", []string{bin, "trace", "--top", "3", "--"}},
		{"strace -c", []string{"strace", "-c", "-f", "-o", "/dev/null"}},
		{"perf trace -s", []string{"perf", "trace", "-s", "-o", "/dev/null"}},
	}
	best := map[string]time.Duration{}
	// Interleave the tools, three rounds, and keep each one's fastest.
	for round := 0; round < 3; round++ {
		for _, t := range tools {
			if len(t.prefix) > 0 {
				if _, err := exec.LookPath(t.prefix[0]); err != nil {
					continue
				}
			}
			for _, n := range []int{0, loops} {
				argv := append(append([]string(nil), t.prefix...), workload(n)...)
				t0 := time.Now()
				if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
					fmt.Printf("%s failed: %v\n%s\n", t.name, err, lastLines(string(out), 3))
					continue
				}
				d, key := time.Since(t0), fmt.Sprintf("%s/%d", t.name, n)
				if cur, ok := best[key]; !ok || d < cur {
					best[key] = d
				}
			}
		}
	}
	at := func(name string, n int) float64 { return best[fmt.Sprintf("%s/%d", name, n)].Seconds() }
	plain, plainLoop := at("plain", loops), at("plain", loops)-at("plain", 0)
	fmt.Printf("\n%d getppid calls in python3; plain ÷ traced, best of 3 each\n", loops)
	fmt.Printf("  %-16s %9s %7s %9s %7s\n", "TOOL", "command", "ratio", "loop", "ratio")
	for _, t := range tools {
		if _, ok := best[t.name+"/0"]; !ok {
			fmt.Printf("  %-16s not available\n", t.name)
			continue
		}
		whole, loop := at(t.name, loops), at(t.name, loops)-at(t.name, 0)
		fmt.Printf("  %-16s %8.3fs %7.2f %8.3fs %7.2f\n", t.name, whole, plain/whole, loop, plainLoop/loop)
		if t.name != "plain" {
			b.ReportMetric(plainLoop/loop, "loop-plain/"+strings.Fields(t.name)[0])
		}
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
