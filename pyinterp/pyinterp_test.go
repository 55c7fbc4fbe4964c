package pyinterp

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/tmpprobe/tmpprobe/internal/pythons"
)

type codeTruth struct {
	Addr        uint64 `json:"addr"`
	Qualname    string `json:"qualname"`
	Filename    string `json:"filename"`
	FirstLineno int    `json:"firstlineno"`
	Lines       []int  `json:"lines"`
}

// Every code unit of code objects of several shapes (nested classes, a
// comprehension, an exception handler, a non-ASCII name, a 300-line gap)
// decodes to the line CPython itself reports, in every interpreter read;
// the layout holds against the live process.
func TestCodeObjectsMatchCPython(t *testing.T) {
	interps := pythons.List()
	if len(interps) < len(pythons.Minors) {
		t.Fatalf("found %d interpreters, want pyenv's %v and Debian's: %v", len(interps), pythons.Minors, interps)
	}
	for _, in := range interps {
		t.Run(in.Name, func(t *testing.T) {
			cmd := exec.Command(in.Path, "testdata/codes.py")
			stdin, _ := cmd.StdinPipe()
			stdout, _ := cmd.StdoutPipe()
			cmd.Stderr = os.Stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { stdin.Close(); cmd.Wait() }()
			line, err := bufio.NewReader(stdout).ReadBytes('\n')
			if err != nil {
				t.Fatal(err)
			}
			var truth []codeTruth
			if err := json.Unmarshal(line, &truth); err != nil {
				t.Fatal(err)
			}
			p, err := Find(cmd.Process.Pid)
			if err != nil {
				t.Fatal(err)
			}
			if p.Version() != in.Minor {
				t.Errorf("%s read as %s", in.Path, p.Version())
			}
			n, err := p.Validate()
			if err != nil || n == 0 {
				t.Fatalf("validated %d frames: %v", n, err)
			}
			units := 0
			for _, want := range truth {
				c, err := p.Code(want.Addr)
				if err != nil {
					t.Fatalf("%s: %v", want.Qualname, err)
				}
				if c.Qualname != want.Qualname || c.Filename != want.Filename || c.FirstLine != want.FirstLineno {
					t.Errorf("code %#x: got %q %q %d, want %q %q %d", want.Addr, c.Qualname, c.Filename, c.FirstLine, want.Qualname, want.Filename, want.FirstLineno)
				}
				for unit, wl := range want.Lines {
					if got := c.Line(unit); got != wl {
						t.Errorf("%s unit %d: line %d, CPython says %d", want.Qualname, unit, got, wl)
					}
					units++
				}
			}
			t.Logf("%s, offsets from %s: %d code objects, %d code units, %d live frames", p.Path, p.Source, len(truth), units, n)
		})
	}
}

// An interpreter whose frames are not read says why, by version.
func TestUnreadVersionSaysWhy(t *testing.T) {
	if _, err := TableOffsets(7); err == nil || err.Error() != "CPython 3.7: its frames are not read (no offsets table; tmpprobe reads 3.8-3.13)" {
		t.Errorf("3.7: %v", err)
	}
	if _, err := OpenInterp("/bin/sh"); !errors.Is(err, ErrNotPython) {
		t.Errorf("/bin/sh: %v, want ErrNotPython", err)
	}
	for _, in := range pythons.List() {
		if p, err := Prepare(in.Path); err != nil || len(p.Entries) == 0 {
			t.Errorf("%s: %v: want its runtime's file and an entry function", in.Path, err)
		}
	}
}
