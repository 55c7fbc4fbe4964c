package vmtest

import (
	"reflect"
	"strings"
	"testing"
)

// A region is what a thread did between its markers, a call split by
// strace counted once, other threads and other lseeks left out; openat's
// flags make its class.
func TestStraceRegions(t *testing.T) {
	log := `100 openat(AT_FDCWD, "/etc/x", O_RDONLY) = 3
101 lseek(-1, 7231282225824510326, 0x7 /* SEEK_??? */ <unfinished ...>
100 futex(0x1, FUTEX_WAKE, 1) = 0
101 <... lseek resumed>) = -1 EBADF (Bad file descriptor)
101 openat(AT_FDCWD, "/tmp/w", O_RDWR|O_EXCL|O_TMPFILE, 0600) = 4
101 write(4, "x", 1 <unfinished ...>
100 write(1, "y", 1) = 1
101 <... write resumed>) = 1
101 --- SIGURG {si_signo=SIGURG, si_code=SI_TKILL} ---
101 rt_sigreturn({mask=[]}) = 1
101 openat(AT_FDCWD, "/tmp/w/a", O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0600) = 5
101 openat(AT_FDCWD, "/tmp/w/a", O_RDONLY|O_CLOEXEC) = 6
101 lseek(5, 0, SEEK_SET) = 0
101 lseek(-1, 7231282225824510326, SEEK_HOLE) = -1 EBADF (Bad file descriptor)
101 close(4) = 0
101 lseek(-1, 7231282225824510326, SEEK_DATA) = -1 EBADF (Bad file descriptor)
101 close(5) = 0
101 lseek(-1, 7231282225824510326, SEEK_END) = -1 EBADF (Bad file descriptor)
101 +++ exited with 0 +++
`
	got, err := StraceRegions(log)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint32]Counts{
		3: {"openat[tmpfile]": 1, "write": 1, "rt_sigreturn": 1, "openat[create]": 1, "openat": 1, "lseek": 1},
		1: {"close": 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// Counts survive the console, and the comparison names every class and
// region that differ.
func TestCompareWithStrace(t *testing.T) {
	run := map[uint32]Counts{1: {"close": 20, "write": 20}, 2: {"unlink": 20}}
	back, err := ParseCounts(FormatCounts(run))
	if err != nil || !reflect.DeepEqual(back, run) {
		t.Fatalf("round trip: %v, %v", back, err)
	}
	if d := CompareWithStrace(run, back, nil); len(d) != 0 {
		t.Errorf("equal counts differ: %q", d)
	}
	strace := map[uint32]Counts{1: {"close": 20, "write": 19, "futex": 1}, 3: {"close": 1}}
	d := strings.Join(CompareWithStrace(run, strace, map[uint32]string{1: "modes/TemporaryFile/go", 2: "modes/mkstemp/go"}), "\n")
	for _, want := range []string{
		"phase 1 (modes/TemporaryFile/go): futex 0 calls, strace 1",
		"phase 1 (modes/TemporaryFile/go): write 20 calls, strace 19",
		"phase 2 (modes/mkstemp/go): no region in strace's log",
		"phase 3: strace saw a region the run has no traced batch for",
	} {
		if !strings.Contains(d, want) {
			t.Errorf("no %q in:\n%s", want, d)
		}
	}
}
