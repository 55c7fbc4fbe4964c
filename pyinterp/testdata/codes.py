# Prints, for code objects of several shapes, what CPython itself says of
# them (address, qualified name, file, first line, the line of every code
# unit), then waits on stdin so a reader can check its decoding against it.
import dis
import json
import sys


class Outer:
    class Inner:
        def method(self, x):
            if x:
                return [i * 2
                        for i in range(x)]
            return None


def loops(a, b=2):
    s = 0
    for i in range(a):
        s += i
    try:
        raise ValueError
    except ValueError:
        pass
    return s


def unicode_名前():
    return "é"


src = "def far():\n    x = 1\n" + "\n" * 300 + "    y = 2\n" + "    return x + y\n"
ns = {}
exec(compile(src, "far_é.py", "exec"), ns)


def lines(code):
    n = len(code.co_code) // 2
    out = [-1] * n
    if hasattr(code, "co_lines"):
        for start, end, line in code.co_lines():
            for off in range(start, end, 2):
                out[off // 2] = -1 if line is None else line
    else:
        starts = list(dis.findlinestarts(code))
        for unit in range(n):
            line = code.co_firstlineno
            for off, l in starts:
                if off <= unit * 2:
                    line = l
            out[unit] = line
    return out


codes = [Outer.Inner.method.__code__, loops.__code__, unicode_名前.__code__,
         ns["far"].__code__]
for c in list(codes):
    codes += [k for k in c.co_consts if hasattr(k, "co_code")]
print(json.dumps([{
    "addr": id(c),
    "qualname": getattr(c, "co_qualname", c.co_name),
    "filename": c.co_filename,
    "firstlineno": c.co_firstlineno,
    "lines": lines(c),
} for c in codes]), flush=True)
sys.stdin.readline()
