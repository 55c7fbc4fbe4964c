//go:build linux

package arms

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ResolveRuntimes resolves a runtime choice, "go", "python" or "auto"
// (both when python names a Python 3 interpreter, on PATH or by path), to
// the runtimes that run the arms. For auto without a Python 3, the go
// runtime runs alone and skipped says why Python does not; for python,
// that is err.
func ResolveRuntimes(choice, python string) (rts []Runtime, skipped, err error) {
	goRT := Runtime{Name: "go"}
	switch choice {
	case "go":
		return []Runtime{goRT}, nil, nil
	case "python":
		rt, err := FindPython(python)
		if err != nil {
			return nil, nil, err
		}
		return []Runtime{rt}, nil, nil
	case "auto":
		rt, err := FindPython(python)
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
func FindPython(name string) (Runtime, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return Runtime{}, fmt.Errorf("%s: not found", name)
	}
	v, exe := askPython(path)
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

// askPython asks an interpreter its version and its real executable.
func askPython(path string) (version, executable string) {
	out, err := exec.Command(path, "-I", "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3]); print(sys.executable)").Output()
	if err != nil {
		return "", ""
	}
	version, executable, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	if executable == "" {
		executable = path
	}
	return version, executable
}
