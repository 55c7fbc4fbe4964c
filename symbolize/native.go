package symbolize

import (
	"cmp"
	"debug/dwarf"
	"debug/elf"
	"debug/gosym"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/procmaps"
	"github.com/tmpprobe/tmpprobe/results"
)

// An object is one ELF file's names: its function symbols, Go's pclntab
// where it is a Go binary, its DWARF line tables where it has them.
type object struct {
	progs []elf.ProgHeader
	syms  []sym // sorted by start
	gosym *gosym.Table
	dwarf *dwarf.Data
}

type sym struct {
	start, end uint64
	name       string
}

// objects are the files read so far, by identity (device, inode, mtime):
// processes of one program share one.
type objects struct {
	mu   sync.Mutex
	byID map[string]*object // nil: unreadable
}

func (o *objects) get(path string) *object {
	var st unix.Stat_t
	id := path
	if err := unix.Stat(path, &st); err == nil {
		id = fmt.Sprintf("%d:%d:%d", st.Dev, st.Ino, st.Mtim.Nano())
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if obj, ok := o.byID[id]; ok {
		return obj
	}
	obj, _ := openObject(path)
	o.byID[id] = obj
	return obj
}

func openObject(path string) (*object, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	o := &object{}
	for _, p := range f.Progs {
		o.progs = append(o.progs, p.ProgHeader)
	}
	for _, get := range []func() ([]elf.Symbol, error){f.Symbols, f.DynamicSymbols} {
		list, _ := get()
		for _, s := range list {
			if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value != 0 {
				o.syms = append(o.syms, sym{s.Value, s.Value + s.Size, s.Name})
			}
		}
	}
	sort.Slice(o.syms, func(i, j int) bool { return o.syms[i].start < o.syms[j].start })
	// A Go binary's .gopclntab names every function, file and line even
	// stripped of DWARF: the runtime unwinds with it.
	if pcl := f.Section(".gopclntab"); pcl != nil {
		if data, err := pcl.Data(); err == nil {
			if text := f.Section(".text"); text != nil {
				if t, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr)); err == nil {
					o.gosym = t
				}
			}
		}
	}
	if o.gosym == nil && f.Section(".debug_line") != nil {
		if d, err := f.DWARF(); err == nil {
			o.dwarf = d
		}
	}
	return o, nil
}

// Image is a program as the kernel started it at an exec (the probe's
// exec record): its text's ends with the load bias added (mm's
// start_code and end_code), its executable's identity (the kernel's
// dev_t, the inode) and the path exec was given, relative or not.
type Image struct {
	StartCode, EndCode uint64
	Dev                uint32
	Ino                uint64
	Path               string
}

// open is the object of the executable img describes, by /proc/PID/exe
// while the process lives, else by the path exec was given where that
// is still the same file; nil where neither is.
func (img Image) open(objs *objects, pid int) *object {
	for _, path := range []string{fmt.Sprintf("/proc/%d/exe", pid), img.Path} {
		var st unix.Stat_t
		if path == "" || unix.Stat(path, &st) != nil || st.Ino != img.Ino ||
			unix.Major(st.Dev)<<20|unix.Minor(st.Dev) != img.Dev {
			continue
		}
		if obj := objs.get(path); obj != nil {
			return obj
		}
	}
	return nil
}

// process names one process's addresses from the mappings it had when
// last read: read while it lives, since its names go with it; where
// they were never read, its executable's text by the Image of its exec.
type process struct {
	pid  int
	mu   sync.Mutex
	maps []procmaps.Mapping
	exe  Image
	// exeObj is exe's object, opened at the exec: nil where unreadable.
	exeObj *object
	// files are the objects of its executable mappings, by path, opened
	// when the mappings were read: a file is reached through
	// /proc/PID/root (the process's own mount namespace), which is gone
	// with the process, and a stack is often named after its last
	// syscall.
	files map[string]*object
}

// refresh rereads the mappings and opens the files newly mapped
// executable; once the process is gone the last ones stay.
func (p *process) refresh(objs *objects) {
	maps, err := procmaps.Read(p.pid)
	if err != nil {
		return
	}
	p.maps = maps
	if p.files == nil {
		p.files = map[string]*object{}
	}
	for _, m := range maps {
		if _, ok := p.files[m.Path]; !ok && strings.Contains(m.Perms, "x") && strings.HasPrefix(m.Path, "/") {
			p.files[m.Path] = objs.get(procmaps.FilePath(p.pid, m.Path))
		}
	}
}

// frame names addr; ret says it is a return address, whose line is the
// call's: addr-1 is looked up.
func (p *process) frame(objs *objects, addr uint64, ret bool) (results.Frame, string) {
	p.mu.Lock()
	m, ok := procmaps.Find(p.maps, addr)
	if !ok {
		p.refresh(objs)
		m, ok = procmaps.Find(p.maps, addr)
	}
	obj, opened := p.files[m.Path]
	exe, exeObj := p.exe, p.exeObj
	p.mu.Unlock()
	look := addr
	if ret {
		look--
	}
	f := results.Frame{Function: "?", Kind: results.FrameNative}
	if !ok && exeObj != nil && look >= exe.StartCode && look < exe.EndCode {
		// Exited before its mappings were read: the text the kernel
		// loaded, whose load bias is where its end landed.
		f.Module = filepath.Base(cmp.Or(exe.Path, "executable"))
		return exeObj.name(f, look-(exe.EndCode-exeObj.textEnd()))
	}
	if !ok {
		f.Module = "no mapping"
		return f, "address outside the process's mappings (it had exited)"
	}
	f.Module = filepath.Base(m.Path)
	if m.Path == "" || m.Path[0] != '/' {
		if m.Path == "" {
			f.Module = "anonymous"
		}
		return f, "no file behind the address (JIT or anonymous code)"
	}
	if !opened {
		obj = objs.get(procmaps.FilePath(p.pid, m.Path))
	}
	if obj == nil {
		return f, "object unreadable"
	}
	fileOff := look - m.Start + m.Offset
	var vaddr uint64
	found := false
	for _, ph := range obj.progs {
		if ph.Type == elf.PT_LOAD && fileOff >= ph.Off && fileOff < ph.Off+ph.Filesz {
			vaddr, found = fileOff-ph.Off+ph.Vaddr, true
			break
		}
	}
	if !found {
		return f, "address outside the object's segments"
	}
	return obj.name(f, vaddr)
}

// textEnd is where the object's executable segments end in its own
// addresses: the kernel's end_code less the load bias (fs/binfmt_elf.c
// takes the highest p_vaddr+p_filesz of the PF_X segments, in every
// kernel; start_code was taken over every segment before some).
func (obj *object) textEnd() uint64 {
	var end uint64
	for _, ph := range obj.progs {
		if ph.Type == elf.PT_LOAD && ph.Flags&elf.PF_X != 0 {
			end = max(end, ph.Vaddr+ph.Filesz)
		}
	}
	return end
}

// name fills f with what obj says of vaddr, an address in its own terms.
func (obj *object) name(f results.Frame, vaddr uint64) (results.Frame, string) {
	if obj.gosym != nil {
		if file, line, fn := obj.gosym.PCToLine(vaddr); fn != nil {
			// A pc the line table gives no line (Go's runtime has some,
			// runtime.unlock2Wake's) is -1 there; a frame's line is 0
			// for none.
			f.Function, f.File, f.Line = fn.Name, file, max(line, 0)
			return f, ""
		}
	}
	i := sort.Search(len(obj.syms), func(i int) bool { return obj.syms[i].start > vaddr }) - 1
	if i < 0 || (vaddr >= obj.syms[i].end && obj.syms[i].end != obj.syms[i].start) {
		return f, "no symbol"
	}
	f.Function = obj.syms[i].name
	if obj.dwarf != nil {
		f.File, f.Line = dwarfLine(obj.dwarf, vaddr)
	}
	return f, ""
}

// dwarfLine finds pc's row in the line table of its compile unit.
func dwarfLine(d *dwarf.Data, pc uint64) (string, int) {
	cu, err := d.Reader().SeekPC(pc)
	if err != nil || cu == nil {
		return "", 0
	}
	lr, err := d.LineReader(cu)
	if err != nil || lr == nil {
		return "", 0
	}
	var e dwarf.LineEntry
	if err := lr.SeekPC(pc, &e); err != nil {
		return "", 0
	}
	return e.File.Name, e.Line
}
