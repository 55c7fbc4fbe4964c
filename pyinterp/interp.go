// Package pyinterp knows CPython from the outside: which interpreter an
// ELF file (an executable or a libpython) is, where its structures keep
// what a BPF walker reads (per-version offsets tables, or 3.13's own
// _Py_DebugOffsets), what a code object says of itself (its names and
// the three line-table formats), and a running process's interpreter. It
// reads files and, for a live process, /proc and its memory; it loads no
// BPF.
package pyinterp

import (
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// ErrNotPython: the file has no _PyRuntime (a process that is not
// Python, or not yet: before ld.so maps libpython).
var ErrNotPython = errors.New("no CPython runtime")

// Entry is a function an interpreter runs before any Python code: its
// vaddr (for the load bias) and its file offset (what a uprobe takes).
type Entry struct {
	Name              string
	Vaddr, FileOffset uint64
}

// EntrySymbols are the functions Entries looks for: Py_BytesMain for the
// python command, Py_InitializeFromConfig and Py_InitializeEx for
// programs that embed it.
var EntrySymbols = []string{"Py_BytesMain", "Py_InitializeFromConfig", "Py_InitializeEx"}

// Interp is what a CPython ELF file says of itself, read from the file
// alone, so it can be prepared for before any process runs it.
type Interp struct {
	Path     string
	Minor    int    // 3.<Minor>
	Hex      uint64 // PY_VERSION_HEX where the file has it (Py_Version, 3.11+)
	Runtime  uint64 // vaddr of _PyRuntime
	CodeType uint64 // vaddr of PyCode_Type
	Entries  []Entry
	Off      Offsets
	// Source says where Off came from: the header table, or (3.13) the
	// file's own _Py_DebugOffsets, checked against the table.
	Source string
	exec   bool
	first  elf.ProgHeader // the first PT_LOAD: where the load bias is read
}

// Version is "3.N".
func (in *Interp) Version() string { return "3." + strconv.Itoa(in.Minor) }

var pyName = regexp.MustCompile(`python3\.(\d+)`)

// interps caches OpenInterp by file identity (device, inode, mtime).
var interps sync.Map

type interpResult struct {
	in  *Interp
	err error
}

func fileKey(path string) string {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return path
	}
	return fmt.Sprintf("%d:%d:%d", st.Dev, st.Ino, st.Mtim.Nano())
}

// OpenInterp reads path's CPython facts: ErrNotPython if it has none, an
// error that says why where it is a CPython whose frames tmpprobe cannot
// read (a version without an offsets table, a free-threaded build).
func OpenInterp(path string) (*Interp, error) {
	key := fileKey(path)
	if v, ok := interps.Load(key); ok {
		r := v.(interpResult)
		return r.in, r.err
	}
	in, err := openInterp(path)
	interps.Store(key, interpResult{in, err})
	return in, err
}

func openInterp(path string) (*Interp, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	want := map[string]bool{"_PyRuntime": true, "PyCode_Type": true, "Py_Version": true}
	for _, e := range EntrySymbols {
		want[e] = true
	}
	syms := map[string]uint64{}
	// .dynsym first: CPython exports all of these (extension modules
	// link against them), and it is small; .symtab (unstripped builds
	// only) takes tens of ms to parse.
	for _, get := range []func() ([]elf.Symbol, error){f.DynamicSymbols, f.Symbols} {
		if syms["_PyRuntime"] != 0 && syms["PyCode_Type"] != 0 {
			break
		}
		list, _ := get()
		for _, s := range list {
			if want[s.Name] && s.Value != 0 {
				syms[s.Name] = s.Value
			}
		}
	}
	if syms["_PyRuntime"] == 0 || syms["PyCode_Type"] == 0 {
		return nil, ErrNotPython
	}
	in := &Interp{Path: path, Runtime: syms["_PyRuntime"], CodeType: syms["PyCode_Type"], exec: f.Type == elf.ET_EXEC}
	for _, name := range EntrySymbols {
		v := syms[name]
		for _, pr := range f.Progs {
			if v != 0 && pr.Type == elf.PT_LOAD && pr.Flags&elf.PF_X != 0 && v >= pr.Vaddr && v < pr.Vaddr+pr.Filesz {
				in.Entries = append(in.Entries, Entry{Name: name, Vaddr: v, FileOffset: v - pr.Vaddr + pr.Off})
			}
		}
	}
	for _, pr := range f.Progs {
		if pr.Type == elf.PT_LOAD {
			in.first = pr.ProgHeader
			break
		}
	}
	// The minor version: Py_Version (3.11+, the PY_VERSION_HEX the
	// library was built as) where present, else the file's name
	// (python3.8, libpython3.8.so).
	if v := syms["Py_Version"]; v != 0 {
		if b, err := fileBytes(f, v, 4); err == nil {
			if hex := binary.LittleEndian.Uint32(b); hex>>24 == 3 {
				in.Hex, in.Minor = uint64(hex), int(hex>>16)&0xff
			}
		}
	}
	if in.Minor == 0 {
		m := pyName.FindStringSubmatch(filepath.Base(path))
		if m == nil {
			return nil, fmt.Errorf("%s: a CPython with no version in its name", path)
		}
		in.Minor, _ = strconv.Atoi(m[1])
	}
	table, err := TableOffsets(in.Minor)
	if err != nil {
		return nil, err
	}
	in.Off, in.Source = table, "header table offsets/3."+strconv.Itoa(in.Minor)+".json"
	if in.Minor >= 13 {
		// 3.13 publishes its offsets: they are used, and a difference
		// from the table (of the same minor version) is said.
		raw, err := fileBytes(f, in.Runtime, uint64(binary.Size(debugOffsets313{})))
		if err != nil {
			return nil, fmt.Errorf("%s: _Py_DebugOffsets: %w", path, err)
		}
		dbg, hex, err := parseDebugOffsets(raw, table)
		if err != nil {
			return nil, fmt.Errorf("CPython 3.%d, %w", in.Minor, err)
		}
		in.Off, in.Hex, in.Source = dbg, hex, "_Py_DebugOffsets"
		if d := diffOffsets(dbg, table); d != "" {
			in.Source += " (differs from the header table: " + d + ")"
		} else {
			in.Source += " (= header table)"
		}
	}
	return in, nil
}

// fileBytes reads n bytes at vaddr from the segment that holds them.
func fileBytes(f *elf.File, vaddr, n uint64) ([]byte, error) {
	for _, pr := range f.Progs {
		if pr.Type == elf.PT_LOAD && vaddr >= pr.Vaddr && vaddr+n <= pr.Vaddr+pr.Filesz {
			b := make([]byte, n)
			_, err := pr.ReadAt(b, int64(vaddr-pr.Vaddr))
			return b, err
		}
	}
	return nil, fmt.Errorf("vaddr %#x not in the file", vaddr)
}

// Files are the ELF files that may hold an interpreter's runtime: the
// executable itself (its real path), and the libpython it links where
// the build is shared (pyenv's --enable-shared), found beside it in
// ../lib as ld.so would by its RUNPATH.
func Files(executable string) []string {
	real, err := filepath.EvalSymlinks(executable)
	if err != nil {
		return nil
	}
	out := []string{real}
	f, err := elf.Open(real)
	if err != nil {
		return out
	}
	defer f.Close()
	libs, _ := f.ImportedLibraries()
	for _, lib := range libs {
		if !strings.HasPrefix(lib, "libpython") {
			continue
		}
		for _, dir := range []string{filepath.Join(filepath.Dir(real), "..", "lib"), "/usr/lib", "/usr/local/lib"} {
			if l, err := filepath.EvalSymlinks(filepath.Join(dir, lib)); err == nil {
				out = append(out, l)
				break
			}
		}
	}
	return out
}

// Prepare finds, for an interpreter executable, the file that holds its
// runtime and its entry functions: what a uprobe goes on. An executable
// that links libpython has its runtime there.
func Prepare(executable string) (*Interp, error) {
	var firstErr error
	for _, path := range Files(executable) {
		in, err := OpenInterp(path)
		if err == nil && len(in.Entries) > 0 {
			return in, nil
		}
		if err != nil && !errors.Is(err, ErrNotPython) && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, firstErr
	}
	return nil, fmt.Errorf("%s: %w in it or a libpython it links", executable, ErrNotPython)
}

// Installed lists the CPython executables of this machine a trace
// prepares for, before it knows what its command runs: python3* on PATH,
// in /usr/bin and /usr/local/bin, and pyenv's versions (PYENV_ROOT, or
// ~/.pyenv of the user and of root).
func Installed() []string {
	var dirs []string
	dirs = append(dirs, filepath.SplitList(os.Getenv("PATH"))...)
	dirs = append(dirs, "/usr/bin", "/usr/local/bin")
	roots := []string{os.Getenv("PYENV_ROOT"), "/root/.pyenv"}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".pyenv"))
	}
	if u := os.Getenv("SUDO_USER"); u != "" {
		roots = append(roots, filepath.Join("/home", u, ".pyenv"))
	}
	for _, r := range roots {
		if r == "" {
			continue
		}
		vs, _ := filepath.Glob(filepath.Join(r, "versions", "3.*", "bin"))
		dirs = append(dirs, vs...)
	}
	seen := map[string]bool{}
	var out []string
	for _, d := range dirs {
		matches, _ := filepath.Glob(filepath.Join(d, "python3.*"))
		for _, m := range matches {
			base := filepath.Base(m)
			if strings.HasSuffix(base, "-config") || !pyName.MatchString(base) {
				continue
			}
			real, err := filepath.EvalSymlinks(m)
			if err != nil || seen[real] {
				continue
			}
			if st, err := os.Stat(real); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
				continue
			}
			seen[real] = true
			out = append(out, real)
		}
	}
	return out
}
