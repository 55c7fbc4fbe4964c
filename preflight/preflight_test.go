//go:build linux

package preflight

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

func TestWarnings(t *testing.T) {
	for _, c := range []struct {
		dir  results.DirFacts
		load float64
		want []string
	}{
		{results.DirFacts{Dir: "/dev/shm", FSType: "tmpfs"}, 0, []string{"tmpfs: fsync returns at once"}},
		{results.DirFacts{Dir: "/tmp", FSType: "ext4", Journal: "no", Disk: "vda", Options: "rw,discard"}, 0,
			[]string{"without a journal", "mounted with discard"}},
		{results.DirFacts{Dir: "/j", FSType: "ext4", Journal: "yes", Disk: "sda", WriteCache: "write through"}, 0,
			[]string{"no volatile write cache"}},
		{results.DirFacts{Dir: "/b", FSType: "btrfs"}, 0, []string{"no block device found"}},
		{results.DirFacts{Dir: "/j", FSType: "ext4", Journal: "yes", Disk: "sda"}, 3, []string{"host busy (load 3.0 on 2 CPUs)"}},
		{results.DirFacts{Dir: "/j", FSType: "ext4", Journal: "yes", Disk: "sda"}, 0.5, nil},
	} {
		m := &results.Meta{CPUs: 2, LoadAvg: c.load, Dirs: []results.DirFacts{c.dir}}
		got := strings.Join(Warnings(m), "\n")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%+v: warnings %q lack %q", c.dir, got, w)
			}
		}
		if len(c.want) == 0 && got != "" {
			t.Errorf("%+v: unexpected warnings %q", c.dir, got)
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
