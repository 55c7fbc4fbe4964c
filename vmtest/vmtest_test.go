//go:build vmtest

package vmtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The guest needs ~4 s to boot and ~110 s for everything under TCG, per
// kernel.
const guestTimeout = 240 * time.Second

// testBackends are the --attach values the guest runs: all three, or a
// comma list in TMPPROBE_VMTEST_BACKENDS when chasing one.
func testBackends() []string {
	if b := os.Getenv("TMPPROBE_VMTEST_BACKENDS"); b != "" {
		return strings.Split(b, ",")
	}
	return []string{"kprobe", "fentry", "tracepoint"}
}

// testKernels are the metapackages whose kernels boot: StockKernels, or a
// comma list in TMPPROBE_VMTEST_KERNELS (linux-image-6.12-amd64).
func testKernels() []string {
	if k := os.Getenv("TMPPROBE_VMTEST_KERNELS"); k != "" {
		return strings.Split(k, ",")
	}
	return StockKernels
}

// TestBackendsOnStockKernels boots each of Debian's stock kernels (kprobes,
// fentry and BTF on; FPROBE on 6.12 only) with tmpprobe as the workload,
// one after the other: the same checks must pass on each.
func TestBackendsOnStockKernels(t *testing.T) {
	qemu := need(t, "qemu-system-x86_64", "install qemu-system-x86")
	need(t, "apt-get", "needs Debian's apt to fetch the kernel")
	need(t, "dpkg-deb", "needs dpkg-deb to unpack the kernel package")
	cache := os.Getenv("TMPPROBE_VMTEST_CACHE")
	if cache == "" {
		cache = "/var/cache/tmpprobe-vmtest"
	}
	var kernels []Kernel
	for _, meta := range testKernels() {
		k, err := FetchKernel(cache, meta)
		if err != nil {
			unavailable(t, "stock kernel %s: %v", meta, err)
		}
		kernels = append(kernels, k)
	}
	start := time.Now()
	initrd := buildInitramfs(t)
	t.Logf("initramfs built in %s", time.Since(start).Round(time.Millisecond))
	for _, k := range kernels {
		t.Run(k.Package, func(t *testing.T) { testKernel(t, qemu, k, initrd) })
	}
}

// testKernel boots k and checks that the three backends count the same
// syscalls, that the function backends add their stage rows, that the
// kprobe backend uses kprobe.multi exactly when k has FPROBE, and that
// nothing stays attached.
func testKernel(t *testing.T, qemu string, k Kernel, initrd string) {
	fprobe, err := k.HasConfig("CONFIG_FPROBE")
	if err != nil {
		t.Fatalf("kernel config: %v", err)
	}
	out, elapsed := boot(t, qemu, k.Vmlinuz, initrd)
	if path := os.Getenv("TMPPROBE_VMTEST_CONSOLE"); path != "" {
		os.WriteFile(path+"."+k.Package, []byte(out), 0o644)
	}
	c, err := ParseConsole(out)
	if err != nil {
		t.Fatalf("%v\nconsole:\n%s", err, out)
	}
	if c.Done == "" {
		t.Fatalf("the guest never finished (crash or timeout after %s); console:\n%s", elapsed, out)
	}
	t.Logf("kernel %s (CONFIG_FPROBE %v); guest booted at %s, done at %s; qemu ran %s", k.Package, fprobe, c.Boot, c.Done, elapsed.Round(time.Millisecond))
	t.Logf("tmpprobe check in the guest:\n%s", c.Output["check"])
	if c.Exit["check"] != 0 {
		t.Errorf("tmpprobe check exit %d", c.Exit["check"])
	}
	checkProbeTests(t, c)
	backends := testBackends()
	for _, b := range backends {
		checkRun(t, c, b)
	}
	checkKprobeMulti(t, c, fprobe)
	ref := backends[len(backends)-1]
	for _, b := range backends[:len(backends)-1] {
		for _, d := range DiffCounts(SyscallCounts(c.CSV[ref], false), SyscallCounts(c.CSV[b], false)) {
			t.Errorf("%s vs %s: %s", ref, b, d)
		}
		for _, d := range DiffCounts(SyscallCounts(c.CSV[ref], true), SyscallCounts(c.CSV[b], true)) {
			t.Logf("Go runtime, not compared: %s vs %s: %s", ref, b, d)
		}
	}
	if c.Leftovers != `programs=0 maps=0 links=0 kprobes=""` {
		t.Errorf("left behind after the runs: %s", c.Leftovers)
	}
}

// checkKprobeMulti wants the kprobe backend on kprobe.multi links when the
// kernel has FPROBE, and on single kprobes saying why when it does not: in
// check's hook type row, in the probe test and in the run's footer.
func checkKprobeMulti(t *testing.T, c *Console, fprobe bool) {
	row, detail := "no", "single kprobes, no kprobe.multi: not supported"
	if fprobe {
		row, detail = "yes", "kprobe.multi+kretprobe.multi on"
	}
	if got := CheckRow(c.Output["check"], "kprobe.multi"); got != row {
		t.Errorf("tmpprobe check: kprobe.multi row says %q, want %q (CONFIG_FPROBE %v)", got, row, fprobe)
	}
	if !strings.Contains(c.Output["probe tests"], detail) {
		t.Errorf("probe test of kprobe: no %q (CONFIG_FPROBE %v)", detail, fprobe)
	}
	if _, ok := c.Exit["run kprobe"]; ok {
		if got := FooterBackend(c.Output["run kprobe"]); !strings.Contains(got, detail) {
			t.Errorf("--attach kprobe: footer %q, want %q in it (CONFIG_FPROBE %v)", got, detail, fprobe)
		}
	}
}

// checkProbeTests wants probe's TestBackendsCountExactly to have passed in
// the guest for every backend, and TestHistSlotMatchesBPF, none skipped.
func checkProbeTests(t *testing.T, c *Console) {
	out := c.Output["probe tests"]
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "backends_priv_test.go") { // how each backend attached
			t.Logf("probe test: %s", strings.TrimSpace(line))
		}
	}
	if c.Exit["probe tests"] != 0 {
		t.Errorf("probe tests in the guest: exit %d:\n%s", c.Exit["probe tests"], out)
	}
	for _, b := range []string{"kprobe", "fentry", "tracepoint"} {
		if !strings.Contains(out, "--- PASS: TestBackendsCountExactly/"+b+" ") {
			t.Errorf("probe test of %s did not pass in the guest:\n%s", b, out)
		}
	}
	if !strings.Contains(out, "--- PASS: TestHistSlotMatchesBPF ") {
		t.Errorf("TestHistSlotMatchesBPF did not pass in the guest:\n%s", out)
	}
}

// checkRun wants a clean report and CSV from the run with --attach b, and
// the function backends' stage rows.
func checkRun(t *testing.T, c *Console, b string) {
	out := c.Output["run "+b]
	if code := c.Exit["run "+b]; code != 0 {
		t.Errorf("--attach %s: exit %d:\n%s", b, code, out)
	} else {
		t.Logf("--attach %s:\n%s", b, out)
	}
	for _, line := range strings.Split(out, "\n") {
		if lostEvents(line) || lostFuncHook(line) {
			t.Errorf("--attach %s: %s", b, line)
		}
	}
	rows := c.CSV[b]
	if len(rows) == 0 {
		t.Errorf("--attach %s: no CSV rows", b)
		return
	}
	for _, r := range rows {
		if r["backend"] != b {
			t.Errorf("--attach %s: a CSV row says backend %q", b, r["backend"])
			break
		}
	}
	if b != "tracepoint" {
		for _, p := range CheckStages(rows) {
			t.Errorf("--attach %s: %s", b, p)
		}
	}
}

func lostEvents(line string) bool {
	return strings.HasPrefix(line, "warning: events dropped") || strings.HasPrefix(line, "warning: the run is incomplete")
}

// lostFuncHook spots a function hook the report says is missing; optional
// tracepoints (ext4, jbd2: modules the guest does not load) may be absent.
func lostFuncHook(line string) bool {
	hook, ok := strings.CutPrefix(line, "note: hook not attached: ")
	if !ok {
		return false
	}
	for _, kind := range []string{"kprobe ", "kretprobe ", "fentry ", "fexit "} {
		if strings.HasPrefix(hook, kind) {
			return true
		}
	}
	return false
}

// need finds a host tool or gives up on the test (see unavailable).
func need(t *testing.T, tool, hint string) string {
	t.Helper()
	path, err := exec.LookPath(tool)
	if err != nil {
		unavailable(t, "%s not found: %s", tool, hint)
	}
	return path
}

// unavailable fails in CI, where .ci/run installs everything, and skips
// elsewhere with the reason.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf("skipping the VM test (set CI=1 to make this a failure): "+format, args...)
}

// buildInitramfs builds static binaries of tmpprobe and the guest's /init
// and packs them with the directories /init mounts on.
func buildInitramfs(t *testing.T) string {
	dir := t.TempDir()
	bins := map[string][]string{
		"tmpprobe":   {"build", "../cmd/tmpprobe"},
		"init":       {"build", "./init"},
		"probe.test": {"test", "-c", "../probe"},
	}
	var buf bytes.Buffer
	a := NewCpio(&buf)
	for _, d := range []string{"dev", "proc", "sys", "tmp"} {
		a.Dir(d, 0o755)
	}
	a.CharDev("dev/console", 0o600, 5, 1)
	for name, args := range bins {
		out := filepath.Join(dir, name)
		// -buildvcs=false: run through sudo, this is root building a
		// checkout another user owns, which git refuses to read.
		cmd := exec.Command("go", args[0], "-trimpath", "-buildvcs=false", "-o", out)
		cmd.Args = append(cmd.Args, args[1:]...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		a.File(name, 0o755, data)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "initramfs.cpio")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// boot runs the guest to power-off and returns its console. TCG only: the
// KVM device on the CI machines cannot run a stock kernel. One vCPU: QEMU
// 7.2 (Debian 12) with -smp 2 hangs or crashes the guest now and then while
// BPF programs attach and detach.
func boot(t *testing.T, qemu, kernel, initrd string) (string, time.Duration) {
	appendLine := "console=ttyS0 quiet loglevel=1 panic=-1 mitigations=off tmpprobe.backends=" + strings.Join(testBackends(), ",")
	ctx, cancel := context.WithTimeout(context.Background(), guestTimeout+10*time.Second)
	defer cancel()
	secs := fmt.Sprint(int(guestTimeout.Seconds()))
	cmd := exec.CommandContext(ctx, "timeout", "--signal=KILL", secs, qemu,
		"-accel", "tcg", "-cpu", "max", "-smp", "1", "-m", "1024",
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-serial", "stdio", "-kernel", kernel, "-initrd", initrd, "-append", appendLine)
	cmd.Stdin = nil // /dev/null
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	elapsed := time.Since(start)
	if err != nil {
		t.Logf("qemu: %v", err)
	}
	return out.String(), elapsed
}
