package compare_test

import (
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// #43: a run beside another is its replicate only when nothing that can
// move its numbers differs: a mount option, the kernel, the work per op.
// Otherwise it is left out of the noise, with the reason the footer
// gives.
func TestNotReplicate(t *testing.T) {
	fixture := func(slowFsync bool) *results.Run {
		r := resultstest.FixtureRun(slowFsync)
		r.Meta.KernelRelease = "6.18.0-test"
		r.Meta.Dirs = []results.DirFacts{{Dir: "/tmp", FSType: "ext4", Options: "rw,relatime", Journal: "yes"}}
		return r
	}
	base := fixture(false)
	edit := func(f func(*results.Run)) *results.Run {
		r := fixture(false)
		f(r)
		return r
	}
	slowFsync := fixture(true) // a flush more per fsync
	for _, c := range []struct {
		name    string
		earlier *results.Run
		want    string
	}{
		{"the same", fixture(false), ""},
		{"saved elsewhere", edit(func(r *results.Run) { r.Args = append(r.Args, "--out", "runs/b") }), ""},
		{"nobarrier", edit(func(r *results.Run) { r.Meta.Dirs[0].Options += ",nobarrier" }), "mounted nobarrier"},
		{"another kernel", edit(func(r *results.Run) { r.Meta.KernelRelease = "6.1.0-27-amd64" }), "kernel release 6.1.0-27-amd64"},
		{"more flushes", slowFsync, "another work per op: mkstemp-fsync's flushes/op 1 → 0"},
	} {
		if got := compare.NotReplicate(base, results.SummarizeAll(base, resultstest.Labs.Baselines), c.earlier, resultstest.Labs.Baselines); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	got := results.LeftOutText([]results.LeftOut{{Name: "a", Reason: "mounted nobarrier"}, {Name: "b", Reason: "mounted nobarrier"}, {Name: "c", Reason: "kernel release 6.1"}})
	if want := "2 runs beside it left out: mounted nobarrier; 1: kernel release 6.1"; got != want {
		t.Errorf("LeftOutText: %q, want %q", got, want)
	}
}
