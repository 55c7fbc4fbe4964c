//go:build linux

package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/preflight"
)

// The servers these tests start listen on loopback only, on a port the
// kernel picked, and every wait is bounded.

// testCgroup makes a cgroup v2 for a test's target, removed after it.
func testCgroup(t *testing.T) string {
	t.Helper()
	root := ""
	mounts, _ := preflight.Mounts()
	for _, m := range mounts {
		if m.FSType == "cgroup2" {
			root = m.Point
		}
	}
	if root == "" {
		t.Skip("no cgroup2 mount")
	}
	cg := filepath.Join(root, fmt.Sprintf("tmpprobe-test-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(cg) })
	return cg
}

// inCgroup is argv run inside cg: a shell moves itself there, then execs it.
func inCgroup(cg string, argv ...string) *exec.Cmd {
	return exec.Command("sh", append([]string{"-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, cg}, argv...)...)
}

// startServe starts tmpprobe serve with args on a free loopback port and
// returns its address once it says it serves; it is stopped with SIGTERM
// at the test's end, and must then exit 0.
func startServe(t *testing.T, args ...string) (addr string, cmd *exec.Cmd) {
	t.Helper()
	cmd = tmpprobe(append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		r := bufio.NewReader(stderr)
		for {
			l, err := r.ReadString('\n')
			if l != "" {
				lines <- l
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	served := regexp.MustCompile(`serving .* on http://(127\.0\.0\.1:[0-9]+) `)
	deadline := time.After(30 * time.Second)
	var said []string
	for addr == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				cmd.Wait()
				t.Fatalf("serve ended before serving:\n%s", strings.Join(said, ""))
			}
			said = append(said, l)
			if m := served.FindStringSubmatch(l); m != nil {
				addr = m[1]
			}
		case <-deadline:
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("serve did not say it serves in 30 s:\n%s", strings.Join(said, ""))
		}
	}
	go func() {
		for range lines {
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil && !strings.Contains(err.Error(), "Wait was already called") {
				t.Errorf("serve after SIGTERM: %v, want exit 0", err)
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Error("serve did not stop within 10 s of SIGTERM")
		}
	})
	return addr, cmd
}

// freePort is a loopback port no one listens on, for a server the test
// starts.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// startDaemon starts a server the test needs (prometheus, a Pushgateway)
// and waits, at most 30 s, until url answers 200; it is killed at the
// test's end.
func startDaemon(t *testing.T, ready string, argv ...string) {
	t.Helper()
	path, err := exec.LookPath(argv[0])
	if err != nil {
		t.Fatalf("%s is not installed (apt-get install %s; .ci/run installs it)", argv[0], argv[0])
	}
	cmd := exec.Command(path, argv[1:]...)
	log := filepath.Join(t.TempDir(), argv[0]+".log")
	f, _ := os.Create(log)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
	})
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if resp, err := http.Get(ready); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
	}
	b, _ := os.ReadFile(log)
	t.Fatalf("%s not ready in 30 s:\n%s", argv[0], tail(string(b), 20))
}

// get is url's body; a status other than 200 fails the test.
func get(t *testing.T, u string) []byte {
	t.Helper()
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s\n%s", u, resp.Status, b)
	}
	return b
}

// promQuery is the value of the one series a PromQL query returns from
// the Prometheus at base, "" while it returns none.
func promQuery(t *testing.T, base, query string) string {
	t.Helper()
	var r struct {
		Status string
		Data   struct {
			Result []struct {
				Metric map[string]string
				Value  []any
			}
		}
	}
	if err := json.Unmarshal(get(t, base+"/api/v1/query?query="+url.QueryEscape(query)), &r); err != nil {
		t.Fatal(err)
	}
	switch len(r.Data.Result) {
	case 0:
		return ""
	case 1:
		return fmt.Sprint(r.Data.Result[0].Value[1])
	}
	t.Fatalf("%s: %d series, want one: %v", query, len(r.Data.Result), r.Data.Result)
	return ""
}

// fsyncs is a Python program that makes n fsyncs of a file in dir.
func fsyncs(n int, dir string) string {
	return fmt.Sprintf("import os\nf = os.open(%q, os.O_WRONLY | os.O_CREAT, 0o600)\nfor _ in range(%d):\n    os.write(f, b'x')\n    os.fsync(f)\n",
		filepath.Join(dir, "f"), n)
}

// Debian's prometheus, on loopback, scrapes tmpprobe serve --cgroup of a
// workload that makes a known number of fsyncs (run under strace -f in
// the cgroup): the counter Prometheus holds is that number, exactly, and
// strace's.
func TestServePrometheusCountsEveryFsync(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	cg := testCgroup(t)
	addr, _ := startServe(t, "--cgroup", cg)

	promPort := freePort(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(config, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: tmpprobe
    static_configs:
      - targets: ['%s']
`, addr)), 0o644)
	prom := fmt.Sprintf("http://127.0.0.1:%d", promPort)
	startDaemon(t, prom+"/-/ready", "prometheus", "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+fmt.Sprintf("127.0.0.1:%d", promPort))

	const want = 57
	straced := filepath.Join(dir, "strace.out")
	work := inCgroup(cg, "strace", "-f", "-qq", "-e", "trace=fsync", "-o", straced, py, "-c", fsyncs(want, dir))
	if out, err := work.CombinedOutput(); err != nil {
		t.Fatalf("the workload: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(straced)
	byStrace := strings.Count(string(b), "fsync(")
	if byStrace != want {
		t.Fatalf("strace saw %d fsyncs, the workload makes %d:\n%s", byStrace, want, tail(string(b), 5))
	}

	query := fmt.Sprintf(`tmpprobe_syscall_calls_total{job="tmpprobe",syscall="fsync"}`)
	var got string
	// Bounded: a scrape a second, at most 30 s for one after the workload.
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if got = promQuery(t, prom, query); got == strconv.Itoa(want) {
			break
		}
	}
	t.Logf("Prometheus holds %s = %s; strace counted %d", query, got, byStrace)
	if got != strconv.Itoa(byStrace) {
		t.Errorf("Prometheus holds %s = %q, strace counted %d", query, got, byStrace)
	}
	// The histogram counts the same calls, and the bucket bounds say so.
	if n := promQuery(t, prom, `tmpprobe_syscall_duration_seconds_count{syscall="fsync"}`); n != strconv.Itoa(want) {
		t.Errorf("tmpprobe_syscall_duration_seconds_count{syscall=\"fsync\"} = %q, want %d", n, want)
	}
	if n := promQuery(t, prom, `tmpprobe_syscall_duration_seconds_bucket{syscall="fsync",le="+Inf"}`); n != strconv.Itoa(want) {
		t.Errorf("the +Inf bucket holds %q fsyncs, want %d", n, want)
	}
	if d := promQuery(t, prom, `sum(tmpprobe_probe_drops_total{reason!="neighbours_unread"})`); d != "0" {
		t.Errorf("the probe dropped %s events", d)
	}
}

// go tool pprof reads /debug/pprof/syscalls as it reads a Go program's
// profile: the frames of a profile are --pprof's (the target, the code
// that made each syscall, its syscalls, their off-CPU causes), and the
// workload's function that fsyncs is among them (#39, #41).
func TestServePprof(t *testing.T) {
	needRoot(t)
	py := realPython(t)
	cg := testCgroup(t)
	addr, _ := startServe(t, "--cgroup", cg)
	dir := t.TempDir()
	// 4 s of fsyncs, the profile takes 2 s of them after go tool pprof
	// has started: bounded by a count, a fast disk's 3,000 fsyncs were
	// over in 0.3 s, before the profile began.
	work := inCgroup(cg, py, "-c", fmt.Sprintf("import os, time\nend = time.time() + 4\n"+
		"def persist(f):\n    os.write(f, b'x')\n    os.fsync(f)\n"+
		"f = os.open(%q, os.O_WRONLY | os.O_CREAT, 0o600)\nwhile time.time() < end:\n    persist(f)\n",
		filepath.Join(dir, "f")))
	if err := work.Start(); err != nil {
		t.Fatal(err)
	}
	defer work.Wait()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Fatal("no go command for go tool pprof")
		}
	}
	time.Sleep(300 * time.Millisecond)
	cmd := exec.Command(goTool, "tool", "pprof", "-top", "-sample_index=calls", fmt.Sprintf("http://%s/debug/pprof/syscalls?seconds=2", addr))
	cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	t.Logf("go tool pprof -top -sample_index=calls:\n%s", out)
	// The target is the root frame, fsync a frame beneath it, with calls.
	if !regexp.MustCompile(`(?m)^\s+[1-9][0-9]*\s.*\sfsync$`).Match(out) {
		t.Errorf("no fsync frame with calls in the profile")
	}
	if !strings.Contains(string(out), "trace/cgroup "+cg) {
		t.Errorf("no frame of the target, trace/cgroup %s", cg)
	}
	// flat 0 (its calls are its syscalls'), cum all of them.
	if !regexp.MustCompile(`(?m)^\s+\d+\s+\S+\s+\S+\s+[1-9][0-9]*\s.*\spersist$`).Match(out) {
		t.Errorf("no frame of persist, the function that fsyncs, with calls in the profile")
	}
}

// Bad flags are one line and exit 2, before anything loads.
func TestServeBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"serve"},
		{"serve", "--pid", "1", "--cgroup", "x"},
		{"serve", "--pid", "1", "--listen", ":9476"},
		{"serve", "--pid", "1", "--listen", "nowhere"},
		{"serve", "--pid", "1", "--last", "1s"},
		{"serve", "--pid", "1", "--baseline", "1s"},
		{"serve", "--pid", "1", "--max-syscalls", "0"},
		{"serve", "--pid", "1", "--attach", "none"},
		{"serve", "--pid", "1", "--", "ls"},
		{"serve", "--bogus"},
	} {
		out, err := tmpprobe(args...).CombinedOutput()
		if code := exitStatus(t, err); code != exitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitUsage, out)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "tmpprobe: ") || lines[1] != "Try 'tmpprobe --help'." {
			t.Errorf("%v: want one line and the hint:\n%s", args, out)
		}
	}
}

// Every path only reads: another method is refused, and /why says what
// it compares; a scraper that goes away mid-profile costs the server
// nothing it keeps (it answers the next at once).
func TestServeReadsOnly(t *testing.T) {
	needRoot(t)
	addr, _ := startServe(t, "--pid", strconv.Itoa(os.Getpid()), "--last", "4s", "--baseline", "4s")
	for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
		req, _ := http.NewRequest(method, "http://"+addr+"/metrics", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s /metrics: %s, want 405", method, resp.Status)
		}
	}
	// A profile whose client gives up after 200 ms.
	client := &http.Client{Timeout: 200 * time.Millisecond}
	if _, err := client.Get("http://" + addr + "/debug/pprof/syscalls?seconds=30"); err == nil {
		t.Error("a 30 s profile answered within 200 ms")
	}
	for range 3 { // more than the profiles in flight allowed, one after another
		client := &http.Client{Timeout: 200 * time.Millisecond}
		client.Get("http://" + addr + "/debug/pprof/syscalls?seconds=30")
	}
	start := time.Now()
	get(t, "http://"+addr+"/debug/pprof/syscalls?seconds=0.1")
	t.Logf("a 0.1 s profile after four abandoned ones took %v", time.Since(start))
	resp, err := http.Get("http://" + addr + "/why")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "needs at least") {
		t.Errorf("/why before its windows filled: %s\n%s", resp.Status, b)
	}
}

// pushed are the series of a Pushgateway's /metrics named name, each as
// its labels and its value.
func pushed(t *testing.T, gateway, name string) []map[string]string {
	t.Helper()
	series := regexp.MustCompile(`(?m)^` + name + `\{(.*)\} (\S+)$`)
	label := regexp.MustCompile(`(\w+)="((?:[^"\\]|\\.)*)"`)
	var out []map[string]string
	for _, m := range series.FindAllStringSubmatch(string(get(t, gateway+"/metrics")), -1) {
		s := map[string]string{"value": m[2]}
		for _, l := range label.FindAllStringSubmatch(m[1], -1) {
			s[l[1]] = l[2]
		}
		out = append(out, s)
	}
	return out
}

// A lab run pushed to Debian's prometheus-pushgateway, on loopback: every
// arm's series, grouped by host, kernel, lab, runtime and dir, read back;
// work per op is the run's exact count, and the run's id its start.
func TestPushLabRun(t *testing.T) {
	needRoot(t)
	port := freePort(t)
	gateway := fmt.Sprintf("http://127.0.0.1:%d", port)
	startDaemon(t, gateway+"/-/ready", "prometheus-pushgateway", fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port))
	dir, out := t.TempDir(), filepath.Join(t.TempDir(), "run")
	run := tmpprobe("all", "--lab", "modes", "--runtime", "go", "--rounds", "3", "--min-batch", "2ms", "--dir", dir, "-q",
		"--out", out, "--push", gateway)
	if b, err := run.CombinedOutput(); err != nil {
		t.Fatalf("all --push: %v\n%s", err, tail(string(b), 20))
	}
	var saved struct {
		Started string
		Meta    struct {
			KernelRelease string `json:"kernel_release"`
		}
		Arms []struct{ Arm string }
	}
	b, err := os.ReadFile(filepath.Join(out, "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	group := map[string]string{"job": "tmpprobe", "host": host, "kernel": saved.Meta.KernelRelease, "lab": "modes", "runtime": "go", "dir": dir}
	inGroup := func(s map[string]string) bool {
		for k, v := range group {
			if s[k] != v {
				return false
			}
		}
		return true
	}
	ops := map[string]string{}
	for _, s := range pushed(t, gateway, "tmpprobe_arm_ops_per_second") {
		if inGroup(s) {
			ops[s["arm"]] = s["value"]
		}
	}
	for _, a := range saved.Arms {
		if v, err := strconv.ParseFloat(ops[a.Arm], 64); err != nil || v <= 0 {
			t.Errorf("arm %s: tmpprobe_arm_ops_per_second in group %v = %q", a.Arm, group, ops[a.Arm])
		}
	}
	if len(ops) != len(saved.Arms) || len(ops) != 9 {
		t.Errorf("%d arms pushed, the run has %d, the modes lab 9: %v", len(ops), len(saved.Arms), ops)
	}
	fsyncsPerOp := map[string]string{}
	for _, s := range pushed(t, gateway, "tmpprobe_arm_work_per_op") {
		if inGroup(s) && s["work"] == "fsync calls" {
			fsyncsPerOp[s["arm"]] = s["value"]
		}
	}
	if fsyncsPerOp["mkstemp-fsync"] != "1" || fsyncsPerOp["TemporaryFile"] != "" {
		t.Errorf("fsync calls per op pushed: %v, want mkstemp-fsync's 1 and none of TemporaryFile", fsyncsPerOp)
	}
	info := pushed(t, gateway, "tmpprobe_run_info")
	started, _ := time.Parse(time.RFC3339Nano, saved.Started)
	if len(info) != 1 || info[0]["run_id"] != started.UTC().Format(time.RFC3339Nano) || info[0]["complete"] != "true" {
		t.Errorf("tmpprobe_run_info: %v, want run_id %s (run.json's started)", info, saved.Started)
	}
	t.Logf("pushed: %d arms' ops/s %v; fsync calls/op %v; run %v", len(ops), ops, fsyncsPerOp, info)

	// A trace pushes too, in a group of its own.
	if b, err := tmpprobe("trace", "-q", "--push", gateway, "--", "true").CombinedOutput(); err != nil {
		t.Fatalf("trace --push: %v\n%s", err, b)
	}
	traced := false
	for _, s := range pushed(t, gateway, "tmpprobe_arm_ops_per_second") {
		traced = traced || (s["lab"] == "trace" && s["arm"] == "true")
	}
	if !traced {
		t.Error("trace --push -- true: no series of lab trace, arm true")
	}
}

// A push that fails loses nothing: the run is saved first, and the
// error says what was saved (exit 1, as for any output).
func TestPushFailureSaysWhatWasSaved(t *testing.T) {
	needRoot(t)
	out := filepath.Join(t.TempDir(), "run")
	nobody := fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	b, err := tmpprobe("run", "TemporaryFile", "--runtime", "go", "--rounds", "2", "--min-batch", "2ms", "--dir", t.TempDir(), "-q",
		"--out", out, "--push", nobody).CombinedOutput()
	if code := exitStatus(t, err); code != exitArmFailed {
		t.Errorf("exit %d, want %d", code, exitArmFailed)
	}
	if !regexp.MustCompile(`(?m)^tmpprobe: --push ` + regexp.QuoteMeta(nobody) + `: .*connection refused; saved: ` + regexp.QuoteMeta(out) + `$`).Match(b) {
		t.Errorf("the error does not say the push failed and what was saved:\n%s", tail(string(b), 5))
	}
	if _, err := os.Stat(filepath.Join(out, "run.json")); err != nil {
		t.Errorf("the run was not saved: %v", err)
	}
	if b, err := tmpprobe("all", "--push", "ftp://example").CombinedOutput(); exitStatus(t, err) != exitUsage {
		t.Errorf("--push ftp://example: want exit 2 before the run\n%s", b)
	}
}
