//go:build linux

package arms_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/arms"
)

// An untraced batch's run-queue wait is its worker thread's, read from
// the kernel (sched_info's run_delay) around the batch: with a CPU hog
// pinned to the worker's one CPU, the batch waits for it (CFS shares the
// CPU between the two: about half of the batch here), and a traced batch
// reports none (the probe measures its wait). Asserted as a share of the
// same batch's wall time, never as a time.
func TestUntracedBatchRunQueueWait(t *testing.T) {
	var arm arms.Arm
	for _, a := range arms.Catalog {
		if a.Lab == "modes" && a.Name == "TemporaryFile" {
			arm = a
		}
	}
	for _, rt := range []arms.Runtime{{Name: "go"}, python(t)} {
		t.Run(rt.Name, func(t *testing.T) {
			w, err := arms.Start(context.Background(), rt, arms.Config{
				Lab: arm.Lab, Arm: arm.Name, PyFunc: arm.Python, GoSteps: arm.Go, Dir: t.TempDir(),
			}, 0)
			if err != nil {
				t.Fatalf("%v: %s", err, w.Stderr())
			}
			defer w.Close()
			if _, wait, err := w.Batch(1, true, 10, 0); err != nil || wait != -1 {
				t.Fatalf("traced batch: wait %d, %v; want -1 (none reported)", wait, err)
			}
			hog := exec.Command("sh", "-c", "while :; do :; done")
			if err := hog.Start(); err != nil {
				t.Fatal(err)
			}
			defer hog.Wait()
			defer hog.Process.Kill()
			var cpu0 unix.CPUSet
			cpu0.Set(0)
			pin(t, hog.Process.Pid, &cpu0)
			pin(t, w.Pid(), &cpu0)
			// 2000 ops of 10–60 µs: a batch of tens of ms, many CFS slices.
			for try := 1; ; try++ {
				wall, wait, err := w.Batch(0, false, 2000, 0)
				if err != nil {
					t.Fatalf("%v: %s", err, w.Stderr())
				}
				if wait < 0 && try < 3 {
					continue // a Go batch the runtime moved to another thread
				}
				t.Logf("wall %d ns, run-queue wait %d ns (%.0f%%)", wall, wait, 100*float64(wait)/float64(wall))
				if wait*10 < wall || wait >= wall {
					t.Errorf("run-queue wait %d ns of a %d ns batch sharing its CPU with a hog: want a tenth of it or more, and less than all", wait, wall)
				}
				break
			}
		})
	}
}

// pin sets the CPU affinity of every thread of pid.
func pin(t *testing.T, pid int, set *unix.CPUSet) {
	t.Helper()
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		if err := unix.SchedSetaffinity(tid, set); err != nil {
			t.Fatalf("pinning %d: %v", tid, err)
		}
	}
}
