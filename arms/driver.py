# tmpprobe's Python worker: runs one arm of a lab with the real CPython
# tempfile code, as the function the config's py_func names (the arms
# catalogue says which). The parent sends one JSON config line, then
# "batch PHASE TRACED OPS" lines; each batch of OPS ops is timed with
# perf_counter_ns inside the marker syscalls lseek(-1, cookie,
# phase << 1 | begin), which fail with EBADF: internal/marker's call, which
# TestPythonMarksAsGo holds this one to.
import io
import json
import os
import sys
import tempfile
import time

cfg = json.loads(sys.stdin.readline())
cookie = cfg["cookie"]
# The group directory comes open as fd dir_fd; every path goes through its
# /proc/self/fd link, which the kernel follows to the directory the fd
# holds, not by name: a rename of the work dir and a symlink at its name
# cannot redirect an op. tempfile takes dir= as a path, and a path keeps
# every syscall the one tempfile issues (openat, unlink, rename). The "/."
# makes the link a component to pass through, not the last one: tempfile
# opens O_TMPFILE with O_NOFOLLOW, which a last-component link fails.
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
lseek = os.lseek


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


names = tempfile._get_candidate_names()


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


def main():
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
        loop = range(ops)
        t0 = clock()
        for _ in loop:
            run()
        t1 = clock()
        if traced:
            marker(phase, 0)
        out.write("done %d\n" % (t1 - t0))
        out.flush()
    if os.path.exists(dest):
        os.unlink(dest)
    return 0


sys.exit(main())
