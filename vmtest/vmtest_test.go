//go:build vmtest

package vmtest

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// guestTimeout is how long a guest may run: x86-64 guests took 3–5 min
// under TCG here, arm64 ones about twice as long.
func guestTimeout(arch string) time.Duration {
	if arch == "arm64" {
		return 20 * time.Minute
	}
	return 10 * time.Minute
}

// testBackends are the --attach values the guest runs: all three, or a
// comma list in TMPPROBE_VMTEST_BACKENDS when chasing one.
func testBackends() []string {
	if b := os.Getenv("TMPPROBE_VMTEST_BACKENDS"); b != "" {
		return strings.Split(b, ",")
	}
	return []string{"kprobe", "fentry", "tracepoint"}
}

// testKernels are the kernels to boot: those of StockKernels that make
// vmtest boots (CI), all of them with TMPPROBE_VMTEST_ALL=1 (make
// vmtest-all), or those named in TMPPROBE_VMTEST_KERNELS, a comma list of
// StockKernel.Name()s (bookworm/linux-image-6.12-arm64).
func testKernels(t *testing.T) []StockKernel {
	var out []StockKernel
	if names := os.Getenv("TMPPROBE_VMTEST_KERNELS"); names != "" {
		for _, n := range strings.Split(names, ",") {
			found := false
			for _, k := range StockKernels {
				if k.Name() == n {
					out, found = append(out, k), true
				}
			}
			if !found {
				t.Fatalf("TMPPROBE_VMTEST_KERNELS: no kernel %q (have %v)", n, kernelNames())
			}
		}
		return out
	}
	all := os.Getenv("TMPPROBE_VMTEST_ALL") != ""
	for _, k := range StockKernels {
		if k.CI || all {
			out = append(out, k)
		}
	}
	return out
}

func kernelNames() []string {
	var out []string
	for _, k := range StockKernels {
		out = append(out, k.Name())
	}
	return out
}

// qemuFor is the QEMU binary of an architecture and the package with it.
func qemuFor(arch string) (string, string) {
	if arch == "arm64" {
		return "qemu-system-aarch64", "qemu-system-arm"
	}
	return "qemu-system-x86_64", "qemu-system-x86"
}

// TestBackendsOnStockKernels boots each of Debian's stock kernels (kprobes,
// fentry and BTF on; FPROBE from 6.12) with tmpprobe as the workload, one
// after the other: the same checks must pass on each.
func TestBackendsOnStockKernels(t *testing.T) {
	need(t, "apt-get", "needs Debian's apt to fetch the kernel")
	need(t, "dpkg-deb", "needs dpkg-deb to unpack the kernel package")
	need(t, "xz", "install xz-utils: 6.12's modules are xz-compressed")
	mkfs := need(t, "mkfs.ext4", "install e2fsprogs: the guest's disk is an ext4 image")
	cache := os.Getenv("TMPPROBE_VMTEST_CACHE")
	if cache == "" {
		cache = "/var/cache/tmpprobe-vmtest"
	}
	var kernels []Kernel
	tools := map[string]string{}
	for _, sk := range testKernels(t) {
		bin, pkg := qemuFor(sk.Arch)
		need(t, bin, "install "+pkg)
		k, err := FetchKernel(cache, sk)
		if err != nil {
			unavailable(t, "stock kernel %s: %v", sk.Name(), err)
		}
		kernels = append(kernels, k)
		if tools[sk.Arch] == "" {
			root, err := FetchGuestTool(cache, Archive{"bookworm", sk.Arch})
			if err != nil {
				unavailable(t, "%s for the %s guest: %v", GuestTool, sk.Arch, err)
			}
			tools[sk.Arch] = root
		}
	}
	initrds := map[string][]byte{}
	for _, k := range kernels {
		if initrds[k.Arch] == nil {
			start := time.Now()
			initrds[k.Arch] = buildInitramfs(t, k.Arch, tools[k.Arch])
			t.Logf("%s initramfs built in %s", k.Arch, time.Since(start).Round(time.Millisecond))
		}
	}
	for _, k := range kernels {
		t.Run(k.Package, func(t *testing.T) {
			bin, _ := qemuFor(k.Arch)
			testKernel(t, bin, mkfs, k, initrds[k.Arch])
		})
	}
}

// olderThan reports whether the kernel's release (from its package name,
// linux-image-5.10.0-46-amd64) is before major.minor.
func olderThan(k Kernel, major, minor int) bool {
	var ma, mi int
	fmt.Sscanf(strings.TrimPrefix(k.Package, "linux-image-"), "%d.%d", &ma, &mi)
	return ma < major || (ma == major && mi < minor)
}

// testKernel boots k and checks that the three backends count the same
// syscalls, that the function backends add their stage rows, that the
// kprobe backend uses kprobe.multi exactly when k has FPROBE, that the
// modes lab counts what strace counts, that the disk's block I/O and
// journal commits are seen, and that nothing stays attached.
func testKernel(t *testing.T, qemu, mkfs string, k Kernel, base []byte) {
	fprobe, err := k.HasConfig("CONFIG_FPROBE")
	if err != nil {
		t.Fatalf("kernel config: %v", err)
	}
	initrd := writeInitrd(t, base, k)
	disk := makeDisk(t, mkfs)
	out, elapsed := boot(t, qemu, k, initrd, disk)
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
	t.Logf("kernel %s (%s, CONFIG_FPROBE %v); guest booted at %s, done at %s; qemu ran %s", k.Package, k.Arch, fprobe, c.Boot, c.Done, elapsed.Round(time.Millisecond))
	for _, n := range c.Notes {
		t.Logf("guest note: %s", n)
	}
	t.Logf("tmpprobe check in the guest:\n%s", c.Output["check"])
	if c.Exit["check"] != 0 {
		t.Errorf("tmpprobe check exit %d", c.Exit["check"])
	}
	var backends []string
	for _, b := range testBackends() {
		if why := unsupported(k, b); why != "" {
			checkRefused(t, c, b, why)
			continue
		}
		backends = append(backends, b)
	}
	checkProbeTests(t, c, backends)
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
	older := olderThan(k, 5, 18)
	checkOlderForms(t, c, older, backends)
	checkStrace(t, c)
	block, journal := checkDisk(t, c)
	taskState := checkTaskState(t, c, older)
	if c.Leftovers != `programs=0 maps=0 links=0 kprobes=""` {
		t.Errorf("left behind after the runs: %s", c.Leftovers)
	}
	offcpu := "prev_state"
	if older {
		offcpu = "task's state"
	}
	t.Logf("SUMMARY %s %s: backends %s; off-CPU causes from %s; block I/O %s; journal %s; task state %s",
		k.Package, k.Arch, strings.Join(backends, ","), offcpu, block, journal, taskState)
}

// unsupported says why kernel k cannot run backend b, or "": fentry on
// arm64 needs ftrace's direct calls there (v6.4), which Debian's 6.1
// lacks.
func unsupported(k Kernel, b string) string {
	if b == "fentry" && k.Arch == "arm64" && olderThan(k, 6, 4) {
		return "fentry on arm64 needs ftrace direct calls (v6.4)"
	}
	return ""
}

// checkRefused wants a backend the kernel cannot run refused as not
// supported, by check, the probe test and the run.
func checkRefused(t *testing.T, c *Console, b, why string) {
	out := c.Output["run "+b]
	if c.Exit["run "+b] != 2 || !strings.Contains(out, "--attach "+b+": not supported") {
		t.Errorf("--attach %s (%s): exit %d, want 2 and not supported:\n%s", b, why, c.Exit["run "+b], out)
	}
	if !strings.Contains(c.Output["probe tests"], "--- SKIP: TestBackendsCountExactly/"+b+" ") {
		t.Errorf("probe test of %s not skipped (%s)", b, why)
	}
	t.Logf("%s: refused as not supported (%s)", b, why)
}

// checkOlderForms wants check, and the runs' notes, to name sched_switch
// in its older form exactly on a kernel before 5.18, and check's OLDER
// FORM rows to be the forms the probe test found in the kernel's BTF
// (Debian's 5.10 has block_rq_issue's 5.11 form, backported, and
// block_bio_queue's older one: the disk's counts show both read right).
func checkOlderForms(t *testing.T, c *Console, older bool, backends []string) {
	out := c.Output["check"]
	section := ""
	if i := strings.Index(out, "\nOLDER FORM"); i >= 0 {
		section = out[i+1:]
		if j := strings.Index(section, "\n\n"); j >= 0 {
			section = section[:j]
		}
	}
	var rows, found []string
	for _, line := range strings.Split(section, "\n")[min(1, len(section)):] {
		if f := strings.Fields(line); len(f) > 0 {
			rows = append(rows, f[0])
		}
	}
	for _, line := range strings.Split(c.Output["probe tests"], "\n") {
		// kernel_test.go:120: block_bio_queue: form "_q" the bio after …
		if _, rest, ok := strings.Cut(line, "kernel_test.go:"); ok {
			if f := strings.Fields(rest); len(f) >= 4 && f[2] == "form" && f[3] != `""` {
				found = append(found, strings.TrimSuffix(f[1], ":"))
			}
		}
	}
	sort.Strings(rows)
	sort.Strings(found)
	if !slices.Equal(rows, found) || slices.Contains(rows, "sched_switch") != older {
		t.Errorf("check's OLDER FORM rows %q, the probe test found %q, sched_switch wanted there: %v\n%s", rows, found, older, out)
	}
	t.Logf("hooks in an older form: %q", rows)
	note := "sched_switch has no prev_state argument on this kernel"
	for _, b := range backends {
		if got := strings.Contains(strings.Join(strings.Fields(c.Output["run "+b]), " "), note); got != older {
			t.Errorf("--attach %s: the footer notes %q: %v, want %v", b, note, got, older)
		}
	}
}

// checkStrace wants every traced batch of the modes lab to count, class by
// class, what strace saw the same thread do between the same markers.
func checkStrace(t *testing.T, c *Console) {
	if c.Exit["strace"] != 0 {
		t.Errorf("tmpprobe all under strace: exit %d:\n%s", c.Exit["strace"], c.Output["strace"])
	}
	strace, err := ParseCounts(c.Blocks["strace"])
	if err != nil {
		t.Fatal(err)
	}
	batches, err := ParseCounts(c.Blocks["batches"])
	if err != nil {
		t.Fatal(err)
	}
	cases := map[uint32]string{}
	for _, line := range strings.Split(c.Blocks["cases"], "\n") {
		var p uint32
		var name string
		if n, _ := fmt.Sscanf(line, "%d %s", &p, &name); n == 2 {
			cases[p] = name
		}
	}
	if len(batches) < 9 {
		t.Errorf("tmpprobe all --lab modes --runtime go under strace: %d traced batches, want one an arm (9)", len(batches))
	}
	calls := uint64(0)
	for _, b := range batches {
		for _, n := range b {
			calls += n
		}
	}
	for _, d := range CompareWithStrace(batches, strace, cases) {
		t.Errorf("strace: %s", d)
	}
	t.Logf("strace: %d traced batches, %d calls, compared class by class", len(batches), calls)
}

// checkDisk wants the syncing arms' fsync on the ext4 disk to show the
// bios the worker queued, the requests on the disk and journal commits,
// and returns what it saw of each.
func checkDisk(t *testing.T, c *Console) (block, journal string) {
	if !c.Disk {
		t.Errorf("the guest did not mount its disk")
	}
	if c.Exit["disk"] != 0 {
		t.Errorf("the syncing arms on the disk: exit %d:\n%s", c.Exit["disk"], c.Output["disk"])
	}
	t.Logf("the syncing arms on the disk:\n%s", c.Output["disk"])
	stages := map[string]uint64{}
	for _, r := range c.CSV["disk"] {
		if r["syscall"] == "fsync" && r["stage"] != "" && r["stack"] == "" {
			n, _ := strconv.ParseUint(r["calls"], 10, 64)
			stages[r["stage"]] += n
		}
	}
	for _, s := range []string{"bio_write", "dev_write", "jbd2_commit"} {
		if stages[s] == 0 {
			t.Errorf("fsync on the ext4 disk: no %s (stages %v)", s, stages)
		}
	}
	block = fmt.Sprintf("bio_write %d, dev_write %d", stages["bio_write"], stages["dev_write"])
	journal = fmt.Sprintf("jbd2_commit %d", stages["jbd2_commit"])
	return block, journal
}

// checkTaskState wants the arms' task state measurement to have run where
// the kernel has prev_state, and to have been skipped, saying why, where
// it has not; it returns the measurement's total line.
func checkTaskState(t *testing.T, c *Console, older bool) string {
	out := c.Output["task state"]
	if older {
		if c.Exit["task state"] != 0 || !strings.Contains(out, "--- SKIP: TestTaskStateDisagreement") || !strings.Contains(out, "prev_state") {
			t.Errorf("task state measurement on a kernel without prev_state: want it skipped for that reason:\n%s", out)
		}
		return "not measurable (no prev_state)"
	}
	if c.Exit["task state"] != 0 || !strings.Contains(out, "--- PASS: TestTaskStateDisagreement") {
		t.Errorf("task state measurement: exit %d:\n%s", c.Exit["task state"], out)
	}
	t.Logf("task state measurement:\n%s", out)
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "all" {
			return strings.Join(f[1:], " ")
		}
	}
	return "?"
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
func checkProbeTests(t *testing.T, c *Console, backends []string) {
	out := c.Output["probe tests"]
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "backends_priv_test.go") { // how each backend attached
			t.Logf("probe test: %s", strings.TrimSpace(line))
		}
	}
	if c.Exit["probe tests"] != 0 {
		t.Errorf("probe tests in the guest: exit %d:\n%s", c.Exit["probe tests"], out)
	}
	for _, b := range backends {
		if !strings.Contains(out, "--- PASS: TestBackendsCountExactly/"+b+" ") {
			t.Errorf("probe test of %s did not pass in the guest:\n%s", b, out)
		}
	}
	for _, test := range []string{"TestHistSlotMatchesBPF", "TestThisKernelPasses"} {
		if !strings.Contains(out, "--- PASS: "+test+" ") {
			t.Errorf("%s did not pass in the guest:\n%s", test, out)
		}
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

// buildInitramfs builds static binaries of tmpprobe, the guest's /init
// and the probe and arms test binaries for arch and packs them with the
// directories /init mounts on and the guest tool's tree (strace and its
// libraries).
func buildInitramfs(t *testing.T, arch, toolRoot string) []byte {
	dir := t.TempDir()
	bins := map[string][]string{
		"tmpprobe":   {"build", "../cmd/tmpprobe"},
		"init":       {"build", "./init"},
		"probe.test": {"test", "-c", "../probe"},
		"arms.test":  {"test", "-c", "../arms"},
	}
	var buf bytes.Buffer
	a := NewCpio(&buf)
	for _, d := range []string{"dev", "proc", "sys", "tmp", "mnt"} {
		a.Dir(d, 0o755)
	}
	a.CharDev("dev/console", 0o600, 5, 1)
	for name, args := range bins {
		out := filepath.Join(dir, name)
		// -buildvcs=false: run through sudo, this is root building a
		// checkout another user owns, which git refuses to read.
		cmd := exec.Command("go", args[0], "-trimpath", "-buildvcs=false", "-o", out)
		cmd.Args = append(cmd.Args, args[1:]...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+arch)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		a.File(name, 0o755, data)
	}
	err := filepath.WalkDir(toolRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == toolRoot {
			return err
		}
		name, _ := filepath.Rel(toolRoot, path)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			a.Symlink(name, target)
		case d.IsDir():
			a.Dir(name, 0o755)
		default:
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			a.File(name, 0o755, data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeInitrd is the architecture's initramfs followed by a second
// archive with the kernel's disk modules (the kernel unpacks concatenated
// archives in order).
func writeInitrd(t *testing.T, base []byte, k Kernel) string {
	var buf bytes.Buffer
	buf.Write(base)
	a := NewCpio(&buf)
	a.Dir("modules", 0o755)
	var order []string
	for _, m := range k.Modules {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		a.File("modules/"+filepath.Base(m), 0o644, data)
		order = append(order, filepath.Base(m))
	}
	a.File("modules/order", 0o644, []byte(strings.Join(order, "\n")+"\n"))
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "initramfs.cpio")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// makeDisk makes the guest's disk: a 256 MiB ext4 image with a journal,
// as mkfs.ext4 makes one by default.
func makeDisk(t *testing.T, mkfs string) string {
	path := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 256<<20); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(mkfs, "-q", "-F", path).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v\n%s", err, out)
	}
	return path
}

// boot runs the guest to power-off and returns its console. TCG only: the
// KVM device on the CI machines cannot run a stock kernel. One vCPU: QEMU
// 7.2 (Debian 12) with -smp 2 hangs or crashes the guest now and then while
// BPF programs attach and detach. arm64 boots QEMU's virt board with a
// Cortex-A57 (ARMv8.0: TCG emulates -cpu max's pointer authentication
// slowly) and its PL011 UART as the console.
func boot(t *testing.T, qemu string, k Kernel, initrd, disk string) (string, time.Duration) {
	timeout := guestTimeout(k.Arch)
	console, machine := "ttyS0", []string{"-cpu", "max"}
	if k.Arch == "arm64" {
		console, machine = "ttyAMA0", []string{"-M", "virt", "-cpu", "cortex-a57"}
	}
	appendLine := "console=" + console + " quiet loglevel=1 panic=-1 mitigations=off tmpprobe.backends=" + strings.Join(testBackends(), ",")
	ctx, cancel := context.WithTimeout(context.Background(), timeout+10*time.Second)
	defer cancel()
	secs := fmt.Sprint(int(timeout.Seconds()))
	cmd := exec.CommandContext(ctx, "timeout", "--signal=KILL", secs, qemu)
	cmd.Args = append(cmd.Args, machine...)
	cmd.Args = append(cmd.Args, "-accel", "tcg", "-smp", "1", "-m", "1024",
		"-nodefaults", "-no-user-config", "-display", "none", "-no-reboot",
		"-serial", "stdio", "-kernel", k.Vmlinuz, "-initrd", initrd, "-append", appendLine,
		"-drive", "file="+disk+",format=raw,if=none,id=disk,cache=unsafe", "-device", "virtio-blk-pci,drive=disk")
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
