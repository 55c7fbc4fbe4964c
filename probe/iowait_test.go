//go:build linux

package probe

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// results' list of the syscalls that can wait for a block device names
// syscall classes as the probe reports them: each is a syscall of this
// architecture (the asm/unistd_64.h the BPF side is compiled against),
// never a pseudo class of enum pseudo_class, and the family of a
// pseudo class with a "[" (the part results cuts off) is a syscall too.
func TestIOWaitSyscallsAreClasses(t *testing.T) {
	pseudo := map[string]string{}
	for name, v := range cEnum(t, "pseudo_class") {
		pseudo[className(uint16(v))] = name
	}
	list := results.IOWaitSyscalls()
	if len(list) == 0 {
		t.Fatal("results.IOWaitSyscalls is empty")
	}
	for _, name := range list {
		if _, ok := syscallNr(name); !ok {
			t.Errorf("results' waitsForIO has %q, which is no x86-64 syscall the probe names", name)
		}
		if e, ok := pseudo[name]; ok {
			t.Errorf("results' waitsForIO has %q, the pseudo class %s", name, e)
		}
	}
	for class, e := range pseudo {
		if family, _, ok := strings.Cut(class, "["); ok {
			if _, isSyscall := syscallNr(family); !isSyscall {
				t.Errorf("%s is %q: results reads its family %q, which is no syscall", e, class, family)
			}
		}
	}
}
