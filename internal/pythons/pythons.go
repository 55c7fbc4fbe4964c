// Package pythons lists, for tests, the CPython interpreters of this
// machine tmpprobe reads the frames of: pyenv's 3.8 to 3.13 and Debian's
// /usr/bin/python3.11.
package pythons

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Interp is one interpreter binary.
type Interp struct {
	Name  string // "3.8.18", "debian-3.11"
	Minor string // "3.8"
	Path  string
}

// Minors are the versions the labs and traces read.
var Minors = []string{"3.8", "3.9", "3.10", "3.11", "3.12", "3.13"}

// Root is pyenv's root: PYENV_ROOT, `pyenv root`, or ~/.pyenv.
func Root() string {
	if root := os.Getenv("PYENV_ROOT"); root != "" {
		return root
	}
	if out, err := exec.Command("pyenv", "root").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".pyenv")
}

// List finds them; one that is missing is not listed (the caller decides
// whether that fails).
func List() []Interp {
	var out []Interp
	for _, m := range Minors {
		if in, ok := Pyenv(m); ok {
			out = append(out, in)
		}
	}
	if _, err := os.Stat("/usr/bin/python3.11"); err == nil {
		out = append(out, Interp{Name: "debian-3.11", Minor: "3.11", Path: "/usr/bin/python3.11"})
	}
	return out
}

// Pyenv is pyenv's interpreter of minor version minor ("3.12").
func Pyenv(minor string) (Interp, bool) {
	dirs, _ := filepath.Glob(filepath.Join(Root(), "versions", minor+".*"))
	for _, d := range dirs {
		bin := filepath.Join(d, "bin", "python"+minor)
		if _, err := os.Stat(bin); err == nil {
			return Interp{Name: filepath.Base(d), Minor: minor, Path: bin}, true
		}
	}
	return Interp{}, false
}

// Python3 is the binary python3 on PATH runs: the interpreter itself, not
// a wrapper such as a pyenv shim that forks and execs (a trace of it
// would count the shim's calls too).
func Python3() (string, error) {
	exe, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	return strings.TrimSpace(string(exe)), err
}
