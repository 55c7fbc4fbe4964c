//go:build linux

package arms_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/internal/marker"
	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
)

// secondThread is the probe, except that the first traced batch's phase
// also holds a second thread's syscalls: a thread of this test marks
// itself with that phase and sleeps for longer than the batch took, as a
// worker's own thread would if its runtime had moved the batch to another
// one and left it blocked in the kernel.
type secondThread struct {
	*probe.Probe
	sleep time.Duration
	added bool
}

func (s *secondThread) Collect() (map[uint32][]results.ClassRecord, error) {
	recs, err := s.Probe.Collect()
	if err != nil || s.added || len(recs) != 1 {
		return recs, err
	}
	s.added = true
	for phase := range recs {
		done := make(chan struct{})
		go func() {
			defer close(done)
			// Unlocked again, not left to exit with the goroutine: a
			// worker whose fork came from this thread has it as the
			// parent its death signal follows.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ts := unix.NsecToTimespec(s.sleep.Nanoseconds())
			marker.Begin(s.Cookie, phase)
			unix.Nanosleep(&ts, nil)
			marker.End(s.Cookie, phase)
		}()
		<-done
		more, err := s.Probe.Collect()
		if err != nil {
			return nil, err
		}
		recs[phase] = append(recs[phase], more[phase]...)
	}
	return recs, nil
}

// A traced batch whose records hold more syscall time than its wall time
// could not have been one thread's: it runs again, the rerun is counted,
// and what is kept is exact, with none of the second thread's calls.
func TestBatchOfTwoThreadsRunsAgain(t *testing.T) {
	p := openProbe(t)
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	plan := allArmsPlan(t, arms.Runtime{Name: "go"}, 2*time.Millisecond)
	for _, a := range arms.Catalog {
		if a.Lab == "modes" && a.Name == "TemporaryFile" {
			plan.Arms = []arms.Arm{a}
		}
	}
	tracer := &secondThread{Probe: p, sleep: 200 * time.Millisecond}
	r := &arms.Runner{Tracer: tracer, Cookie: p.Cookie}
	res, err := r.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	if !tracer.added || r.Reruns != 1 {
		t.Fatalf("second thread added %v, reruns %d: want one batch run again", tracer.added, r.Reruns)
	}
	checkExact(t, res, 1)
	for _, b := range res[0].Batches {
		for _, rec := range b.Records {
			if rec.Class == "nanosleep" {
				t.Errorf("batch %d kept the second thread's nanosleep", b.Phase)
			}
		}
	}
}
