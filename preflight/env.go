//go:build linux

package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/results"
)

// Env records the host settings that move a lab's numbers besides the
// file system: writeback thresholds (when a write blocks or a flusher
// starts), transparent huge pages (page-fault cost of large buffers), the
// CPU frequency governor (every µs of user space), the kernel command line
// (mitigations: every syscall's entry and exit), and the workers' cgroup,
// whose limits throttle them. All are files any process can read.
func Env(m *results.Meta) {
	for _, name := range results.WritebackSysctls {
		if v := readTrim("/proc/sys/vm/" + name); v != "" {
			if m.Sysctls == nil {
				m.Sysctls = map[string]string{}
			}
			m.Sysctls["vm."+name] = v
		}
	}
	thp := "/sys/kernel/mm/transparent_hugepage/"
	if e := selected(readTrim(thp + "enabled")); e != "" {
		m.THP = "enabled " + e + ", defrag " + selected(readTrim(thp+"defrag"))
	}
	m.CPUFreq, m.CPUFreqNow = cpuFreq()
	m.Cmdline = readTrim("/proc/cmdline")
	m.Cgroup = ownCgroup()
}

// selected is the bracketed choice of a sysfs list ("always [madvise]
// never" → "madvise"), or the whole value when none is bracketed.
func selected(v string) string {
	if i := strings.IndexByte(v, '['); i >= 0 {
		if j := strings.IndexByte(v[i:], ']'); j > 0 {
			return v[i+1 : i+j]
		}
	}
	return v
}

// cpuFreq is the governors and the min–max settings of every CPU's policy,
// and the range of their current frequencies; "" without cpufreq (most
// VMs).
func cpuFreq() (setting, now string) {
	policies, _ := filepath.Glob("/sys/devices/system/cpu/cpufreq/policy*")
	govs := map[string]bool{}
	var lo, hi, curLo, curHi uint64
	for _, p := range policies {
		govs[readTrim(p+"/scaling_governor")] = true
		mn, _ := strconv.ParseUint(readTrim(p+"/scaling_min_freq"), 10, 64)
		mx, _ := strconv.ParseUint(readTrim(p+"/scaling_max_freq"), 10, 64)
		cur, _ := strconv.ParseUint(readTrim(p+"/scaling_cur_freq"), 10, 64)
		if lo == 0 || mn < lo {
			lo = mn
		}
		hi = max(hi, mx)
		if curLo == 0 || cur < curLo {
			curLo = cur
		}
		curHi = max(curHi, cur)
	}
	if len(policies) == 0 {
		return "", ""
	}
	var names []string
	for g := range govs {
		names = append(names, g)
	}
	sort.Strings(names)
	return fmt.Sprintf("governor %s, %d–%d MHz", strings.Join(names, "/"), lo/1000, hi/1000),
		fmt.Sprintf("%d–%d MHz", curLo/1000, curHi/1000)
}

// Cgroup2Root is where the cgroup2 file system is mounted (/sys/fs/cgroup,
// or /sys/fs/cgroup/unified on hybrid hosts).
func Cgroup2Root() (string, error) {
	mounts, err := Mounts()
	if err != nil {
		return "", err
	}
	for _, m := range mounts {
		if m.FSType == "cgroup2" {
			return m.Point, nil
		}
	}
	return "", fmt.Errorf("no cgroup2 filesystem is mounted")
}

// ownCgroup is this process's cgroup v2, which the workers it starts
// share, with its limits; nil without cgroup2.
func ownCgroup() *results.CgroupFacts {
	dir := ownCgroupDir()
	if dir == "" {
		return nil
	}
	root, _ := Cgroup2Root()
	c := &results.CgroupFacts{Path: "/" + strings.TrimPrefix(strings.TrimPrefix(dir, root), "/")}
	c.CPUMax = readTrim(dir + "/cpu.max")
	c.IOMax = strings.Join(strings.Fields(readTrim(dir+"/io.max")), " ")
	c.MemoryMax = readTrim(dir + "/memory.max")
	return c
}

func mustRoot() string {
	root, _ := Cgroup2Root()
	return root
}

func ownCgroupDir() string {
	root, err := Cgroup2Root()
	if err != nil {
		return ""
	}
	data, _ := os.ReadFile("/proc/self/cgroup")
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			return filepath.Join(root, p)
		}
	}
	return ""
}

// queue reads a device's block queue; dev is a sysfs block device name.
// A partition has no queue of its own: its disk's is read.
func queue(name, disk string) results.BlockQueue {
	q := results.BlockQueue{Device: name}
	dir := "/sys/block/" + disk + "/queue/"
	q.Scheduler = selected(readTrim(dir + "scheduler"))
	q.Rotational = readTrim(dir + "rotational")
	q.WriteCache = readTrim(dir + "write_cache")
	q.FUA = readTrim(dir + "fua")
	q.DiscardMax = readTrim(dir + "discard_max_bytes")
	q.DiscardGran = readTrim(dir + "discard_granularity")
	q.WbtLatUsec = readTrim(dir + "wbt_lat_usec")
	q.NrRequests = readTrim(dir + "nr_requests")
	q.ReadAheadKB = readTrim(dir + "read_ahead_kb")
	q.MaxSectorsKB = readTrim(dir + "max_sectors_kb")
	q.BackingFile = readTrim("/sys/block/" + disk + "/loop/backing_file")
	q.LoopDirectIO = readTrim("/sys/block/" + disk + "/loop/dio")
	return q
}

// queues lists the queue of every device in devs (kernel encoding), once
// per disk, in order.
func queues(devs []uint32) []results.BlockQueue {
	var out []results.BlockQueue
	seen := map[string]bool{}
	for _, d := range devs {
		disk, _, _, ok := wholeDisk(d>>20, d&0xfffff)
		if !ok || seen[disk] {
			continue
		}
		seen[disk] = true
		q := queue(disk, disk)
		out = append(out, q)
		// A loop device's requests end up on its backing file's disk:
		// that queue moves its numbers too (listed, not watched).
		var st unix.Stat_t
		if q.BackingFile != "" && unix.Stat(q.BackingFile, &st) == nil {
			if lower, _, _, ok := wholeDisk(unix.Major(st.Dev), unix.Minor(st.Dev)); ok && !seen[lower] {
				seen[lower] = true
				out = append(out, queue(lower, lower))
			}
		}
	}
	return out
}

// fsOptions are the options an ext4 runs with, its defaults included:
// /proc/fs/ext4/<dev>/options, one a line (data=ordered, commit=5,
// barrier, discard, …), where mountinfo shows only what differs.
func fsOptions(fsType, source string) string {
	if fsType != "ext4" && fsType != "ext3" {
		return ""
	}
	data, err := os.ReadFile("/proc/fs/ext4/" + filepath.Base(source) + "/options")
	if err != nil {
		return ""
	}
	return strings.Join(strings.Fields(string(data)), ",")
}

// PSIResources are the pressure files a run's deltas are taken of.
var PSIResources = []string{"cpu", "io", "memory"}

// pressureTotals reads the total= counters (µs) of dir's <res>.pressure
// files ("/proc/pressure/<res>" for the host).
func pressureTotals(path func(res string) string) map[string][2]uint64 {
	out := map[string][2]uint64{}
	for _, res := range PSIResources {
		data, err := os.ReadFile(path(res))
		if err != nil {
			continue
		}
		var t [2]uint64
		for _, line := range strings.Split(string(data), "\n") {
			f := strings.Fields(line)
			if len(f) < 5 {
				continue
			}
			v, _ := strconv.ParseUint(strings.TrimPrefix(f[4], "total="), 10, 64)
			switch f[0] {
			case "some":
				t[0] = v
			case "full":
				t[1] = v
			}
		}
		out[res] = t
	}
	return out
}

// PressureOver starts measuring pressure stall time, the host's and this
// process's cgroup's (the workers'); the func it returns gives the deltas
// since.
func PressureOver() func() []results.Pressure {
	scopes := []struct {
		name string
		path func(string) string
	}{{"host", func(r string) string { return "/proc/pressure/" + r }}}
	if dir := ownCgroupDir(); dir != "" && dir != strings.TrimSuffix(mustRoot(), "/") {
		scopes = append(scopes, struct {
			name string
			path func(string) string
		}{"cgroup", func(r string) string { return dir + "/" + r + ".pressure" }})
	}
	start := time.Now()
	before := make([]map[string][2]uint64, len(scopes))
	for i, s := range scopes {
		before[i] = pressureTotals(s.path)
	}
	return func() []results.Pressure {
		wall := uint64(time.Since(start))
		var out []results.Pressure
		for i, s := range scopes {
			after := pressureTotals(s.path)
			for _, res := range PSIResources {
				a, okA := after[res]
				b, okB := before[i][res]
				if !okA || !okB {
					continue
				}
				out = append(out, results.Pressure{Scope: s.name, Resource: res,
					SomeNs: (a[0] - b[0]) * 1000, FullNs: (a[1] - b[1]) * 1000, WallNs: wall})
			}
		}
		return out
	}
}
