# tmpprobe's Python worker: runs one arm of a lab with the real CPython
# tempfile code. The parent sends one JSON config line, then "batch PHASE
# TRACED OPS" lines; each batch of OPS ops is timed with perf_counter_ns
# inside the marker syscalls lseek(-1, cookie, phase << 1 | begin), which
# fail with EBADF.
import io
import json
import os
import sys
import tempfile
import time

cfg = json.loads(sys.stdin.readline())
cookie = cfg["cookie"]
work = cfg["dir"]
payload = b"x" * cfg.get("payload", 0)
size = cfg.get("size", 0)
chunk = b"y" * cfg.get("chunk", 65536)
spool_max = cfg.get("spool_max", 1 << 20)
dest = os.path.join(work, "destination")
lseek = os.lseek


def marker(phase, begin):
    try:
        lseek(-1, cookie, (phase << 1) | begin)
    except OSError:
        pass


def temporary_file():
    with tempfile.TemporaryFile(dir=work) as f:
        f.write(payload)
        f.flush()


def named_temporary_file():
    with tempfile.NamedTemporaryFile(dir=work, delete=True) as f:
        f.write(payload)
        f.flush()


def named_temporary_file_keep():
    f = tempfile.NamedTemporaryFile(dir=work, delete=False)
    f.write(payload)
    f.flush()
    f.close()
    os.unlink(f.name)


def mkstemp_unlink_open():
    fd, path = tempfile.mkstemp(dir=work)
    os.unlink(path)
    os.write(fd, payload)
    os.close(fd)


def mkstemp_close_unlink():
    fd, path = tempfile.mkstemp(dir=work)
    os.write(fd, payload)
    os.close(fd)
    os.unlink(path)


def mkstemp_fsync():
    fd, path = tempfile.mkstemp(dir=work)
    os.write(fd, payload)
    os.fsync(fd)
    os.close(fd)
    os.unlink(path)


def mkstemp_fdatasync():
    fd, path = tempfile.mkstemp(dir=work)
    os.write(fd, payload)
    os.fdatasync(fd)
    os.close(fd)
    os.unlink(path)


names = tempfile._get_candidate_names()
work_fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)


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


def bytes_io():
    with io.BytesIO() as f:
        round_trip(f)


def spooled_temporary_file():
    with tempfile.SpooledTemporaryFile(max_size=spool_max, dir=work) as f:
        round_trip(f)


def named_round_trip():
    with tempfile.NamedTemporaryFile(dir=work) as f:
        round_trip(f)


ARMS = {
    "TemporaryFile": temporary_file,
    "NamedTemporaryFile": named_temporary_file,
    "NamedTemporaryFile-keep": named_temporary_file_keep,
    "mkstemp-unlink-open": mkstemp_unlink_open,
    "mkstemp-close-unlink": mkstemp_close_unlink,
    "mkstemp-fsync": mkstemp_fsync,
    "tmpfile-linkat": tmpfile_linkat,
    "atomic-replace": atomic_replace,
    "mkstemp-fdatasync": mkstemp_fdatasync,
    "buffers/BytesIO": bytes_io,
    "buffers/SpooledTemporaryFile": spooled_temporary_file,
    "buffers/NamedTemporaryFile": named_round_trip,
}


def main():
    op = ARMS.get(cfg["lab"] + "/" + cfg["arm"]) or ARMS.get(cfg["arm"])
    if op is None:
        print("error unknown arm " + cfg["arm"], flush=True)
        return 2
    out = sys.stdout
    # One untimed op first: the first TemporaryFile probes O_TMPFILE support
    # and the first name draws the random seed; neither belongs to an op.
    op()
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
            op()
        t1 = clock()
        if traced:
            marker(phase, 0)
        out.write("done %d\n" % (t1 - t0))
        out.flush()
    if os.path.exists(dest):
        os.unlink(dest)
    return 0


sys.exit(main())
