//go:build linux

package bench

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/preflight"
)

// BenchmarkServeUnderScrape runs tmpprobe serve --cgroup over a
// syscall-dense target (Python calling getppid for serveTargetTime) and
// scrapes /metrics every 100 ms meanwhile (with /why every 5 s), on
// loopback: it prints serve's resident set every 5 s, so that a growth is
// seen, the scrapes' latencies (median, p99, the longest, how many took
// over 100 ms), and fails if the counter, after the target ends, is not
// the number of calls the target says it made. Times are printed, never
// asserted: this machine is shared.
func BenchmarkServeUnderScrape(b *testing.B) {
	needRootAndPython(b)
	bin := buildTmpprobe(b)
	cg := benchCgroup(b)
	const (
		serveTargetTime = 55 * time.Second
		scrapeEvery     = 100 * time.Millisecond
		bound           = 75 * time.Second // the whole loop, whatever the target does
	)
	serve := exec.Command(bin, "serve", "--cgroup", cg, "--listen", "127.0.0.1:0", "--last", "4s", "--baseline", "8s")
	stderr, _ := serve.StderrPipe()
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		serve.Process.Signal(syscall.SIGTERM)
		serve.Wait()
	}()
	r := bufio.NewReader(stderr)
	line, _ := r.ReadString('\n')
	m := regexp.MustCompile(`on http://(127\.0\.0\.1:[0-9]+) `).FindStringSubmatch(line)
	if m == nil {
		b.Fatalf("serve: %s", line)
	}
	go io.Copy(io.Discard, r)
	base := "http://" + m[1]

	py := fmt.Sprintf("import os, time\nn = 0\nend = time.time() + %d\nwhile time.time() < end:\n    for _ in range(1000): os.getppid()\n    n += 1000\nprint(n)\n",
		int(serveTargetTime.Seconds()))
	// The interpreter itself: pyenv's shim is a bash script, whose own
	// getppid calls the counter would rightly count.
	real, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		b.Fatal(err)
	}
	target := exec.Command("sh", "-c", `echo $$ > "$0/cgroup.procs" && exec "$1" -c "$2"`, cg, strings.TrimSpace(string(real)), py)
	out, _ := target.StdoutPipe()
	if err := target.Start(); err != nil {
		b.Fatal(err)
	}
	made := make(chan string, 1)
	go func() {
		s, _ := io.ReadAll(out)
		target.Wait()
		made <- strings.TrimSpace(string(s))
	}()

	client := &http.Client{Timeout: 5 * time.Second}
	counter := regexp.MustCompile(`(?m)^tmpprobe_syscall_calls_total\{syscall="getppid"\} (\S+)$`)
	scrape := func() (float64, time.Duration) {
		t0 := time.Now()
		resp, err := client.Get(base + "/metrics")
		if err != nil {
			b.Fatalf("scrape: %v", err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(t0)
		v := 0.0
		if m := counter.FindSubmatch(body); m != nil {
			v, _ = strconv.ParseFloat(string(m[1]), 64)
		}
		return v, took
	}
	var (
		latencies []time.Duration
		rss       []string
		last      float64
		calls     string
	)
	start := time.Now()
	tick := time.NewTicker(scrapeEvery)
	defer tick.Stop()
	for calls == "" && time.Since(start) < bound {
		select {
		case calls = <-made:
		case <-tick.C:
			v, took := scrape()
			latencies = append(latencies, took)
			if v < last {
				b.Errorf("the counter went back: %.0f after %.0f", v, last)
			}
			last = v
			if n := len(latencies); n%50 == 0 {
				rss = append(rss, fmt.Sprintf("%2.0fs %d KiB", time.Since(start).Seconds(), vmRSS(serve.Process.Pid)))
				if resp, err := client.Get(base + "/why"); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}
	}
	if calls == "" {
		b.Fatalf("the target did not end within %v", bound)
	}
	final, _ := scrape()
	slices.Sort(latencies)
	over := len(latencies) - slices.IndexFunc(latencies, func(d time.Duration) bool { return d > 100*time.Millisecond })
	if latencies[len(latencies)-1] <= 100*time.Millisecond {
		over = 0
	}
	q := func(p float64) time.Duration { return latencies[int(p*float64(len(latencies)-1))] }
	fmt.Printf("\nserve --cgroup, a scrape every %v for %.0f s of a Python getppid loop\n", scrapeEvery, time.Since(start).Seconds())
	fmt.Printf("  getppid: the target made %s, the counter says %.0f\n", calls, final)
	fmt.Printf("  %d scrapes: median %v, p99 %v, longest %v; %d over 100 ms\n",
		len(latencies), q(0.5).Round(10*time.Microsecond), q(0.99).Round(10*time.Microsecond), latencies[len(latencies)-1].Round(10*time.Microsecond), over)
	fmt.Printf("  serve's resident set every 5 s: %s\n", strings.Join(rss, ", "))
	if strconv.FormatFloat(final, 'f', -1, 64) != calls {
		b.Errorf("getppid counter %.0f, the target made %s", final, calls)
	}
	b.ReportMetric(float64(q(0.99).Microseconds())/1000, "p99-scrape-ms")
	b.ReportMetric(float64(over), "scrapes-over-100ms")
}

// vmRSS is a process's resident set now, in KiB.
func vmRSS(pid int) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
			return kb
		}
	}
	return 0
}

// benchCgroup makes a cgroup v2 for a target, removed at the end.
func benchCgroup(b *testing.B) string {
	mounts, _ := preflight.Mounts()
	for _, m := range mounts {
		if m.FSType == "cgroup2" {
			cg := filepath.Join(m.Point, fmt.Sprintf("tmpprobe-bench-%d", os.Getpid()))
			if err := os.Mkdir(cg, 0o755); err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { os.Remove(cg) })
			return cg
		}
	}
	b.Skip("no cgroup2 mount")
	return ""
}
