//go:build linux

package arms

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/marker"
)

// The Go runtime: native mirrors of the Python arms. Every file syscall is
// a RawSyscall, so the runtime never hands the P off around it, and the
// parent runs the worker with GOMAXPROCS=1: the one M that holds the one P
// runs the whole batch, and sysmon's every-10ms preemption reschedules the
// goroutine onto that same M without a syscall. (runtime.LockOSThread
// would cost futex calls there: a locked M parks and is woken instead.)
// GODEBUG=asyncpreemptoff=1 keeps SIGURG and its rt_sigreturn out too.

const (
	oTmpfile = unix.O_TMPFILE
	modeRW   = 0o600
)

// AT_FDCWD is negative; as a raw syscall argument it is its two's complement.
var fdcwd = unix.AT_FDCWD
var atFdcwd = uintptr(fdcwd)

type goWorker struct {
	cfg      Config
	dir      []byte // NUL-terminated
	dirFd    uintptr
	fd       uintptr // the file the op's steps work on
	payload  []byte
	chunk    []byte
	readBuf  []byte
	path     []byte // dir + "/tmpXXXXXXXX\0"; dir is /proc/self/fd/N
	nameOff  int
	dest     []byte
	procPath []byte
	rng      uint64
	mem      bytes.Buffer // BytesIO and the spooled buffer's memory
}

// RunGoWorker is the body of the hidden "__worker" subcommand: it speaks
// the same line protocol as driver.py on in/out.
func RunGoWorker(in io.Reader, out io.Writer) error {
	debug.SetGCPercent(-1)
	r := bufio.NewReader(in)
	line, err := r.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("reading config: %w", err)
	}
	var cfg Config
	if err := json.Unmarshal(line, &cfg); err != nil {
		return fmt.Errorf("bad config: %w", err)
	}
	w, err := newGoWorker(cfg)
	if err != nil {
		return err
	}
	op, err := w.op(cfg.GoSteps)
	if err != nil {
		fmt.Fprintf(out, "error %v\n", err)
		return err
	}
	if err := op(); err != nil {
		return fmt.Errorf("%s: %w", cfg.Arm, err)
	}
	fmt.Fprintln(out, "ready")
	for {
		line, err := r.ReadString('\n')
		words := strings.Fields(line)
		if err != nil || len(words) == 0 || words[0] == "quit" {
			break
		}
		if len(words) != 4 || words[0] != "batch" {
			return fmt.Errorf("bad command %q", line)
		}
		phase, _ := strconv.ParseUint(words[1], 10, 31)
		traced := words[2] == "1"
		ops, err := strconv.Atoi(words[3])
		if err != nil || ops < 1 {
			return fmt.Errorf("bad command %q", line)
		}
		// The markers trace one thread: gettid before and after, outside
		// them, tells a batch the scheduler moved to another M midway
		// (its syscalls since then untraced) from one it did not.
		began, _, _ := unix.RawSyscall(unix.SYS_GETTID, 0, 0, 0)
		wait0 := int64(-1)
		if traced {
			marker.Begin(cfg.Cookie, uint32(phase))
		} else {
			wait0 = runDelay(began)
		}
		t0 := time.Now()
		for i := 0; i < ops; i++ {
			if err := op(); err != nil {
				return fmt.Errorf("%s: %w", cfg.Arm, err)
			}
		}
		wall := time.Since(t0)
		if traced {
			marker.End(cfg.Cookie, uint32(phase))
		}
		reply := "done"
		if ended, _, _ := unix.RawSyscall(unix.SYS_GETTID, 0, 0, 0); ended != began {
			reply = replyMoved
		}
		if wait1 := runDelay(began); reply == "done" && wait0 >= 0 && wait1 >= wait0 {
			fmt.Fprintf(out, "%s %d %d\n", reply, wall.Nanoseconds(), wait1-wait0)
		} else {
			fmt.Fprintf(out, "%s %d\n", reply, wall.Nanoseconds())
		}
	}
	unix.Unlink(string(w.dest[:len(w.dest)-1]))
	return nil
}

// runDelay is thread tid's run-queue wait so far, in ns (the kernel's
// sched_info run_delay), or -1 when unreadable: read around an untraced
// batch, on the thread that began it, as driver.py's run_delay.
func runDelay(tid uintptr) int64 {
	b, err := os.ReadFile("/proc/self/task/" + strconv.FormatUint(uint64(tid), 10) + "/schedstat")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return -1
	}
	v, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return v
}

func newGoWorker(cfg Config) (*goWorker, error) {
	w := &goWorker{cfg: cfg, rng: uint64(time.Now().UnixNano()) | 1}
	// Every path is the handed dir fd's /proc/self/fd link (see
	// Config.DirFile): the same syscalls as by name, and no lookup by
	// the work dir's name. Without one (a worker started by hand), the
	// name.
	dir := cfg.Dir
	if cfg.DirFd > 0 {
		// "/.": the link is passed through, not opened last, which
		// O_TMPFILE|O_NOFOLLOW would refuse (ENOTDIR), as in driver.py.
		dir = "/proc/self/fd/" + strconv.Itoa(cfg.DirFd) + "/."
		w.dirFd = uintptr(cfg.DirFd)
	} else {
		fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, err
		}
		w.dirFd = uintptr(fd)
	}
	w.dir = cstr(dir)
	w.payload = bytes.Repeat([]byte("x"), cfg.Payload)
	chunk := cfg.Chunk
	if chunk <= 0 {
		chunk = 64 << 10
	}
	w.chunk = bytes.Repeat([]byte("y"), chunk)
	w.readBuf = make([]byte, chunk)
	w.path = append([]byte(dir+"/tmp"), "XXXXXXXX\x00"...)
	w.nameOff = len(dir) + 1
	w.dest = cstr(dir + "/destination")
	return w, nil
}

func cstr(s string) []byte { return append([]byte(s), 0) }

func ptr(b []byte) uintptr { return uintptr(unsafe.Pointer(&b[0])) }

// nextName fills the XXXXXXXX of w.path from a xorshift generator, as
// tempfile draws names from its own PRNG: no syscall per name.
func (w *goWorker) nextName() {
	const letters = "abcdefghijklmnopqrstuvwxyz0123456789_"
	b := w.path[w.nameOff+3 : w.nameOff+11]
	for i := range b {
		w.rng ^= w.rng << 13
		w.rng ^= w.rng >> 7
		w.rng ^= w.rng << 17
		b[i] = letters[w.rng%uint64(len(letters))]
	}
}

func sys(trap, a1, a2, a3, a4, a5 uintptr) (uintptr, error) {
	r, _, e := unix.RawSyscall6(trap, a1, a2, a3, a4, a5, 0)
	if e != 0 {
		return r, e
	}
	return r, nil
}

func (w *goWorker) openTmpfile(excl bool) (uintptr, error) {
	flags := unix.O_RDWR | unix.O_CLOEXEC | oTmpfile
	if excl {
		flags |= unix.O_EXCL | unix.O_NOFOLLOW
	}
	return sys(unix.SYS_OPENAT, atFdcwd, ptr(w.dir), uintptr(flags), modeRW, 0)
}

// openCreate is mkstemp's open: a fresh random name, O_CREAT|O_EXCL.
func (w *goWorker) openCreate() (uintptr, error) {
	w.nextName()
	flags := unix.O_RDWR | unix.O_CREAT | unix.O_EXCL | unix.O_NOFOLLOW | unix.O_CLOEXEC
	return sys(unix.SYS_OPENAT, atFdcwd, ptr(w.path), uintptr(flags), modeRW, 0)
}

func (w *goWorker) write(fd uintptr, b []byte) error {
	n, err := sys(unix.SYS_WRITE, fd, ptr(b), uintptr(len(b)), 0, 0)
	if err == nil && int(n) != len(b) {
		err = io.ErrShortWrite
	}
	return err
}

func (w *goWorker) call(trap uintptr, args ...uintptr) error {
	var a [5]uintptr
	copy(a[:], args)
	_, err := sys(trap, a[0], a[1], a[2], a[3], a[4])
	return err
}

// firstErr runs steps in order and stops at the first error.
func firstErr(steps ...func() error) error {
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	return nil
}

// goStep is one step of a Go op; the catalogue spells each arm's op as
// its steps. Steps share the worker's open fd and its last drawn name.
type goStep int

const (
	stepOpenTmpfile  goStep = iota + 1 // O_TMPFILE|O_EXCL, as TemporaryFile opens
	stepOpenLinkable                   // O_TMPFILE without O_EXCL: may be linked in
	stepCreate                         // mkstemp's open of a fresh name
	stepWrite                          // the payload, if any
	stepFsync
	stepFdatasync
	stepClose
	stepUnlink       // the last name drawn
	stepLinkat       // the open fd's inode to a fresh name
	stepRename       // the last name drawn onto "destination"
	stepMemoryRound  // BytesIO's round
	stepSpooledRound // SpooledTemporaryFile's round
	stepFileRound    // a round through the open fd
)

var goSteps = [...]func(w *goWorker) error{
	stepOpenTmpfile:  func(w *goWorker) (err error) { w.fd, err = w.openTmpfile(true); return },
	stepOpenLinkable: func(w *goWorker) (err error) { w.fd, err = w.openTmpfile(false); return },
	stepCreate:       func(w *goWorker) (err error) { w.fd, err = w.openCreate(); return },
	stepWrite: func(w *goWorker) error {
		if len(w.payload) == 0 {
			return nil
		}
		return w.write(w.fd, w.payload)
	},
	stepFsync:     func(w *goWorker) error { return w.call(unix.SYS_FSYNC, w.fd) },
	stepFdatasync: func(w *goWorker) error { return w.call(unix.SYS_FDATASYNC, w.fd) },
	stepClose:     func(w *goWorker) error { return w.call(unix.SYS_CLOSE, w.fd) },
	stepUnlink:    (*goWorker).unlink,
	stepLinkat: func(w *goWorker) error {
		w.procPath = append(strconv.AppendUint(append(w.procPath[:0], "/proc/self/fd/"...), uint64(w.fd), 10), 0)
		w.nextName()
		name := w.path[w.nameOff:]
		return w.call(unix.SYS_LINKAT, atFdcwd, ptr(w.procPath), w.dirFd, ptr(name), unix.AT_SYMLINK_FOLLOW)
	},
	stepRename:       (*goWorker).rename,
	stepMemoryRound:  (*goWorker).memoryRound,
	stepSpooledRound: (*goWorker).spooledRound,
	stepFileRound:    func(w *goWorker) error { return w.fileRound(w.fd, 0) },
}

// op is the function one op runs: the steps the config carries, in order.
func (w *goWorker) op(steps []goStep) (func() error, error) {
	if len(steps) == 0 {
		return nil, fmt.Errorf("%s/%s: no Go steps", w.cfg.Lab, w.cfg.Arm)
	}
	for _, s := range steps {
		if s <= 0 || int(s) >= len(goSteps) {
			return nil, fmt.Errorf("%s/%s: unknown Go step %d", w.cfg.Lab, w.cfg.Arm, s)
		}
	}
	return func() error {
		for _, s := range steps {
			if err := goSteps[s](w); err != nil {
				return err
			}
		}
		return nil
	}, nil
}

func (w *goWorker) chunks() int { return w.cfg.Size / len(w.chunk) }

// memoryRound mirrors BytesIO. The buffer is reused across rounds: with GC
// off (see RunGoWorker) a fresh one would fault in new pages every round,
// where CPython's allocator reuses the memory BytesIO freed.
func (w *goWorker) memoryRound() error {
	b := &w.mem
	b.Reset()
	for i := 0; i < w.chunks(); i++ {
		b.Write(w.chunk)
	}
	for {
		if n, _ := b.Read(w.readBuf); n == 0 {
			return nil
		}
	}
}

// spooledRound mirrors SpooledTemporaryFile: bytes stay in memory until a
// write leaves more than SpoolMax buffered, then the buffer moves to an
// O_TMPFILE file in one write and later chunks go straight to the file.
func (w *goWorker) spooledRound() error {
	b := &w.mem
	b.Reset()
	n := w.chunks()
	for i := 0; i < n; i++ {
		b.Write(w.chunk)
		if b.Len() > w.cfg.SpoolMax {
			fd, err := w.openTmpfile(true)
			if err != nil {
				return err
			}
			err = firstErr(func() error { return w.write(fd, b.Bytes()) },
				func() error { return w.fileRound(fd, i+1) },
				func() error { return w.call(unix.SYS_CLOSE, fd) })
			return err
		}
	}
	for {
		if k, _ := b.Read(w.readBuf); k == 0 {
			return nil
		}
	}
}

// fileRound writes the chunks from the from-th on, seeks to 0 and reads the
// file back until EOF.
func (w *goWorker) fileRound(fd uintptr, from int) error {
	for i := from; i < w.chunks(); i++ {
		if err := w.write(fd, w.chunk); err != nil {
			return err
		}
	}
	if err := w.call(unix.SYS_LSEEK, fd, 0, 0); err != nil {
		return err
	}
	for {
		n, err := sys(unix.SYS_READ, fd, ptr(w.readBuf), uintptr(len(w.readBuf)), 0, 0)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
	}
}
