# tmpprobe's Python worker: runs one arm of a lab with the real CPython
# tempfile code, as the function the config's py_func names (the arms
# catalogue says which). The parent sends one JSON config line, then
# "batch PHASE TRACED OPS" lines; each batch of OPS ops is timed with
# perf_counter_ns inside the marker syscalls lseek(-1, cookie,
# phase << 1 | begin), which fail with EBADF: internal/marker's call, which
# TestPythonMarksAsGo holds this one to.
#
# Run with the argument "serve", it is a generation's fork server instead
# (serve below): one interpreter started and its modules imported once,
# each worker of the generation forked from it with a fresh heap of its
# own, and a fresh interpreter, hash seed and address-space layout for
# every generation.
import io
import json
import os
import sys
import tempfile
import time

# Set up from the config in setup(), in the worker.
cookie = 0
work = work_fd = dest = None
payload = chunk = b""
size = spool_max = 0
names = None
lseek = os.lseek


def setup(cfg):
    global cookie, work, work_fd, payload, size, chunk, spool_max, dest, names
    cookie = cfg["cookie"]
    # The group directory comes open as fd dir_fd; every path goes through
    # its /proc/self/fd link, which the kernel follows to the directory the
    # fd holds, not by name: a rename of the work dir and a symlink at its
    # name cannot redirect an op. tempfile takes dir= as a path, and a path
    # keeps every syscall the one tempfile issues (openat, unlink, rename).
    # The "/." makes the link a component to pass through, not the last
    # one: tempfile opens O_TMPFILE with O_NOFOLLOW, which a last-component
    # link fails.
    work_fd = cfg.get("dir_fd", 0)
    if work_fd > 0:
        work = "/proc/self/fd/%d/." % work_fd
    else:
        work = cfg["dir"]
        work_fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    payload = b"x" * cfg.get("payload", 0)
    size = cfg.get("size", 0)
    chunk = b"y" * cfg.get("chunk", 65536)
    spool_max = cfg.get("spool_max", 1 << 20)
    dest = os.path.join(work, "destination")
    names = tempfile._get_candidate_names()


# The ops, by function name: the arms catalogue names the one to run.
OPS = {}


def op(f):
    OPS[f.__name__] = f
    return f


def marker(phase, begin):
    try:
        lseek(-1, cookie, (phase << 1) | begin)
    except OSError:
        pass


@op
def temporary_file():
    with tempfile.TemporaryFile(dir=work) as f:
        f.write(payload)
        f.flush()


@op
def named_temporary_file():
    with tempfile.NamedTemporaryFile(dir=work, delete=True) as f:
        f.write(payload)
        f.flush()


@op
def named_temporary_file_keep():
    f = tempfile.NamedTemporaryFile(dir=work, delete=False)
    f.write(payload)
    f.flush()
    f.close()
    os.unlink(f.name)


@op
def mkstemp_unlink_open():
    fd, path = tempfile.mkstemp(dir=work)
    os.unlink(path)
    os.write(fd, payload)
    os.close(fd)


@op
def mkstemp_close_unlink():
    fd, path = tempfile.mkstemp(dir=work)
    os.write(fd, payload)
    os.close(fd)
    os.unlink(path)


@op
def mkstemp_fsync():
    fd, path = tempfile.mkstemp(dir=work)
    os.write(fd, payload)
    os.fsync(fd)
    os.close(fd)
    os.unlink(path)


@op
def mkstemp_fdatasync():
    fd, path = tempfile.mkstemp(dir=work)
    os.write(fd, payload)
    os.fdatasync(fd)
    os.close(fd)
    os.unlink(path)


@op
def tmpfile_linkat():
    # O_TMPFILE without O_EXCL, so the inode may be linked into the tree.
    fd = os.open(work, os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, 0o600)
    os.write(fd, payload)
    name = "tmp" + next(names)
    # A dir_fd makes CPython call linkat(..., AT_SYMLINK_FOLLOW); without
    # one it calls link(2), which links the /proc symlink itself (EXDEV).
    os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=work_fd)
    os.close(fd)
    os.unlink(os.path.join(work, name))


@op
def atomic_replace():
    with tempfile.NamedTemporaryFile(dir=work, delete=False) as f:
        f.write(payload)
        f.flush()
        os.fsync(f.fileno())
    os.replace(f.name, dest)


def round_trip(f):
    for _ in range(size // len(chunk)):
        f.write(chunk)
    f.seek(0)
    while f.read(len(chunk)):
        pass


@op
def bytes_io():
    with io.BytesIO() as f:
        round_trip(f)


@op
def spooled_temporary_file():
    with tempfile.SpooledTemporaryFile(max_size=spool_max, dir=work) as f:
        round_trip(f)


@op
def named_round_trip():
    with tempfile.NamedTemporaryFile(dir=work) as f:
        round_trip(f)


def run_delay():
    """The run-queue wait of this thread so far, in ns: the kernel's
    sched_info run_delay (CONFIG_SCHED_INFO), or -1 when unreadable. Read
    around an untraced batch only: a traced one's wait the probe measures,
    and these syscalls stay out of its records."""
    try:
        with open("/proc/thread-self/schedstat", "rb") as f:
            return int(f.read().split()[1])
    except (OSError, ValueError, IndexError):
        return -1


def main():
    cfg = json.loads(sys.stdin.readline())
    setup(cfg)
    run = OPS.get(cfg["py_func"])
    if run is None:
        print("error %s/%s: no driver op %r" % (cfg["lab"], cfg["arm"], cfg["py_func"]), flush=True)
        return 2
    out = sys.stdout
    # One untimed op first: the first TemporaryFile probes O_TMPFILE support
    # and the first name draws the random seed; neither belongs to an op.
    run()
    out.write("ready\n")
    out.flush()
    clock = time.perf_counter_ns
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        phase, traced, ops = int(words[1]), words[2] == "1", int(words[3])
        if traced:
            marker(phase, 1)
        else:
            wait0 = run_delay()
        loop = range(ops)
        t0 = clock()
        for _ in loop:
            run()
        t1 = clock()
        if traced:
            marker(phase, 0)
            out.write("done %d\n" % (t1 - t0))
        else:
            wait1 = run_delay()
            if 0 <= wait0 <= wait1:
                out.write("done %d %d\n" % (t1 - t0, wait1 - wait0))
            else:
                out.write("done %d\n" % (t1 - t0))
        out.flush()
    # The group's workers quit together, and any of them may remove it.
    try:
        os.unlink(dest)
    except FileNotFoundError:
        pass
    return 0


def serve(fd):
    """The fork server: on fd, a SOCK_SEQPACKET socket, it says "ready"
    once its modules are imported; then each "fork" message carries a worker's stdin, stdout, stderr and group directory;
    the worker is forked onto them and its pid sent back with a pidfd to
    signal it by (a pid alone could be another process's once reaped). Its
    exit is reported as "exit PID STATUS". When the socket closes, the
    server waits for its workers and exits."""
    import array
    import ctypes
    import select
    import signal
    import socket

    if not hasattr(os, "pidfd_open"):
        print("no os.pidfd_open (Python 3.9, Linux 5.3)", file=sys.stderr, flush=True)
        return 2
    sock = socket.socket(fileno=fd)
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    me = os.getpid()
    sock.send(b"ready")
    children = {}  # pidfd -> pid
    open_ = True
    while open_ or children:
        ready, _, _ = select.select(([sock] if open_ else []) + list(children), [], [])
        for r in ready:
            if r is not sock:
                pid = children.pop(r)
                _, status = os.waitpid(pid, 0)
                os.close(r)
                if open_:
                    sock.send(b"exit %d %d" % (pid, status))
                continue
            msg, anc, _, _ = sock.recvmsg(64, socket.CMSG_SPACE(4 * array.array("i").itemsize))
            if not msg:
                open_ = False
                continue
            fds = array.array("i")
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(data[: len(data) - len(data) % fds.itemsize])
            if len(fds) != 4:
                sock.send(b"error want 4 fds, got %d" % len(fds))
                for f in fds:
                    os.close(f)
                continue
            pid = os.fork()
            if pid == 0:
                code = 1
                try:
                    # Die with the server, as the server dies with tmpprobe.
                    prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
                    if os.getppid() != me:
                        os._exit(1)
                    sock.detach()  # fd 3 becomes the group directory
                    for i, f in enumerate(fds):
                        os.dup2(f, i)
                    os.closerange(len(fds), 65536)
                    code = main()
                except BaseException:
                    import traceback

                    traceback.print_exc()
                finally:
                    try:
                        sys.stdout.flush()
                        sys.stderr.flush()
                    finally:
                        os._exit(code)
            pidfd = os.pidfd_open(pid)
            children[pidfd] = pid
            for f in fds:
                os.close(f)
            sock.sendmsg([b"forked %d" % pid], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [pidfd]))])
    return 0


if sys.argv[1:] == ["serve"]:
    code = serve(3)
    sys.stdout.flush()
    os._exit(code)
sys.exit(main())
