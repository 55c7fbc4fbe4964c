//go:build linux

package probe

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/marker"
)

// openBackendProbe skips only when this kernel has no such backend (not
// supported) or refuses it (permission, e.g. fentry here); any other
// failure fails the test.
func openBackendProbe(t *testing.T, b Backend) *Probe {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to load BPF")
	}
	p, err := Open(Options{Attach: b})
	var be *BackendError
	if errors.As(err, &be) {
		if c := Classify(be.Err); c == VerdictNotSupported || c == VerdictPermission {
			t.Skipf("%v", err)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if p.Backend != b {
		t.Fatalf("opened backend %s, asked for %s", p.Backend, b)
	}
	t.Logf("%s: %s", b, p.Describe()) // vmtest reads how kprobe attached
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each backend counts a marked region's syscalls exactly once, the
// function backends with their stages under the syscall's class.
func TestBackendsCountExactly(t *testing.T) {
	for _, b := range autoOrder {
		t.Run(string(b), func(t *testing.T) {
			p := openBackendProbe(t, b)
			const n = 200
			dir := t.TempDir()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			marker.Begin(p.Cookie, 3)
			for i := 0; i < n; i++ {
				path := filepath.Join(dir, "f")
				fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL, 0o600)
				if err != nil {
					t.Fatal(err)
				}
				unix.Fsync(fd)
				unix.Close(fd)
				unix.Unlink(path)
			}
			unix.Unlink(dir + "/missing") // one failing call
			marker.End(p.Cookie, 3)

			got, err := p.Collect()
			if err != nil {
				t.Fatal(err)
			}
			calls := map[string]uint64{}
			errs := map[string]uint64{}
			for _, r := range got[3] {
				calls[r.Class+">"+r.Stage] = r.Calls
				errs[r.Class+">"+r.Stage] = r.Errors
			}
			// Go's unix.Unlink is unlinkat(AT_FDCWD, path, 0).
			want := map[string]uint64{"openat[create]>": n, "fsync>": n, "close>": n, "unlinkat>": n + 1}
			if b != BackendTracepoint {
				want["openat[create]>do_sys_openat2"] = n
				want["fsync>vfs_fsync_range"] = n
				want["unlinkat>do_unlinkat"] = n + 1
				want["unlinkat>vfs_unlink"] = n
			}
			for k, v := range want {
				if calls[k] != v {
					t.Errorf("%s: %d calls, want %d (all: %v)", k, calls[k], v, calls)
				}
			}
			if errs["unlinkat>"] != 1 {
				t.Errorf("unlinkat errors = %d, want 1", errs["unlinkat>"])
			}
			funcStages := map[string]bool{}
			for _, s := range stageFuncs {
				funcStages[s.Func] = true
			}
			for _, r := range got[3] {
				if b == BackendTracepoint && funcStages[r.Stage] {
					t.Errorf("tracepoint backend made a function stage row %s > %s", r.Class, r.Stage)
				}
			}
			drops, err := p.Drops()
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range drops {
				if v != 0 {
					t.Errorf("drop %s = %d", k, v)
				}
			}
		})
	}
}
