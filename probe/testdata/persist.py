# One function fsyncs: the call site the fsync stacks must name.
import os
import sys


def persist(path):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"x")
    os.fsync(fd)
    os.close(fd)


def main():
    sys.stdin.readline()
    for i in range(5):
        persist(os.path.join(sys.argv[1], "f%d" % i))


main()
