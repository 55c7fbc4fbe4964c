//go:build linux

// Command init is /init of the vmtest guest: it mounts what tmpprobe needs
// and the ext4 disk the host made (loading the kernel's modules for it),
// runs 'tmpprobe check', the probe package's backend and histogram tests,
// one run per backend, the modes lab under strace, a syncing arm on the
// disk and the arms' task state measurement, prints everything on the
// console between VMTEST lines the host parses (vmtest/console.go),
// checks that no BPF program, map, link or kprobe is left, and powers off.
package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
	"unsafe"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/vmtest"
)

// The guest's tmpprobe and the arguments of every backend's run, before
// --attach B --csv FILE. No baseline batches: under TCG each attach of the
// 36 function hooks (fentry, single kprobes; kprobe.multi makes two links)
// costs seconds (text patching, RCU grace periods), and
// the trial attach in probe.Open plus the run's own still detach and
// re-attach once.
const tmpprobe = "/tmpprobe"

var runArgs = []string{"run", "modes", "buffers", "--runtime", "go",
	"--ops", "50", "--rounds", "1", "--no-baseline", "--sizes", "256K", "--dir", "/tmp", "-q"}

// straceArgs run the whole modes lab of the Go runtime under strace, whose
// log the probe's counts of the same batches are held to, batch by batch.
var straceArgs = []string{"-f", "-qq", "-o", "/tmp/strace.log", tmpprobe, "all", "--lab", "modes", "--runtime", "go",
	"--ops", "20", "--rounds", "1", "--no-baseline", "--dir", "/tmp", "--out", "/tmp/modes", "-q"}

// diskArgs run the syncing arms on the ext4 disk (a journal, a virtio
// block device): their fsync's block I/O and journal commits.
var diskArgs = []string{"run", "mkstemp-fsync", "atomic-replace", "--lab", "modes", "--runtime", "go",
	"--ops", "20", "--rounds", "1", "--no-baseline", "--dir", vmtest.GuestDisk, "--csv", "/tmp/disk.csv", "-q"}

func main() {
	mountAll()
	console()
	fmt.Printf("VMTEST boot %s\n", uptime())
	loadModules()
	mountDisk()
	runCmd("check", tmpprobe, "check")
	// TestHistSlotMatchesBPF runs the BPF hist_slot in this kernel: the
	// histogram geometry results reads must be what every supported
	// kernel's BPF computes, not only the host's.
	runCmd("probe tests", "/probe.test", "-test.v", "-test.count=1", "-test.run", "^(TestBackendsCountExactly|TestHistSlotMatchesBPF|TestThisKernelPasses)$")
	for _, b := range backends() {
		csv := "/tmp/" + b + ".csv"
		args := append(append([]string{}, runArgs...), "--attach", b, "--csv", csv)
		runCmd("run "+b, tmpprobe, args...)
		fmt.Printf("VMTEST csv-begin %s\n%sVMTEST csv-end %s\n", b, readFile(csv), b)
	}
	os.Setenv("LD_LIBRARY_PATH", "/lib:/usr/lib:/lib/"+libDir()+":/usr/lib/"+libDir())
	runCmd("strace", "/usr/bin/strace", straceArgs...)
	straceCounts()
	runCmd("disk", tmpprobe, diskArgs...)
	fmt.Printf("VMTEST csv-begin disk\n%sVMTEST csv-end disk\n", readFile("/tmp/disk.csv"))
	os.Setenv("TMPPROBE_TASKSTATE_DIR", vmtest.GuestDisk)
	runCmd("task state", "/arms.test", "-test.v", "-test.count=1", "-test.run", "^TestTaskStateDisagreement$")
	leftovers()
	fmt.Printf("VMTEST done at=%s\n", uptime())
	unix.Sync()
	unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF)
}

// backends are the --attach values tried, from the kernel command line
// (tmpprobe.backends=a,b) so a failing one can be run alone.
func backends() []string {
	for _, f := range strings.Fields(readFile("/proc/cmdline")) {
		if v, ok := strings.CutPrefix(f, "tmpprobe.backends="); ok {
			return strings.Split(v, ",")
		}
	}
	return []string{"kprobe", "fentry", "tracepoint"}
}

// libDir is Debian's multiarch directory of the guest's libraries.
func libDir() string {
	if runtime.GOARCH == "arm64" {
		return "aarch64-linux-gnu"
	}
	return "x86_64-linux-gnu"
}

// straceCounts prints strace's counts of each marked region and the run's
// of each traced batch, by phase, for the host to compare.
func straceCounts() {
	regions, err := vmtest.StraceRegions(readFile("/tmp/strace.log"))
	if err != nil {
		fmt.Printf("VMTEST note strace log: %v\n", err)
	}
	batches, err := vmtest.RunBatches([]byte(readFile("/tmp/modes/run.json")))
	if err != nil {
		fmt.Printf("VMTEST note run.json: %v\n", err)
	}
	counts := map[uint32]vmtest.Counts{}
	var cases strings.Builder
	for p, b := range batches {
		counts[p] = b.Counts
		fmt.Fprintf(&cases, "%d %s %d\n", p, b.Case, b.Ops)
	}
	fmt.Printf("VMTEST block-begin strace\n%sVMTEST block-end strace\n", vmtest.FormatCounts(regions))
	fmt.Printf("VMTEST block-begin batches\n%sVMTEST block-end batches\n", vmtest.FormatCounts(counts))
	fmt.Printf("VMTEST block-begin cases\n%sVMTEST block-end cases\n", cases.String())
}

// loadModules loads the disk's modules the host put in /modules, in the
// order it wrote (each after those it depends on).
func loadModules() {
	for _, name := range strings.Fields(readFile("/modules/order")) {
		f, err := os.Open("/modules/" + name)
		if err == nil {
			err = unix.FinitModule(int(f.Fd()), "", 0)
			f.Close()
		}
		if err != nil && err != unix.EEXIST {
			fmt.Printf("VMTEST note module %s: %v\n", name, err)
		}
	}
}

// mountDisk mounts the host's ext4 image (the first virtio disk) on
// vmtest.GuestDisk; the block device may appear a moment after its driver
// loads.
func mountDisk() {
	os.MkdirAll(vmtest.GuestDisk, 0o755)
	var err error
	for try := 0; try < 50; try++ {
		if err = unix.Mount("/dev/vda", vmtest.GuestDisk, "ext4", 0, ""); err == nil {
			fmt.Printf("VMTEST disk mounted\n")
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("VMTEST note mount %s: %v\n", vmtest.GuestDisk, err)
}

func mountAll() {
	for _, m := range []struct{ src, dir, fstype string }{
		{"proc", "/proc", "proc"},
		{"sysfs", "/sys", "sysfs"},
		{"devtmpfs", "/dev", "devtmpfs"},
		{"tracefs", "/sys/kernel/tracing", "tracefs"},
		{"debugfs", "/sys/kernel/debug", "debugfs"},
		{"tmpfs", "/tmp", "tmpfs"},
	} {
		os.MkdirAll(m.dir, 0o755)
		if err := unix.Mount(m.src, m.dir, m.fstype, 0, ""); err != nil {
			fmt.Printf("VMTEST note mount %s: %v\n", m.dir, err)
		}
	}
}

// console makes sure stdio is the serial console even if the initramfs had
// no /dev/console when the kernel started us.
func console() {
	fd, err := unix.Open("/dev/console", unix.O_RDWR, 0)
	if err != nil {
		return
	}
	for i := 0; i < 3; i++ {
		unix.Dup2(fd, i)
	}
}

func runCmd(label, path string, args ...string) {
	fmt.Printf("VMTEST cmd-begin %s: %s %s\n", label, path, strings.Join(args, " "))
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
	err := cmd.Run()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	fmt.Printf("VMTEST cmd-end %s at=%s exit=%d\n", label, uptime(), code)
}

// leftovers reports what BPF objects and kprobes exist once every tmpprobe
// process is gone; the guest has nothing else that loads BPF, so all must
// be zero. Freeing is deferred to work queues, so it waits a little.
func leftovers() {
	var progs, maps, links int
	kprobes := ""
	for try := 0; try < 20; try++ {
		progs = countIDs(func(id uint32) (uint32, error) {
			n, err := ebpf.ProgramGetNextID(ebpf.ProgramID(id))
			return uint32(n), err
		})
		maps = countIDs(func(id uint32) (uint32, error) {
			n, err := ebpf.MapGetNextID(ebpf.MapID(id))
			return uint32(n), err
		})
		links = countIDs(linkGetNextID)
		kprobes = strings.TrimSpace(readFile("/sys/kernel/debug/kprobes/list") + readFile("/sys/kernel/tracing/kprobe_events"))
		if progs+maps+links == 0 && kprobes == "" {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	fmt.Printf("VMTEST leftovers programs=%d maps=%d links=%d kprobes=%q\n", progs, maps, links, kprobes)
}

func countIDs(next func(uint32) (uint32, error)) int {
	n := 0
	for id := uint32(0); ; n++ {
		var err error
		if id, err = next(id); err != nil {
			return n
		}
	}
}

// linkGetNextID is BPF_LINK_GET_NEXT_ID, which cilium/ebpf does not export.
func linkGetNextID(start uint32) (uint32, error) {
	const bpfLinkGetNextID = 31
	attr := struct{ start, next, flags uint32 }{start: start}
	_, _, errno := unix.Syscall(unix.SYS_BPF, bpfLinkGetNextID, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr))
	if errno != 0 {
		return 0, errno
	}
	return attr.next, nil
}

func uptime() string {
	f := strings.Fields(readFile("/proc/uptime"))
	if len(f) == 0 {
		return "?"
	}
	return f[0] + "s"
}

func readFile(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(bytes.TrimRight(b, "\x00"))
}
