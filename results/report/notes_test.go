package report

import (
	"strings"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// Every kind of warning is worded, with what it records, and a warning
// saved as words by an older tmpprobe says its words.
func TestWarningText(t *testing.T) {
	group := results.CaseID{Lab: "modes", Arm: "TemporaryFile", Runtime: "go", Dir: "/tmp", PayloadBytes: 400}
	for _, c := range []struct {
		w    results.Warning
		want string
	}{
		{results.Warning{Kind: results.WarningTmpfs, Dir: "/dev/shm"}, "/dev/shm: tmpfs: fsync returns at once"},
		{results.Warning{Kind: results.WarningNoJournal, Dir: "/tmp"}, "/tmp: ext4 without a journal"},
		{results.Warning{Kind: results.WarningOverlay, Dir: "/o", Upper: "/u", FSType: "ext4"}, "/o: an overlay: its files are written in the upper layer /u, whose ext4"},
		{results.Warning{Kind: results.WarningNoBlockDevice, Dir: "/b", FSType: "btrfs"}, "/b: no block device found under this btrfs"},
		{results.Warning{Kind: results.WarningDiscard, Dir: "/tmp"}, "/tmp: mounted with discard"},
		{results.Warning{Kind: results.WarningWriteThrough, Dir: "/j"}, "/j: the device has no volatile write cache"},
		{results.Warning{Kind: results.WarningHostBusy, Load: 3, CPUs: 2}, "host busy (load 3.0 on 2 CPUs)"},
		{results.Warning{Kind: results.WarningStateDominates, Group: &group, State: results.StateInodeAlloc, Arms: 1, Of: 2},
			"modes lab · go · /tmp · payload 400 B: the ratios of 1 of 2 arms moved with ext4 inode allocation across the run"},
		{results.Warning{Kind: results.WarningText, What: "as it was said"}, "as it was said"},
	} {
		if got := WarningText(c.w); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: %q, want it to start %q", c.w, got, c.want)
		}
	}
}
