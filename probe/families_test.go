//go:build linux

package probe

import (
	"os"
	"slices"
	"testing"
)

// Every tracepoint hook is in a family, so make bench's table prices each
// one (#40), and every family has a hook but neighbours (work in the
// scheduler's and the block layer's hooks).
func TestEveryHookHasAFamily(t *testing.T) {
	seen := map[HookFamily]bool{}
	for _, h := range tpHooks {
		f := familyOf(h.Name)
		if f == "" {
			t.Errorf("hook %s has no family", h.Name)
		}
		seen[f] = true
	}
	for _, f := range append([]HookFamily{FamilySyscalls}, HookFamilies...) {
		if !seen[f] && f != FamilyNeighbours {
			t.Errorf("family %s has no hook", f)
		}
	}
	// Syscalls' hooks attach whatever the families; a family's only with it.
	if !attaches([]HookFamily{}, "sys_enter") || attaches([]HookFamily{}, "sched_switch") ||
		!attaches([]HookFamily{FamilyScheduler}, "sched_switch") || !attaches(nil, "ext4_free_inode") {
		t.Error("attaches: the syscalls' hooks always, a family's hooks with it, every hook with none named")
	}
	if !slices.Contains(HookFamilies, FamilyNeighbours) || (Options{Families: []HookFamily{FamilyBlock}}).countsNeighbours() {
		t.Error("neighbours are counted only with their family named (or none)")
	}
}

// A probe of the syscalls' family alone attaches their two hooks and
// counts a marked region's syscalls exactly: the base every family's
// price in make bench is taken against.
func TestSyscallsFamilyAlone(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to load BPF")
	}
	p, err := Open(Options{Attach: BackendTracepoint, Families: []HookFamily{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	if len(p.links) != 2 || len(p.Missing) != 0 {
		t.Errorf("%d links, missing %q: want sys_enter and sys_exit alone", len(p.links), p.Missing)
	}
	checkMarkedRegion(t, p)
}
