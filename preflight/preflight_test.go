//go:build linux

package preflight

import (
	"slices"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

func TestWarnings(t *testing.T) {
	for _, c := range []struct {
		dir  results.DirFacts
		load float64
		want []results.WarningKind
	}{
		{results.DirFacts{Dir: "/dev/shm", FSType: "tmpfs"}, 0, []results.WarningKind{results.WarningTmpfs}},
		{results.DirFacts{Dir: "/tmp", FSType: "ext4", Journal: "no", Disk: "vda", Options: "rw,discard"}, 0,
			[]results.WarningKind{results.WarningNoJournal, results.WarningDiscard}},
		{results.DirFacts{Dir: "/j", FSType: "ext4", Journal: "yes", Disk: "sda", WriteCache: "write through"}, 0,
			[]results.WarningKind{results.WarningWriteThrough}},
		{results.DirFacts{Dir: "/b", FSType: "btrfs"}, 0, []results.WarningKind{results.WarningNoBlockDevice}},
		{results.DirFacts{Dir: "/j", FSType: "ext4", Journal: "yes", Disk: "sda"}, 3, []results.WarningKind{results.WarningHostBusy}},
		{results.DirFacts{Dir: "/j", FSType: "ext4", Journal: "yes", Disk: "sda"}, 0.5, nil},
	} {
		m := &results.Meta{CPUs: 2, LoadAvg: c.load, Dirs: []results.DirFacts{c.dir}}
		var got []results.WarningKind
		for _, w := range Warnings(m) {
			got = append(got, w.Kind)
			if w.Kind == results.WarningHostBusy && (w.Load != 3 || w.CPUs != 2) {
				t.Errorf("host busy %+v, want load 3 on 2 CPUs", w)
			} else if w.Kind != results.WarningHostBusy && w.Dir != c.dir.Dir {
				t.Errorf("%+v names dir %q, want %q", w, w.Dir, c.dir.Dir)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: warnings %q, want %q", c.dir, got, c.want)
		}
	}
}

func TestUnescape(t *testing.T) {
	if got := unescape(`/mnt/my\040disk`); got != "/mnt/my disk" {
		t.Errorf("unescape = %q", got)
	}
}

// The root filesystem is found in mountinfo, whatever it is.
func TestDirRoot(t *testing.T) {
	f, _, err := Dir("/")
	if err != nil || f.FSType == "" || f.MountPoint != "/" {
		t.Errorf("Dir(/) = %+v, %v", f, err)
	}
}

// Every process sees a root mount, with its filesystem type.
func TestMounts(t *testing.T) {
	mounts, err := Mounts()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mounts {
		if m.Point == "/" && m.FSType != "" && m.Source != "" {
			return
		}
	}
	t.Errorf("no root mount among %+v", mounts)
}

// Host names the kernel and counts the CPUs.
func TestHost(t *testing.T) {
	if m := Host(); m.KernelRelease == "" || m.Machine == "" || m.CPUs < 1 {
		t.Errorf("Host() = %+v", m)
	}
}
