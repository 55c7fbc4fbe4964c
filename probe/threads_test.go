//go:build linux

package probe

import (
	"os"
	"runtime"
	"testing"

	"github.com/cilium/ebpf/btf"
	"golang.org/x/sys/unix"
)

// loadForTest loads fam's probe (maps and required programs, detached)
// for a test run as root, closed when the test ends.
func loadForTest(t *testing.T, fam tpFamily) *Probe {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to load BPF")
	}
	p, err := loadFamily(fam, newConfig(12345, syscallSet{}, Options{}), btf.NewCache())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// A thread whose slot another thread holds is kept in the threads hash
// and counted exactly as in a slot of its own, whether its marker made
// its state (new_thread) or Go did (TrackThreads); its end forgets it
// there and leaves the holder in the slot, and ForgetThreads forgets
// both. The holder's tid has bit 30 set: in the same slot, and never a
// real thread's (pid_max is at most 2^22).
func TestThreadSlotHeld(t *testing.T) {
	p := loadForTest(t, familyTpBtf)
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := uint32(unix.Gettid())
	holder := tid | 1<<30
	if err := p.putThread(holder, &tmpprobeThreadState{Phase: 9, BasePhase: 9}); err != nil {
		t.Fatal(err)
	}
	slot := p.threadSlot(tid)
	var inSlot tmpprobeThreadState
	var spilled uint8
	holds := func(when string) {
		t.Helper()
		if err := p.coll.Maps[tmpprobeMapThreadSlots].Lookup(slot, &inSlot); err != nil || inSlot.Tid != holder {
			t.Errorf("%s: slot %d holds tid %d (%v), want the holder %d", when, slot, inSlot.Tid, err, holder)
		}
	}

	checkMarkedRegion(t, p) // the marker's state goes to the hash
	holds("after a marked region")
	if err := p.coll.Maps[tmpprobeMapSlotsSpilled].Lookup(slot, &spilled); err != nil || spilled != 1 {
		t.Errorf("slot %d spilled = %d (%v), want 1", slot, spilled, err)
	}
	var st tmpprobeThreadState
	if err := p.coll.Maps[tmpprobeMapThreads].Lookup(tid, &st); err == nil {
		t.Errorf("the region's end left tid %d in the hash: %+v", tid, st)
	}

	const n = 500
	if err := p.TrackThreads([]int{int(tid)}, 7, false); err != nil {
		t.Fatal(err)
	}
	for range n {
		unix.Getppid()
	}
	got, err := p.Collect()
	if err != nil {
		t.Fatal(err)
	}
	if c := byClass(got[7])["getppid"].Calls; c != n {
		t.Errorf("tracked in the hash: getppid calls = %d, want %d", c, n)
	}
	holds("after TrackThreads")
	var states []uint32
	p.eachThread(func(st *tmpprobeThreadState) { states = append(states, st.Tid) })
	if len(states) != 2 {
		t.Errorf("thread states %v, want the holder's and %d's", states, tid)
	}
	p.ForgetThreads()
	states = nil
	p.eachThread(func(st *tmpprobeThreadState) { states = append(states, st.Tid) })
	if len(states) != 0 {
		t.Errorf("ForgetThreads left %v", states)
	}
}

// A program loaded on its own (loadOne) keeps two fds, its own and its
// BTF's: the maps it uses are held by the program, not by clones of
// their fds (31 a program here), which a
// fentry backend reloading its 36 programs at every traced batch (before
// v5.11) piled up until the process had none left.
func TestLoadOneKeepsTwoFds(t *testing.T) {
	p := loadForTest(t, familyTpBtf)
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	const n = 20
	before := fds()
	for range n {
		if _, err := p.loadOne(tmpprobeProgTpBtfSchedProcessExit, ""); err != nil {
			t.Fatal(err)
		}
	}
	if grew := fds() - before; grew > 2*n {
		t.Errorf("%d programs loaded on their own took %d fds, want %d at most", n, grew, 2*n)
	}
}
