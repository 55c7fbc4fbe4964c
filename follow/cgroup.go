//go:build linux

package follow

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/internal/escape"
	"github.com/tmpprobe/tmpprobe/preflight"
)

// CgroupID is the id of a cgroup v2 directory for --cgroup: its inode
// number, which is what bpf_get_current_cgroup_id returns. A relative path
// is taken under the cgroup2 mount (/sys/fs/cgroup, or
// /sys/fs/cgroup/unified on hybrid systems).
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
		return 0, fmt.Errorf("--cgroup %s: %w", escape.Line(path), errtext.Cause(err))
	}
	if !fi.IsDir() {
		return 0, fmt.Errorf("--cgroup %s: not a cgroup directory", escape.Line(path))
	}
	// Any directory has an inode number, and one on another filesystem can
	// equal a real cgroup's id: only a cgroup2 directory's number is one.
	var fs unix.Statfs_t
	if err := unix.Statfs(path, &fs); err != nil {
		return 0, fmt.Errorf("--cgroup %s: %w", escape.Line(path), err)
	}
	if fs.Type != unix.CGROUP2_SUPER_MAGIC {
		return 0, fmt.Errorf("--cgroup %s: not a cgroup v2 directory (not on a cgroup2 filesystem)", escape.Line(path))
	}
	return fi.Sys().(*syscall.Stat_t).Ino, nil
}

// commandCgroup is a cgroup v2 of the launched command's own, made below
// tmpprobe's cgroup. The command starts in it (clone3's
// CLONE_INTO_CGROUP), and everything it starts stays in it whatever it
// does: a double fork, setsid and ignored signals leave the process tree
// and the process group, never the cgroup. Killing the cgroup
// (cgroup.kill) ends them all; what the command asked others to start (a
// systemd unit, a request to a running server) runs elsewhere and is not
// killed.
type commandCgroup struct {
	dir *os.File
	// path is the directory, for rmdir once empty.
	path string
}

// newCommandCgroup makes the cgroup, or says why it cannot (no cgroup2,
// no privilege, the name taken): the command then runs where tmpprobe
// runs, and only its process tree is stopped.
func newCommandCgroup() (*commandCgroup, string) {
	root, err := preflight.Cgroup2Root()
	if err != nil {
		return nil, errtext.FirstLine(err.Error())
	}
	own, err := ownCgroup()
	if err != nil {
		return nil, err.Error()
	}
	path := filepath.Join(root, own, cgroupPrefix+strconv.Itoa(os.Getpid()))
	os.Remove(path) // an empty one a killed tmpprobe of this pid left
	if err := os.Mkdir(path, 0o755); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, path + " is taken: processes run in it"
		}
		return nil, errtext.FirstLine(err.Error())
	}
	dir, err := os.Open(path)
	if err != nil {
		os.Remove(path)
		return nil, errtext.FirstLine(err.Error())
	}
	return &commandCgroup{dir: dir, path: path}, ""
}

// id is the cgroup's id, as bpf_get_current_cgroup_id returns it: its
// directory's inode number (see CgroupID).
func (cg *commandCgroup) id() uint64 {
	var st unix.Stat_t
	if unix.Fstat(int(cg.dir.Fd()), &st) != nil {
		return 0
	}
	return st.Ino
}

// armClock arms clock for the execs-th exec in cg; the cgroup's id, or 0
// when there is no clock or no cgroup to time by.
func armClock(clock ExecClock, cg *commandCgroup, execs uint32) uint64 {
	if clock == nil || cg == nil {
		return 0
	}
	id := cg.id()
	if id == 0 || clock.ArmExecClock(id, execs) != nil {
		return 0
	}
	return id
}

// monotonicNs is CLOCK_MONOTONIC, the clock of the probe's timestamps.
func monotonicNs() uint64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return uint64(ts.Nano())
}

// cgroupPrefix names a command's cgroup, with tmpprobe's pid after it.
const cgroupPrefix = "tmpprobe-trace-"

// SweepCgroups removes the command cgroups that a tmpprobe killed before
// it could remove them left (with SIGKILL, which no process can catch),
// killing what still runs in them, and says what it removed. A cgroup is
// its owner's while the pid in its name runs in the cgroup above it, where
// tmpprobe made it; a pid that ended, or that now names another process
// elsewhere, left it.
func SweepCgroups() []string {
	root, err := preflight.Cgroup2Root()
	if err != nil {
		return nil
	}
	var said []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		pid, ok := strings.CutPrefix(d.Name(), cgroupPrefix)
		if !ok {
			return nil
		}
		n, err := strconv.Atoi(pid)
		if err != nil || n == os.Getpid() || runsIn(n, filepath.Dir(path)) {
			return filepath.SkipDir
		}
		c := &commandCgroup{path: path}
		left := len(c.procs())
		c.remove()
		what := "empty"
		if left > 0 {
			what = fmt.Sprintf("%d processes killed", left)
		}
		said = append(said, fmt.Sprintf("removed %s, which a killed tmpprobe (pid %d) left (%s)", path, n, what))
		return filepath.SkipDir
	})
	return said
}

// runsIn reports whether process pid is in the cgroup at path.
func runsIn(pid int, path string) bool {
	b, err := os.ReadFile(filepath.Join(path, "cgroup.procs"))
	if err != nil {
		return true // cannot tell: leave it
	}
	return slices.Contains(strings.Fields(string(b)), strconv.Itoa(pid))
}

// ownCgroup is tmpprobe's cgroup v2 path, from /proc/self/cgroup's "0::"
// line.
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
		if p, ok := strings.CutPrefix(sc.Text(), "0::"); ok {
			return p, nil
		}
	}
	return "", errors.New("not in a cgroup v2")
}

// kill SIGKILLs every process in the cgroup at once. Without cgroup.kill
// (kernels before 5.14) it kills what cgroup.procs lists until nothing is
// left to list.
func (c *commandCgroup) kill() {
	if os.WriteFile(filepath.Join(c.path, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	for range 100 {
		pids := c.procs()
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			unix.Kill(p, unix.SIGKILL)
		}
	}
}

// signal sends sig to every process in the cgroup.
func (c *commandCgroup) signal(sig unix.Signal) {
	for _, p := range c.procs() {
		unix.Kill(p, sig)
	}
}

func (c *commandCgroup) procs() []int {
	b, _ := os.ReadFile(filepath.Join(c.path, "cgroup.procs"))
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// remove kills what is left, waits (a little) for the kernel to empty the
// cgroup, and removes it.
func (c *commandCgroup) remove() {
	c.kill()
	for range 200 {
		if err := unix.Rmdir(c.path); !errors.Is(err, unix.EBUSY) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if c.dir != nil {
		c.dir.Close()
	}
}
