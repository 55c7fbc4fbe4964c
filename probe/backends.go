//go:build linux

package probe

import "fmt"

// Backend is how the named syscalls are timed (docs/kernels.md, "Backends
// and tmpprobe check"; ARCHITECTURE.md, probe/).
type Backend string

const (
	BackendAuto       Backend = "auto"
	BackendFentry     Backend = "fentry"
	BackendKprobe     Backend = "kprobe"
	BackendTracepoint Backend = "tracepoint"
)

// autoOrder is what --attach auto tries, deepest first.
var autoOrder = []Backend{BackendFentry, BackendKprobe, BackendTracepoint}

// ParseBackend checks a backend's name (without "none", which means no
// probe at all and is the command's business).
func ParseBackend(s string) (Backend, error) {
	switch b := Backend(s); b {
	case BackendAuto, BackendFentry, BackendKprobe, BackendTracepoint:
		return b, nil
	}
	return "", fmt.Errorf("unknown backend %q (want auto, fentry, kprobe or tracepoint)", s)
}

// families are the program name prefixes of a function backend's entry and
// exit hooks in bpf/backends.bpf.h.
func (b Backend) families() (entry, exit string) {
	switch b {
	case BackendFentry:
		return "fentry", "fexit"
	case BackendKprobe:
		return "kprobe", "kretprobe"
	}
	return "", ""
}

// backendSyscalls are the syscalls the fentry and kprobe backends time on
// their own functions, those of them this architecture has (arm64 has no
// unlink or rename); the BPF side has a hook pair for each.
var backendSyscalls = archSyscalls(
	"openat", "unlink", "unlinkat", "fsync", "fdatasync", "linkat",
	"rename", "renameat", "renameat2",
)

// archSyscalls keeps the names this architecture's syscall table has.
func archSyscalls(names ...string) []string {
	var out []string
	for _, n := range names {
		if _, ok := syscallNr(n); ok {
			out = append(out, n)
		}
	}
	return out
}

// stageFunc is a kernel function timed inside a syscall.
type stageFunc struct {
	Func  string        // the kernel function, and the stage's name
	Stage tmpprobeStage // its STAGE_<FUNC>
	Under string        // the syscalls it usually shows under, for humans
}

// stageFuncs in the order of bpf/backends.bpf.h.
var stageFuncs = []stageFunc{
	{"do_sys_openat2", tmpprobeStageSTAGE_DO_SYS_OPENAT2, "openat"},
	{"do_unlinkat", tmpprobeStageSTAGE_DO_UNLINKAT, "unlink(at)"},
	{"vfs_unlink", tmpprobeStageSTAGE_VFS_UNLINK, "unlink(at)"},
	{"vfs_fsync_range", tmpprobeStageSTAGE_VFS_FSYNC_RANGE, "fsync"},
	{"file_write_and_wait_range", tmpprobeStageSTAGE_FILE_WRITE_AND_WAIT_RANGE, "fsync (ext4…)"},
	{"do_linkat", tmpprobeStageSTAGE_DO_LINKAT, "linkat"},
	{"vfs_link", tmpprobeStageSTAGE_VFS_LINK, "linkat"},
	{"do_renameat2", tmpprobeStageSTAGE_DO_RENAMEAT2, "rename(at)(2)"},
	{"vfs_rename", tmpprobeStageSTAGE_VFS_RENAME, "rename(at)(2)"},
}

// funcHook is one kernel function a function backend hooks with an entry
// and an exit program.
type funcHook struct {
	target  string        // kernel symbol
	prog    string        // program suffix in bpf/backends.bpf.h
	syscall string        // "" for a stage
	stage   tmpprobeStage // a stage's id
}

// progs are the hook's entry and exit programs for b: FUNC_STAGE_HOOKS and
// SYSCALL_HOOKS (bpf/backends.bpf.h) name them <family>_<prog>.
func (h funcHook) progs(b Backend) [2]string {
	entry, exit := b.families()
	return [2]string{entry + "_" + h.prog, exit + "_" + h.prog}
}

func (h funcHook) label() string {
	if h.syscall != "" {
		return h.target
	}
	return h.target + " (stage)"
}

// funcHooks lists every function hook: the syscalls first, then stages.
func funcHooks() []funcHook {
	var out []funcHook
	for _, s := range backendSyscalls {
		out = append(out, funcHook{target: syscallPrefix + s, prog: "sys_" + s, syscall: s})
	}
	for _, s := range stageFuncs {
		out = append(out, funcHook{target: s.Func, prog: s.Func, stage: s.Stage})
	}
	return out
}

func funcTargets() []string {
	var out []string
	for _, h := range funcHooks() {
		out = append(out, h.target)
	}
	return out
}

// syscallNr is the number of a syscall name on this architecture.
func syscallNr(name string) (uint16, bool) {
	for nr, n := range syscallNames {
		if n == name {
			return nr, true
		}
	}
	return 0, false
}
