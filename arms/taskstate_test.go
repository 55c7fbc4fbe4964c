//go:build linux

package arms_test

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/probe/probetest"
	"github.com/tmpprobe/tmpprobe/results"
)

// maxTaskStateDisagreement bounds, for every arm, the share of the
// switches where the state decides the off-CPU cause (sleep or blocked,
// not preempted) in which the task's state read in sched_switch says
// another cause than prev_state: the bound docs/kernels.md and the
// report's note on kernels before 5.18 give.
const maxTaskStateDisagreement = 0.05

// stateCounts are one case's task_state_read and task_state_differs
// stage rows, summed over its traced batches, with its off-CPU time.
type stateCounts struct {
	read, differs       uint64
	differsNs, offcpuNs uint64
}

// TestTaskStateDisagreement measures what reading the task's state costs
// on kernels before 5.18, where sched_switch has no prev_state: on this
// kernel, which has both, every arm runs with the probe comparing the two
// on each switch, and the test prints per arm how many switches the state
// decided and in how many the task's state named another cause (with the
// off-CPU time of those). TMPPROBE_TASKSTATE_DIR names the work dir (a
// disk's, where the syncing arms block; default a temp dir).
func TestTaskStateDisagreement(t *testing.T) {
	p := probetest.Open(t, probe.Options{CompareTaskState: true})
	dir := os.Getenv("TMPPROBE_TASKSTATE_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	runtimes := []arms.Runtime{{Name: "go"}}
	if py, err := arms.FindPython(context.Background(), "python3", time.Minute); err == nil {
		runtimes = append(runtimes, py)
	}
	sel, _ := arms.Select(nil, []string{arms.LabModes})
	plan := &arms.Plan{Arms: sel, Runtimes: runtimes, Dirs: []string{dir},
		Payloads: []int{400}, Sizes: []int{256 << 10}, Chunk: chunk, SpoolMax: spoolMax,
		Rounds: 4, MinBatch: 20 * time.Millisecond, Seed: 1, Baseline: false, BatchTimeout: 2 * time.Minute}
	res := runPlan(t, p, plan)
	var total stateCounts
	var lines []string
	for _, a := range res {
		if a.Error != "" {
			t.Errorf("%s/%s: %s", a.Runtime, a.Arm, a.Error)
			continue
		}
		c := caseStateCounts(a)
		total.read += c.read
		total.differs += c.differs
		total.differsNs += c.differsNs
		total.offcpuNs += c.offcpuNs
		lines = append(lines, fmt.Sprintf("%-7s %-24s %8d %8d %7s %7s", a.Runtime, a.Arm, c.read, c.differs,
			share(c.differs, c.read), share(c.differsNs, c.offcpuNs)))
		if c.read > 0 && float64(c.differs) > maxTaskStateDisagreement*float64(c.read) {
			t.Errorf("%s/%s: the task's state disagreed on %d of %d switches, more than %.0f%%",
				a.Runtime, a.Arm, c.differs, c.read, 100*maxTaskStateDisagreement)
		}
	}
	sort.Strings(lines)
	t.Logf("kernel %s, dir %s; switches the state decided (READ), where the task's state\n"+
		"said another cause than prev_state (DIFFER), their share, and their share of off-CPU time:\n"+
		"%-7s %-24s %8s %8s %7s %7s\n%s\n%-32s %8d %8d %7s %7s", osRelease(), dir,
		"RUNTIME", "ARM", "READ", "DIFFER", "SHARE", "OFFCPU", strings.Join(lines, "\n"),
		"all", total.read, total.differs, share(total.differs, total.read), share(total.differsNs, total.offcpuNs))
	if total.read == 0 {
		t.Errorf("no switch decided by the state in any arm: nothing was compared")
	}
}

func caseStateCounts(a results.ArmResult) stateCounts {
	var c stateCounts
	for _, b := range a.Batches {
		if !b.Traced {
			continue
		}
		for _, r := range b.Records {
			switch r.Stage {
			case "task_state_read":
				c.read += r.Calls
			case "task_state_differs":
				c.differs += r.Calls
				c.differsNs += r.TotalNs
			case "":
				c.offcpuNs += r.OffCPUNs
			}
		}
	}
	return c
}

func share(part, whole uint64) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f%%", 100*float64(part)/float64(whole))
}

func osRelease() string {
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.TrimSpace(string(b))
}
