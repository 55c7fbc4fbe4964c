//go:build linux

package arms

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// forkServer is a generation's Python fork server (driver.py's serve):
// one interpreter started per generation, its modules imported once, and
// each of the generation's workers forked from it. Starting an
// interpreter and importing tempfile took ~45 ms of a quiet CPU here
// (~100 ms under load), a fork and the worker's first op ~3 ms: with one
// interpreter per worker, a Python lab spent a third of its time starting
// workers. A forked worker is still a process of its own with a fresh
// heap (the server's, untouched by any op, copied on write) and its own
// directory; its generation shares the server's hash seed and
// address-space layout, and every generation has new ones.
type forkServer struct {
	cmd    *exec.Cmd
	conn   *net.UnixConn
	stderr *tail

	forkMu sync.Mutex // one fork at a time: replies come in order
	forked chan forkReply

	mu     sync.Mutex
	exits  map[int]chan syscall.WaitStatus // by pid, until its exit is reported
	closed bool
	ready  chan struct{} // its modules are imported
	done   chan struct{} // the control socket closed
	// timeout (--arm-timeout) bounds every wait on the server: its
	// start, a fork, an exit report, its exit. One that does not answer
	// in time is killed: a late answer would be taken for the next.
	timeout  time.Duration
	killOnce sync.Once
}

type forkReply struct {
	pid   int
	pidfd int
	err   error
}

// startForkServer starts a fork server of the python runtime.
func startForkServer(rt Runtime, timeout time.Duration) (*forkServer, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "fork server"), os.NewFile(uintptr(fds[1]), "fork server")
	defer theirs.Close()
	c, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = math.MaxInt64 // no --arm-timeout (a test's plan): no bound
	}
	s := &forkServer{conn: c.(*net.UnixConn), stderr: &tail{max: 4096}, forked: make(chan forkReply, 1),
		exits: map[int]chan syscall.WaitStatus{}, ready: make(chan struct{}), done: make(chan struct{}), timeout: timeout}
	s.cmd = exec.Command(rt.Python, driverArgs("serve")...)
	s.cmd.ExtraFiles = []*os.File{theirs} // fd 3
	s.cmd.Stderr = s.stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		s.conn.Close()
		return nil, fmt.Errorf("starting the python fork server: %w", err)
	}
	go s.read()
	return s, nil
}

// read hands out the server's messages: fork replies in order, exits by
// pid.
func (s *forkServer) read() {
	defer close(s.done)
	buf, oob := make([]byte, 128), make([]byte, unix.CmsgSpace(4))
	for {
		n, oobn, _, _, err := s.conn.ReadMsgUnix(buf, oob)
		if err != nil || n == 0 {
			s.mu.Lock()
			s.closed = true
			for pid, ch := range s.exits {
				close(ch) // the server is gone, and reports nothing more
				delete(s.exits, pid)
			}
			s.mu.Unlock()
			select {
			case s.forked <- forkReply{err: s.gone()}:
			default:
			}
			return
		}
		words := strings.Fields(string(buf[:n]))
		switch {
		case len(words) == 1 && words[0] == "ready":
			close(s.ready)
		case len(words) == 2 && words[0] == "forked":
			pid, _ := strconv.Atoi(words[1])
			r := forkReply{pid: pid, pidfd: -1}
			if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil && len(msgs) == 1 {
				if fds, err := unix.ParseUnixRights(&msgs[0]); err == nil && len(fds) == 1 {
					r.pidfd = fds[0]
				}
			}
			if r.pidfd < 0 {
				r.err = errors.New("the fork server sent no pidfd")
			}
			s.forked <- r
		case len(words) == 3 && words[0] == "exit":
			pid, _ := strconv.Atoi(words[1])
			status, _ := strconv.Atoi(words[2])
			s.mu.Lock()
			if ch := s.exits[pid]; ch != nil {
				ch <- syscall.WaitStatus(status)
				delete(s.exits, pid)
			}
			s.mu.Unlock()
		default:
			s.forked <- forkReply{err: fmt.Errorf("the fork server said %q", buf[:n])}
		}
	}
}

// wait waits until the server has imported its modules; an error if it
// exited first, or did not say so within its timeout (then it is killed).
func (s *forkServer) wait(ctx context.Context) error {
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case <-s.ready:
		return nil
	case <-s.done:
		return s.gone()
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		s.Kill()
		return fmt.Errorf("the python fork server was not ready within %v (--arm-timeout)", s.timeout)
	}
}

// gone says why the server answers no more.
func (s *forkServer) gone() error {
	if msg := strings.TrimSpace(s.stderr.String()); msg != "" {
		return fmt.Errorf("python fork server: %s", lastLine(msg))
	}
	return errors.New("python fork server exited")
}

func lastLine(s string) string {
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Start forks a worker for cfg and waits for its "ready", as Start does
// for an exec'd one.
func (s *forkServer) Start(ctx context.Context, cfg Config, timeout time.Duration) (*Worker, error) {
	// The worker's stdin, stdout and stderr, and its directory as fd 3.
	var ends [3][2]*os.File
	for i := range ends {
		r, w, err := os.Pipe()
		if err != nil {
			for _, e := range ends[:i] {
				e[0].Close()
				e[1].Close()
			}
			return nil, err
		}
		ends[i] = [2]*os.File{r, w}
	}
	theirs := []int{int(ends[0][0].Fd()), int(ends[1][1].Fd()), int(ends[2][1].Fd())}
	if cfg.DirFile != nil {
		theirs = append(theirs, int(cfg.DirFile.Fd()))
		cfg.DirFd = 3
	} else {
		theirs = append(theirs, int(ends[0][0].Fd())) // a worker without one opens cfg.Dir by name
	}
	p, err := s.fork(ctx, theirs)
	for _, f := range []*os.File{ends[0][0], ends[1][1], ends[2][1]} {
		f.Close()
	}
	if err != nil {
		ends[0][1].Close()
		ends[1][0].Close()
		ends[2][0].Close()
		return nil, err
	}
	w := &Worker{proc: p, in: ends[0][1], out: bufio.NewScanner(ends[1][0]), stderr: &tail{max: 4096}}
	p.stderr = make(chan struct{})
	go func() {
		defer close(p.stderr)
		buf := make([]byte, 4096)
		for {
			n, err := ends[2][0].Read(buf)
			w.stderr.Write(buf[:n])
			if err != nil {
				ends[2][0].Close()
				return
			}
		}
	}()
	p.stdout = ends[1][0]
	w.unwatch = context.AfterFunc(ctx, p.Kill)
	return w, w.handshake(cfg, timeout)
}

// fork asks the server for a worker on fds. A server that does not answer
// within its timeout, or before ctx ends, is killed.
func (s *forkServer) fork(ctx context.Context, fds []int) (*forkedProcess, error) {
	s.forkMu.Lock()
	defer s.forkMu.Unlock()
	if _, _, err := s.conn.WriteMsgUnix([]byte("fork"), unix.UnixRights(fds...), nil); err != nil {
		return nil, fmt.Errorf("asking the python fork server for a worker: %w", err)
	}
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	var r forkReply
	select {
	case r = <-s.forked:
	case <-ctx.Done():
		s.Kill()
		return nil, ctx.Err()
	case <-timer.C:
		s.Kill()
		return nil, fmt.Errorf("the python fork server did not fork a worker within %v (--arm-timeout)", s.timeout)
	}
	if r.err != nil {
		return nil, r.err
	}
	p := &forkedProcess{pid: r.pid, pidfd: r.pidfd, exit: make(chan syscall.WaitStatus, 1), srv: s}
	s.mu.Lock()
	if s.closed {
		close(p.exit)
	} else {
		s.exits[r.pid] = p.exit
	}
	s.mu.Unlock()
	return p, nil
}

// Close tells the server that the generation is over: it waits for its
// workers (ended by now) and exits, and Close reaps it; one that has not
// exited within its timeout is killed.
func (s *forkServer) Close() error {
	s.conn.CloseWrite()
	timer := time.NewTimer(s.timeout)
	defer timer.Stop()
	select {
	case <-s.done:
	case <-timer.C:
		s.Kill()
		return fmt.Errorf("the python fork server did not exit within %v (--arm-timeout)", s.timeout)
	}
	s.conn.Close()
	return s.cmd.Wait()
}

// Kill ends the server at once, and with it its workers (their
// parent-death signal). It may be called more than once.
func (s *forkServer) Kill() {
	s.killOnce.Do(func() {
		s.cmd.Process.Kill()
		s.conn.Close()
		<-s.done
		s.cmd.Wait()
	})
}

// exitReportGrace is how long the server may take to report the exit of
// a worker that has exited (its pidfd says so): a server that takes
// longer (stopped, hung) reports nothing more, and is killed.
const exitReportGrace = time.Second

// exitStatus waits for the worker's exit as its server reports it. The
// worker's own end is seen on its pidfd (readable once it has exited,
// reaped or not), so a server that never reports costs a second after the
// worker is gone, not a hang: it is killed, which closes every report.
func (p *forkedProcess) exitStatus() (syscall.WaitStatus, bool) {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var exited time.Time
	for {
		select {
		case status, ok := <-p.exit:
			return status, ok
		case now := <-tick.C:
			fds := []unix.PollFd{{Fd: int32(p.pidfd), Events: unix.POLLIN}}
			switch n, _ := unix.Poll(fds, 0); {
			case n == 1 && exited.IsZero():
				exited = now
			case !exited.IsZero() && now.Sub(exited) > exitReportGrace:
				p.srv.Kill()
				status, ok := <-p.exit // closed by the server's end
				return status, ok
			}
		}
	}
}

// forkedProcess is a worker the fork server forked. tmpprobe is not its
// parent: it signals it through a pidfd (its pid could be another
// process's once the server has reaped it) and learns its exit status
// from the server.
type forkedProcess struct {
	pid    int
	pidfd  int
	srv    *forkServer
	exit   chan syscall.WaitStatus
	stdout *os.File
	stderr chan struct{} // closed when its stderr is read to the end
	once   sync.Once
	err    error
}

func (p *forkedProcess) Pid() int { return p.pid }

func (p *forkedProcess) Kill() { unix.PidfdSendSignal(p.pidfd, unix.SIGKILL, nil, 0) }

func (p *forkedProcess) Wait() error {
	p.once.Do(func() {
		status, ok := p.exitStatus()
		<-p.stderr
		p.stdout.Close()
		unix.Close(p.pidfd)
		switch {
		case !ok:
			p.err = errors.New("its fork server exited")
		case status.Signaled():
			p.err = fmt.Errorf("signal: %v", status.Signal())
		case status.ExitStatus() != 0:
			p.err = fmt.Errorf("exit status %d", status.ExitStatus())
		}
	})
	return p.err
}
