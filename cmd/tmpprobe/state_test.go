//go:build linux

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/loopext4"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/runfile"
)

// A run whose later generations allocate inodes in a churned block group:
// on an ext4 without a journal, a create skips every inode deleted in the
// last minute (ext4's recently_deleted()), so once thousands of inodes
// next to the work dir are deleted half-way through the run, every create
// after that pays for skipping them. The report must say that the ratio
// moved with ext4 inode allocation, with both ranges.
func TestStateSentenceFollowsInodeChurn(t *testing.T) {
	needBPF(t)
	// One block group (128 MiB of 4 KiB blocks, 8192 inodes): the churned
	// inodes, the work dir and every create share it.
	fs := loopext4.NoJournal(t, "128M")
	work, churn := filepath.Join(fs, "work"), filepath.Join(fs, "work", "churn")
	if err := os.MkdirAll(churn, 0o755); err != nil {
		t.Fatal(err)
	}
	const rounds = 20
	done := make(chan struct{})
	churned := make(chan int, 1)
	go func() {
		// Churn once the run has begun its ninth generation (each makes
		// one group directory in the run's private dir): making and
		// deleting 6000 files takes a generation or two of this run, so
		// about half of them allocate after the churn, and the report's
		// halves (the generations lowest in the state, the highest) are
		// before and after.
		for {
			select {
			case <-done:
				churned <- 0
				return
			case <-time.After(20 * time.Millisecond):
			}
			groups, _ := filepath.Glob(filepath.Join(work, "tmpprobe-*", "group-*"))
			if len(groups) >= rounds/2-1 {
				break
			}
		}
		n := 0
		for i := range 6000 {
			p := filepath.Join(churn, fmt.Sprint(i))
			if f, err := os.Create(p); err == nil {
				f.Close()
				n++
			}
		}
		for i := range 6000 {
			os.Remove(filepath.Join(churn, fmt.Sprint(i)))
		}
		churned <- n
	}()
	out := filepath.Join(t.TempDir(), "run")
	// NamedTemporaryFile against BytesIO, which allocates no inode: the ratio
	// moves as far as inode allocation moves NamedTemporaryFile alone.
	code, stdout, stderr := inProcess("run", "BytesIO", "NamedTemporaryFile", "--lab", "buffers", "--runtime", "go",
		"--sizes", "4K", "--chunk", "4K", "--rounds", fmt.Sprint(rounds), "--worker-rounds", "1", "--dir", work, "--out", out, "-q")
	close(done)
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if n := <-churned; n < 5000 {
		t.Fatalf("churned %d inodes mid-run, want 6000 (did the run reach its ninth generation?)", n)
	}
	run, err := runfile.LoadRun(out)
	if err != nil {
		t.Fatal(err)
	}
	var link *explain.StateLink
	for _, g := range results.PeerGroups(results.SummarizeAll(run, arms.Knowledge().Baselines)) {
		for _, l := range explain.StateLinks(g, "BytesIO") {
			if l.Arm == "NamedTemporaryFile" && l.State == results.StateInodeAlloc {
				link = &l
			}
		}
	}
	if link == nil {
		for _, s := range results.SummarizeAll(run, arms.Knowledge().Baselines) {
			for _, r := range s.Rounds {
				t.Logf("%s generation %d: ratio %.5f, inode allocation %.1f µs", s.Arm, r.Generation, r.Ratio,
					r.State[results.StateInodeAlloc].PerCount()/1000)
			}
		}
		t.Fatalf("no link of NamedTemporaryFile's ratio to %s:\n%s", results.StateInodeAlloc, stdout)
	}
	if link.StateHi < 10*link.StateLo || !(link.RatioAtHi < link.RatioAtLo) {
		t.Errorf("%s: want inode allocation at least 10× dearer after the churn, and the ratio lower", link.Sentence())
	}
	text := strings.Join(strings.Fields(stdout), " ")
	for _, want := range []string{"WHY • " + link.Sentence(), "the ratios of 1 of 1 arms moved with ext4 inode allocation across the run"} {
		if !strings.Contains(text, want) {
			t.Errorf("the report does not say %q:\n%s", want, stdout)
		}
	}
}
