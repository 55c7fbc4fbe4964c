//go:build linux

package probe

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cilium/ebpf"
)

func TestParseBackend(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Backend
		ok   bool
	}{
		{"auto", BackendAuto, true}, {"fentry", BackendFentry, true}, {"kprobe", BackendKprobe, true},
		{"tracepoint", BackendTracepoint, true}, {"none", "", false}, {"fexit", "", false}, {"", "", false},
	} {
		got, err := ParseBackend(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseBackend(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// The stage ids of StageFuncs are bpf/tmpprobe.h's STAGE_<FUNC>.
func TestStageIDsMatchHeader(t *testing.T) {
	h, err := os.ReadFile("../bpf/tmpprobe.h")
	if err != nil {
		t.Fatal(err)
	}
	defines := map[string]uint16{}
	for _, m := range regexp.MustCompile(`(?m)^#define STAGE_(\w+) (\d+)`).FindAllStringSubmatch(string(h), -1) {
		v, _ := strconv.Atoi(m[2])
		defines[m[1]] = uint16(v)
	}
	for _, s := range StageFuncs {
		id, ok := defines[strings.ToUpper(s.Func)]
		if !ok || id != s.Stage {
			t.Errorf("%s: stage %d in Go, STAGE_%s = %d (defined: %v) in tmpprobe.h", s.Func, s.Stage, strings.ToUpper(s.Func), id, ok)
		}
		if StageName(s.Stage) != s.Func {
			t.Errorf("StageName(%d) = %q, want %q", s.Stage, StageName(s.Stage), s.Func)
		}
	}
}

// Every function hook has its four programs, of the right type, in the
// committed object; every syscall has an x86-64 number the bitmap holds.
func TestFunctionHookPrograms(t *testing.T) {
	spec, err := loadTmpprobe()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]ebpf.AttachType{"kprobe": ebpf.AttachNone, "kretprobe": ebpf.AttachNone,
		"fentry": ebpf.AttachTraceFEntry, "fexit": ebpf.AttachTraceFExit}
	for _, h := range funcHooks() {
		for fam, at := range want {
			ps := spec.Programs[fam+"_"+h.prog]
			switch {
			case ps == nil:
				t.Errorf("no program %s_%s", fam, h.prog)
			case strings.HasPrefix(fam, "f") && (ps.Type != ebpf.Tracing || ps.AttachType != at):
				t.Errorf("%s: type %s/%s", ps.Name, ps.Type, ps.AttachType)
			case strings.HasPrefix(fam, "k") && ps.Type != ebpf.Kprobe:
				t.Errorf("%s: type %s", ps.Name, ps.Type)
			}
		}
		if h.syscall != "" {
			if nr, ok := syscallNr(h.syscall); !ok || nr >= 512 {
				t.Errorf("syscall %s: nr %d, %v", h.syscall, nr, ok)
			}
		}
	}
}

// The kprobe.multi pair is in the object, typed for kprobe.multi links,
// and every function hook gets the cookie the programs decode: its
// syscall's nr, or COOKIE_STAGE (bpf/tmpprobe.h) | its stage.
func TestKprobeMultiCookies(t *testing.T) {
	spec, err := loadTmpprobe()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"kprobe_multi_entry", "kretprobe_multi_exit"} {
		if ps := spec.Programs[name]; ps == nil || ps.Type != ebpf.Kprobe || ps.AttachType != ebpf.AttachTraceKprobeMulti {
			t.Errorf("program %s: %v", name, ps)
		}
	}
	h, err := os.ReadFile("../bpf/tmpprobe.h")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^#define COOKIE_STAGE \(1U << (\d+)\)`).FindStringSubmatch(string(h))
	if m == nil {
		t.Fatal("no COOKIE_STAGE in tmpprobe.h")
	}
	if shift, _ := strconv.Atoi(m[1]); cookieStage != 1<<shift {
		t.Errorf("COOKIE_STAGE in tmpprobe.h (%q) is not cookieStage %#x", m, cookieStage)
	}
	opts, err := multiOptions(funcHooks())
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.Symbols) != len(funcHooks()) || len(opts.Cookies) != len(opts.Symbols) {
		t.Fatalf("%d symbols, %d cookies for %d hooks", len(opts.Symbols), len(opts.Cookies), len(funcHooks()))
	}
	want := map[string]uint64{"__x64_sys_openat": 257, "__x64_sys_renameat2": 316, "do_sys_openat2": cookieStage | 32, "vfs_rename": cookieStage | 40}
	for i, sym := range opts.Symbols {
		if w, ok := want[sym]; ok && opts.Cookies[i] != w {
			t.Errorf("%s: cookie %#x, want %#x", sym, opts.Cookies[i], w)
		}
		delete(want, sym)
	}
	if len(want) > 0 {
		t.Errorf("no symbol for %v", want)
	}
}

// Every argument the kernel check knows is of a hook tmpprobe attaches.
func TestTracepointArgsAreHooks(t *testing.T) {
	hooks := map[string]bool{}
	for _, h := range Hooks {
		hooks[h.Name] = true
	}
	for _, a := range tpArgs {
		if !hooks[a.hook] {
			t.Errorf("tpArgs names %s, not a hook", a.hook)
		}
	}
}
