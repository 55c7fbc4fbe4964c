//go:build linux

package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/preflight"
)

// RegionFlag marks a region phase: a traced program marks its own regions
// with the same lseek marker, and their records carry REGION_FLAG | the
// program's phase (bpf/tmpprobe.h).
const RegionFlag = uint32(tmpprobePhaseFlagREGION_FLAG)

// TrackProcess traces every thread of pid in phase, as a whole (no
// markers). New threads are picked up at fork; with follow, new child
// processes too.
func (p *Probe) TrackProcess(pid int, phase uint32, follow bool) error {
	tids, err := threadsOf(pid)
	if err != nil {
		return err
	}
	return p.TrackThreads(tids, phase, follow)
}

// TrackThreads traces just these threads (and the threads they start).
func (p *Probe) TrackThreads(tids []int, phase uint32, follow bool) error {
	for _, tid := range tids {
		st := tmpprobeThreadState{Phase: phase, BasePhase: phase}
		if follow {
			st.Follow = 1
		}
		// A thread caught inside a syscall (blocked in read) exits it
		// without an enter: skip that exit, as after a marker. The next
		// sys_enter clears the flag for a thread caught in user space.
		st.InMarker = 1
		if err := p.coll.Maps[tmpprobeMapThreads].Put(uint32(tid), &st); err != nil {
			return fmt.Errorf("tracking thread %d: %w", tid, err)
		}
	}
	return nil
}

func threadsOf(pid int) ([]int, error) {
	entries, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, fmt.Errorf("pid %d: %w", pid, errtext.Cause(err))
	}
	var out []int
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}

// CgroupID is the id of a cgroup v2 directory: its inode number, which is
// what bpf_get_current_cgroup_id returns. A relative path is taken under
// the cgroup2 mount (/sys/fs/cgroup, or /sys/fs/cgroup/unified on hybrid
// systems).
func CgroupID(path string) (uint64, error) {
	if !strings.HasPrefix(path, "/") {
		root, err := preflight.Cgroup2Root()
		if err != nil {
			return 0, err
		}
		path = filepath.Join(root, path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("--cgroup %s: %w", path, errtext.Cause(err))
	}
	if !fi.IsDir() {
		return 0, fmt.Errorf("--cgroup %s: not a cgroup directory", path)
	}
	// Any directory has an inode number, and one on another filesystem can
	// equal a real cgroup's id: only a cgroup2 directory's number is one.
	var fs unix.Statfs_t
	if err := unix.Statfs(path, &fs); err != nil {
		return 0, fmt.Errorf("--cgroup %s: %w", path, err)
	}
	if fs.Type != unix.CGROUP2_SUPER_MAGIC {
		return 0, fmt.Errorf("--cgroup %s: not a cgroup v2 directory (not on a cgroup2 filesystem)", path)
	}
	return fi.Sys().(*syscall.Stat_t).Ino, nil
}

// KnownClass reports whether name is a syscall class tmpprobe can report:
// a syscall name of this architecture, openat[tmpfile], openat[create], or
// syscall_N for a number without a name.
func KnownClass(name string) bool {
	if _, ok := syscallNr(name); ok {
		return true
	}
	if name == pseudoClassNames[tmpprobePseudoClassCLASS_OPENAT_TMPFILE] || name == pseudoClassNames[tmpprobePseudoClassCLASS_OPENAT_CREATE] {
		return true
	}
	var nr uint16
	n, err := fmt.Sscanf(name, "syscall_%d", &nr)
	return err == nil && n == 1 && ClassName(nr) == name
}
