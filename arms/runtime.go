//go:build linux

package arms

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// ResolveRuntimes resolves a runtime choice, "go", "python" or "auto"
// (both when python names a Python 3 interpreter, on PATH or by path), to
// the runtimes that run the arms. For auto without a Python 3, the go
// runtime runs alone and skipped says why Python does not; for python,
// that is err. The interpreter's version check ends with ctx or after
// timeout (--arm-timeout), as every wait on a child does.
func ResolveRuntimes(ctx context.Context, choice, python string, timeout time.Duration) (rts []Runtime, skipped, err error) {
	goRT := Runtime{Name: "go"}
	switch choice {
	case "go":
		return []Runtime{goRT}, nil, nil
	case "python":
		rt, err := FindPython(ctx, python, timeout)
		if err != nil {
			return nil, nil, err
		}
		return []Runtime{rt}, nil, nil
	case "auto":
		rt, err := FindPython(ctx, python, timeout)
		if err != nil {
			return []Runtime{goRT}, err, nil
		}
		return []Runtime{rt, goRT}, nil, nil
	}
	return nil, nil, fmt.Errorf("runtime %q: want python, go or auto", choice)
}

// FindPython resolves a Python 3 interpreter, a name on PATH or a path, to
// the python runtime: the interpreter itself, not a wrapper such as a
// pyenv shim that would fork and exec on every worker start, and its
// version. The error names the interpreter as it was given.
func FindPython(ctx context.Context, name string, timeout time.Duration) (Runtime, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return Runtime{}, fmt.Errorf("%s: not found", name)
	}
	v, exe, err := askPython(ctx, path, timeout)
	if err != nil {
		return Runtime{}, fmt.Errorf("%s: %w", name, err)
	}
	if !strings.HasPrefix(v, "3.") {
		return Runtime{}, errors.New(name + " is not Python 3")
	}
	return Runtime{Name: "python", Python: exe, Version: v}, nil
}

// PythonVersion is the version of the python runtime among rts, "" when
// none runs.
func PythonVersion(rts []Runtime) string {
	for _, rt := range rts {
		if rt.Name == "python" {
			return rt.Version
		}
	}
	return ""
}

// askPython asks an interpreter its version and its real executable. An
// interpreter that does not answer within timeout, or before ctx ends,
// is killed with everything it started (its own process group), and
// what it started is not waited for past a second.
func askPython(ctx context.Context, path string, timeout time.Duration) (version, executable string, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3]); print(sys.executable)")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out, err := cmd.Output()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", "", fmt.Errorf("did not answer its version check within %v (--arm-timeout)", timeout)
	case ctx.Err() != nil:
		return "", "", errors.New("interrupted during its version check")
	case err != nil:
		return "", "", nil // not an interpreter that answers: not Python 3
	}
	version, executable, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	if executable == "" {
		executable = path
	}
	return version, executable, nil
}
