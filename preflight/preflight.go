//go:build linux

// Package preflight gathers the facts that change what the numbers mean:
// the host, the filesystem under each work directory, its journal, the
// device's write cache, and how busy the host is.
package preflight

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/results"
)

// Host is what a run records of the machine: the kernel release, the
// machine, and the CPU model and count.
func Host() results.Meta {
	m := results.Meta{CPUs: runtime.NumCPU(), CPU: cpuModel()}
	var u unix.Utsname
	if unix.Uname(&u) == nil {
		m.KernelRelease = unix.ByteSliceToString(u.Release[:])
		m.Machine = unix.ByteSliceToString(u.Machine[:])
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

// Facts are the facts of a run in dirs: the host, python the version of
// its Python runtime ("" for none), the filesystem of each dir and the
// load (Warnings says what they call for). Devs are the dirs' block
// devices, whose I/O the probe matches to syscalls. An error names the
// dir.
func Facts(dirs []string, python string) (m results.Meta, devs []uint32, err error) {
	m = Host()
	m.Python = python
	for _, d := range dirs {
		facts, dd, err := Dir(d)
		if err != nil {
			return m, nil, fmt.Errorf("%s: %v", d, err)
		}
		m.Dirs = append(m.Dirs, facts)
		devs = append(devs, dd...)
	}
	m.LoadAvg = LoadAvg()
	Env(&m)
	return m, devs, nil
}

// Dir inspects the filesystem dir lives on. Devs are the kernel dev_t
// values whose block I/O belongs to it: its device, the whole disk, and
// for a device-mapper or md device every device below it (requests are
// issued on those).
func Dir(dir string) (f results.DirFacts, devs []uint32, err error) {
	f.Dir = dir
	var st unix.Stat_t
	if err := unix.Stat(dir, &st); err != nil {
		return f, nil, err
	}
	major, minor := unix.Major(st.Dev), unix.Minor(st.Dev)
	f.Dev = fmt.Sprintf("%d:%d", major, minor)
	abs, _ := filepath.Abs(dir)
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	readMount(&f, abs)
	if f.FSType == "overlay" {
		// Files written in an overlay live in its upper layer: its file
		// system and devices are the ones a run's I/O reaches.
		if upper := mountOption(f.Options, "upperdir"); upper != "" && unix.Stat(upper, &st) == nil {
			f.Upper = upper
			readMount(&f, upper)
			major, minor = unix.Major(st.Dev), unix.Minor(st.Dev)
		}
	}
	if major == 0 {
		// btrfs reports an anonymous st_dev; its block device is the
		// mount's source. tmpfs, overlay, …: there is none.
		var src unix.Stat_t
		if unix.Stat(f.Source, &src) != nil || src.Mode&unix.S_IFMT != unix.S_IFBLK {
			return f, nil, nil
		}
		major, minor = unix.Major(src.Rdev), unix.Minor(src.Rdev)
	}
	devs = below(major, minor, map[uint32]bool{})
	f.Queues = queues(devs)
	f.FSOptions = fsOptions(f.FSType, f.Source)
	if disk, _, _, ok := wholeDisk(major, minor); ok {
		f.Disk = disk
		f.WriteCache = readTrim("/sys/block/" + disk + "/queue/write_cache")
		switch readTrim("/sys/block/" + disk + "/queue/fua") {
		case "1":
			f.FUA = "yes"
		case "0":
			f.FUA = "no"
		}
	}
	if f.FSType == "ext4" || f.FSType == "ext3" {
		f.Journal, f.FastCommit = ext4Journal(f.Source)
		if f.Journal == "" {
			f.Journal = jbd2Journal(f.Source)
		}
	}
	return f, devs, nil
}

// mountOption is the value of name= in a mount's options, "" when absent.
func mountOption(options, name string) string {
	for _, o := range strings.Split(options, ",") {
		if v, ok := strings.CutPrefix(o, name+"="); ok {
			return v
		}
	}
	return ""
}

// readMount finds the mount of path: the longest mount point that is a
// prefix of path.
func readMount(f *results.DirFacts, path string) {
	mounts, _ := Mounts()
	best := -1
	for _, m := range mounts {
		if !under(path, m.Point) || len(m.Point) <= best {
			continue
		}
		best = len(m.Point)
		f.MountPoint, f.Options, f.FSType, f.Source = m.Point, m.Options, m.FSType, m.Source
	}
}

// Mount is one mount this process sees.
type Mount struct {
	Point   string // where it is mounted
	Options string // the mount's options, then the superblock's not among them
	FSType  string
	Source  string
}

// Mounts lists the mounts this process sees, from /proc/self/mountinfo.
func Mounts() ([]Mount, error) {
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer mi.Close()
	var out []Mount
	sc := bufio.NewScanner(mi)
	for sc.Scan() {
		// id parent maj:min root mountpoint options [optional...] - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		a, b := strings.Fields(pre), strings.Fields(post)
		if !ok || len(a) < 6 || len(b) < 2 {
			continue
		}
		m := Mount{Point: unescape(a[4]), Options: a[5], FSType: b[0], Source: b[1]}
		if len(b) > 2 {
			// Both lists start with rw or ro: said once.
			opts := strings.Split(a[5], ",")
			for _, o := range strings.Split(b[2], ",") {
				if !slices.Contains(opts, o) {
					opts = append(opts, o)
				}
			}
			m.Options = strings.Join(opts, ",")
		}
		out = append(out, m)
	}
	return out, sc.Err()
}

func under(path, mp string) bool {
	return mp == "/" || path == mp || strings.HasPrefix(path, mp+"/")
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// below lists a block device, its whole disk, and recursively the devices
// under it (sysfs "slaves": the disks of an LVM volume, a dm-crypt
// mapping or an md array).
func below(major, minor uint32, seen map[uint32]bool) []uint32 {
	dev := kernelDev(major, minor)
	if seen[dev] {
		return nil
	}
	seen[dev] = true
	out := []uint32{dev}
	if _, dmaj, dmin, ok := wholeDisk(major, minor); ok && !seen[kernelDev(dmaj, dmin)] {
		seen[kernelDev(dmaj, dmin)] = true
		out = append(out, kernelDev(dmaj, dmin))
	}
	slaves, _ := os.ReadDir(fmt.Sprintf("/sys/dev/block/%d:%d/slaves", major, minor))
	for _, s := range slaves {
		var ma, mi uint32
		if _, err := fmt.Sscanf(readTrim("/sys/class/block/"+s.Name()+"/dev"), "%d:%d", &ma, &mi); err == nil {
			out = append(out, below(ma, mi, seen)...)
		}
	}
	return out
}

// kernelDev is the kernel's MKDEV encoding of a device (major << 20 |
// minor), which the block tracepoints carry and the probe matches: not the
// user-space dev_t that stat returns.
func kernelDev(major, minor uint32) uint32 { return major<<20 | minor }

// wholeDisk resolves a partition to its disk through sysfs.
func wholeDisk(major, minor uint32) (string, uint32, uint32, bool) {
	sys, err := filepath.EvalSymlinks(fmt.Sprintf("/sys/dev/block/%d:%d", major, minor))
	if err != nil {
		return "", 0, 0, false
	}
	if _, err := os.Stat(filepath.Join(sys, "partition")); err == nil {
		sys = filepath.Dir(sys)
	}
	var ma, mi uint32
	if _, err := fmt.Sscanf(readTrim(filepath.Join(sys, "dev")), "%d:%d", &ma, &mi); err != nil {
		return "", 0, 0, false
	}
	return filepath.Base(sys), ma, mi, true
}

// ext4Journal reads the superblock's compat features: has_journal (0x4)
// and fast_commit (0x400). Mount options cannot tell; sysfs shows neither.
func ext4Journal(dev string) (journal, fastCommit string) {
	f, err := os.Open(dev)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sb := make([]byte, 1024)
	if _, err := f.ReadAt(sb, 1024); err != nil {
		return "", ""
	}
	if binary.LittleEndian.Uint16(sb[0x38:]) != 0xEF53 {
		return "", ""
	}
	compat := binary.LittleEndian.Uint32(sb[0x5C:])
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return yes(compat&0x4 != 0), yes(compat&0x400 != 0)
}

// jbd2Journal is the fallback when the device cannot be read (a device
// cgroup may refuse even root): jbd2 lists each journal it runs in
// /proc/fs/jbd2 as <dev>-<inode>, inode 8 being ext4's internal journal.
func jbd2Journal(source string) string {
	if !strings.HasPrefix(source, "/dev/") {
		return ""
	}
	if _, err := os.Stat("/proc/fs/jbd2/" + filepath.Base(source) + "-8"); err == nil {
		return "yes"
	}
	return "no"
}

func readTrim(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// LoadAvg is the 1-minute load average.
func LoadAvg() float64 {
	var v float64
	fmt.Sscanf(readTrim("/proc/loadavg"), "%f", &v)
	return v
}

// Warnings names the facts that change what the numbers mean (worded
// by results/report).
func Warnings(m *results.Meta) []results.Warning {
	var out []results.Warning
	for _, d := range m.Dirs {
		opts := "," + d.Options + ","
		switch {
		case d.FSType == "tmpfs":
			out = append(out, results.Warning{Kind: results.WarningTmpfs, Dir: d.Dir})
		case d.FSType == "ext4" && d.Journal == "no":
			out = append(out, results.Warning{Kind: results.WarningNoJournal, Dir: d.Dir})
		}
		if d.Upper != "" {
			out = append(out, results.Warning{Kind: results.WarningOverlay, Dir: d.Dir, Upper: d.Upper, FSType: d.FSType})
		}
		if d.Disk == "" && d.FSType != "tmpfs" && d.FSType != "ramfs" {
			out = append(out, results.Warning{Kind: results.WarningNoBlockDevice, Dir: d.Dir, FSType: d.FSType})
		}
		if strings.Contains(opts, ",discard,") {
			out = append(out, results.Warning{Kind: results.WarningDiscard, Dir: d.Dir})
		}
		if d.WriteCache == "write through" {
			out = append(out, results.Warning{Kind: results.WarningWriteThrough, Dir: d.Dir})
		}
	}
	if m.CPUs > 0 && m.LoadAvg > float64(m.CPUs)/2 {
		out = append(out, results.Warning{Kind: results.WarningHostBusy, Load: m.LoadAvg, CPUs: m.CPUs})
	}
	return out
}
