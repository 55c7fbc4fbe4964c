//go:build linux

package arms

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

//go:embed driver.py
var driverSource string

// driverFile is the name driver.py's code is compiled as: its frames'
// file in the stacks.
const driverFile = "driver.py"

// Harness are what runs the labs' ops rather than being them, as
// results.Stacks.Harness names it: driver.py's frames, and the Go
// worker's own functions (this package's).
func Harness() []string {
	return []string{driverFile, reflect.TypeFor[Runner]().PkgPath() + "."}
}

// driverArgs run driver.py in an interpreter, with args after it. Its
// code is compiled as driver.py, not as -c's "<string>": the stacks of
// its frames name it so.
func driverArgs(args ...string) []string {
	return append([]string{"-I", "-c", `import sys; exec(compile(sys.argv.pop(1), "` + driverFile + `", "exec"))`, driverSource}, args...)
}

// Config is what a worker needs to run one arm; it is sent to the worker
// as one JSON line. Each runtime runs what the catalogue names for it
// (PyFunc, GoSteps); Lab and Arm only label its errors.
type Config struct {
	Lab     string   `json:"lab"`
	Arm     string   `json:"arm"`
	PyFunc  string   `json:"py_func"`
	GoSteps []goStep `json:"go_steps"`
	Dir     string   `json:"dir"` // for messages: the worker works in DirFile
	// DirFile is the group directory, handed to the worker open as fd
	// DirFd. The worker reaches it only through that fd, as
	// /proc/self/fd/N/NAME: the kernel follows that link to the directory
	// the fd holds, not by name, so renaming the work dir and planting a
	// symlink at its name cannot send an op anywhere else. A path through
	// /proc/self/fd, rather than *at calls, keeps every syscall the one
	// tempfile issues (unlink, rename, openat of a path) in both runtimes.
	DirFile  *os.File `json:"-"`
	DirFd    int      `json:"dir_fd"`
	Payload  int      `json:"payload"`
	Size     int      `json:"size"`
	Chunk    int      `json:"chunk"`
	SpoolMax int      `json:"spool_max"`
	Cookie   uint64   `json:"cookie"`
}

// Runtime says how a worker is started.
type Runtime struct {
	Name    string // "python" or "go"
	Python  string // interpreter path for "python"
	Version string // the interpreter's, for reports
}

// WorkerArg is the hidden subcommand that runs the Go worker in a child.
const WorkerArg = "__worker"

// Worker is one running worker process.
type Worker struct {
	proc   process
	in     io.WriteCloser
	out    *bufio.Scanner
	stderr *tail
	waitMu sync.Once
	err    error
	// timedOut is set when a batch's timer killed the worker.
	timedOut atomic.Bool
	unwatch  func() bool   // stops killing it when the start's context ends
	timeout  time.Duration // --arm-timeout: its start, a batch, its quit
}

// process is a worker's process: exec'd by tmpprobe, or forked by a
// generation's fork server (forkserver.go).
type process interface {
	Pid() int
	Kill()
	// Wait waits for it to exit and says how it ended, as exec.Cmd's
	// Wait does.
	Wait() error
}

type execProcess struct{ cmd *exec.Cmd }

func (p execProcess) Pid() int    { return p.cmd.Process.Pid }
func (p execProcess) Kill()       { p.cmd.Process.Kill() }
func (p execProcess) Wait() error { return p.cmd.Wait() }

// Start launches a worker for cfg and waits until it has run its untimed
// first op and said "ready"; one that takes longer than timeout (0: no
// limit) is killed. A worker that started and then failed is returned with
// the error, for its stderr.
func Start(ctx context.Context, rt Runtime, cfg Config, timeout time.Duration) (*Worker, error) {
	var cmd *exec.Cmd
	switch rt.Name {
	case "python":
		// -I: no user site-packages, no PYTHON* variables: the stock tempfile.
		cmd = exec.CommandContext(ctx, rt.Python, driverArgs()...)
	case "go":
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cmd = exec.CommandContext(ctx, exe, WorkerArg)
		cmd.Env = append(os.Environ(), "GODEBUG=asyncpreemptoff=1", "GOMAXPROCS=1")
	default:
		return nil, fmt.Errorf("unknown runtime %q", rt.Name)
	}
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	// Own process group: a terminal's Ctrl-C reaches tmpprobe, which then
	// stops workers itself, in order.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	w := &Worker{stderr: &tail{max: 4096}}
	cmd.Stderr = w.stderr
	if cfg.DirFile != nil {
		cmd.ExtraFiles = []*os.File{cfg.DirFile}
		cfg.DirFd = 3 // the first of ExtraFiles
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	w.in, w.out = in, bufio.NewScanner(out)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s worker: %w", rt.Name, err)
	}
	w.proc = execProcess{cmd}
	return w, w.handshake(cfg, timeout)
}

// handshake sends the worker its config and waits for its "ready".
func (w *Worker) handshake(cfg Config, timeout time.Duration) error {
	w.timeout = timeout
	if timeout > 0 {
		timer := time.AfterFunc(timeout, func() {
			w.timedOut.Store(true)
			w.proc.Kill()
		})
		defer timer.Stop()
	}
	line, _ := json.Marshal(cfg)
	if _, err := fmt.Fprintf(w.in, "%s\n", line); err != nil {
		return w.fail(err)
	}
	reply, err := w.reply()
	if err != nil {
		return err
	}
	if reply != "ready" {
		return w.fail(fmt.Errorf("unexpected reply %q", reply))
	}
	return nil
}

// Batch runs one batch of ops ops; with traced set the worker wraps it in
// markers for phase. It returns the wall time the worker measured and, of
// an untraced batch, its thread's run-queue wait (-1 when the worker
// could not read it). A batch still running after timeout (0: none) is
// killed.
func (w *Worker) Batch(phase uint32, traced bool, ops int, timeout time.Duration) (wall, wait int64, err error) {
	t := 0
	if traced {
		t = 1
	}
	if timeout > 0 {
		timer := time.AfterFunc(timeout, func() {
			w.timedOut.Store(true)
			w.proc.Kill()
		})
		defer timer.Stop()
	}
	if _, err := fmt.Fprintf(w.in, "batch %d %d %d\n", phase, t, ops); err != nil {
		return 0, 0, w.fail(errors.New("worker exited")) // EPIPE: nobody reads the pipe any more
	}
	reply, err := w.reply()
	if err != nil {
		return 0, 0, err
	}
	// "done WALL" or, untraced, "done WALL WAIT".
	words := strings.Fields(reply)
	if len(words) < 2 || len(words) > 3 || words[0] != "done" && words[0] != replyMoved {
		return 0, 0, w.fail(fmt.Errorf("unexpected reply %q", reply))
	}
	wall, err = strconv.ParseInt(words[1], 10, 64)
	if err != nil || wall <= 0 {
		return 0, 0, w.fail(fmt.Errorf("bad wall time %q", reply))
	}
	wait = -1
	if len(words) == 3 {
		if wait, err = strconv.ParseInt(words[2], 10, 64); err != nil || wait < 0 {
			return 0, 0, w.fail(fmt.Errorf("bad run-queue wait %q", reply))
		}
	}
	if words[0] == replyMoved {
		return wall, -1, ErrMovedThread
	}
	return wall, wait, nil
}

// replyMoved is a Go worker's "done" for a batch that ended on another
// thread than the one it began on.
const replyMoved = "moved"

// ErrMovedThread is a batch that did not run on one thread from marker to
// marker: the probe traced only the thread that marked it, so the batch's
// wall time holds (and is returned) but its records do not.
var ErrMovedThread = errors.New("the batch moved to another thread between its markers")

// TimedOut reports whether a batch outlived its timeout and was killed.
func (w *Worker) TimedOut() bool { return w.timedOut.Load() }

// Pid is the worker process's pid.
func (w *Worker) Pid() int { return w.proc.Pid() }

func (w *Worker) reply() (string, error) {
	if !w.out.Scan() {
		return "", w.fail(errors.New("worker exited"))
	}
	line := w.out.Text()
	if msg, ok := strings.CutPrefix(line, "error "); ok {
		return "", w.fail(errors.New(msg))
	}
	return line, nil
}

// fail kills the worker, reaps it and returns cause with how it ended.
func (w *Worker) fail(cause error) error {
	w.proc.Kill()
	err := w.wait()
	if err != nil && !strings.Contains(cause.Error(), err.Error()) {
		return fmt.Errorf("%v (%v)", cause, err)
	}
	return cause
}

func (w *Worker) wait() error {
	w.waitMu.Do(func() {
		w.in.Close()
		w.err = w.proc.Wait()
		if w.unwatch != nil {
			w.unwatch()
		}
	})
	return w.err
}

// Stderr is the tail of what the worker wrote to stderr.
func (w *Worker) Stderr() string { return strings.TrimSpace(w.stderr.String()) }

// Quit asks the worker to quit, without waiting: Close waits. Workers
// asked together end together.
func (w *Worker) Quit() { fmt.Fprintln(w.in, "quit") }

// Close asks the worker to quit and reaps it; one still there after its
// timeout (--arm-timeout) is killed.
func (w *Worker) Close() error {
	w.Quit()
	if w.timeout > 0 {
		timer := time.AfterFunc(w.timeout, func() {
			w.timedOut.Store(true)
			w.proc.Kill()
		})
		defer timer.Stop()
	}
	return w.wait()
}

// Kill stops the worker at once.
func (w *Worker) Kill() { w.fail(errors.New("killed")) }

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// ServeIfWorker runs the Go worker and exits when this process was started
// as one (argv[1] == WorkerArg); otherwise it returns at once. Binaries
// that start workers (tmpprobe, and test binaries that run arms) call it
// first thing.
func ServeIfWorker() {
	if len(os.Args) < 2 || os.Args[1] != WorkerArg {
		return
	}
	if err := RunGoWorker(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "go worker:", err)
		os.Exit(1)
	}
	os.Exit(0)
}
