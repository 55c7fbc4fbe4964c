//go:build linux

package probe

import (
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

// The kprobe.multi pair is in the object, typed for kprobe.multi links,
// and every function hook gets the cookie the programs decode: its
// syscall's nr, or COOKIE_STAGE | its stage.
func TestKprobeMultiCookies(t *testing.T) {
	spec, err := loadTmpprobe()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{tmpprobeProgKprobeMultiEntry, tmpprobeProgKretprobeMultiExit} {
		if ps := spec.Programs[name]; ps == nil || ps.Type != ebpf.Kprobe || ps.AttachType != ebpf.AttachTraceKprobeMulti {
			t.Errorf("program %s: %v", name, ps)
		}
	}
	opts, err := multiOptions(funcHooks())
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.Symbols) != len(funcHooks()) || len(opts.Cookies) != len(opts.Symbols) {
		t.Fatalf("%d symbols, %d cookies for %d hooks", len(opts.Symbols), len(opts.Cookies), len(funcHooks()))
	}
	want := map[string]uint64{
		syscallPrefix + "openat":    uint64(tmpprobeSyscallNrNR_openat),
		syscallPrefix + "renameat2": uint64(tmpprobeSyscallNrNR_renameat2),
		"do_sys_openat2":            uint64(tmpprobeMultiCookieCOOKIE_STAGE) | uint64(tmpprobeStageSTAGE_DO_SYS_OPENAT2),
		"vfs_rename":                uint64(tmpprobeMultiCookieCOOKIE_STAGE) | uint64(tmpprobeStageSTAGE_VFS_RENAME),
	}
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

// Every hook the kernel check knows the forms of is a hook tmpprobe
// attaches, with its current form first.
func TestTracepointFormsAreHooks(t *testing.T) {
	hooks := map[string]bool{}
	for _, h := range tpHooks {
		hooks[h.Name] = true
	}
	for hook, forms := range tpForms {
		if !hooks[hook] {
			t.Errorf("tpForms names %s, not a hook", hook)
		}
		if len(forms) == 0 || forms[0].prog != "" || forms[0].older != "" {
			t.Errorf("%s: forms %+v, want the current one first", hook, forms)
		}
	}
}
