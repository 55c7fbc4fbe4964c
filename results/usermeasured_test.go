package results_test

import (
	"math"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// Where the probe measured user space, a round's terms are its
// syscalls, the measured user CPU time, the run-queue wait, the off-CPU
// time between calls and the remainder, and they add up to its wall
// time exactly; the summary's user space is the measured time's median.
func TestMeasuredUserTerms(t *testing.T) {
	run := resultstest.CodeRun()
	if !run.UserMeasured() {
		t.Fatal("a run whose user records carry on-CPU time is not measured")
	}
	for _, s := range results.SummarizeAll(run, resultstest.CodeLabs.Baselines) {
		if !s.UserMeasured {
			t.Fatalf("%s: user space not measured", s.Arm)
		}
		var users []float64
		for _, r := range s.Rounds {
			if r.Terms == nil {
				continue
			}
			var sum float64
			for name, v := range r.Terms {
				if name != results.WallTerm {
					sum += v
				}
			}
			if math.Abs(sum-r.Terms[results.WallTerm]) > 1e-6 {
				t.Errorf("%s round %d: terms add up to %.3f, wall %.3f", s.Arm, r.Round, sum, r.Terms[results.WallTerm])
			}
			if r.Terms[results.BetweenTerm] <= 0 || r.Terms[results.RemainderTerm] <= 0 {
				t.Errorf("%s round %d: off-CPU between calls %.1f, remainder %.1f: want both", s.Arm, r.Round,
					r.Terms[results.BetweenTerm], r.Terms[results.RemainderTerm])
			}
			users = append(users, r.Terms[results.UserTerm])
		}
		if want := results.Median(users).Center; s.UserNsPerOp != want {
			t.Errorf("%s: user space %.1f ns/op, want the median of the rounds' measured %.1f", s.Arm, s.UserNsPerOp, want)
		}
	}
}

// A program whose two threads spin: user space is their CPU time, 0.21 s
// in 0.10 s of wall, and what the terms leave of the wall time is below
// zero; as wall − syscalls it was −0.09 s.
func TestMeasuredUserOverThreads(t *testing.T) {
	run := resultstest.SpinTrace()
	s := results.SummarizeAll(run, nil)[0]
	if s.UserNsPerOp != 210e6 {
		t.Errorf("user space %.0f ns, want the measured 210000000", s.UserNsPerOp)
	}
	r := s.Rounds[0].Terms
	if want := 100e6 - 98.3e6 - 210e6 - 2e6; math.Abs(r[results.RemainderTerm]-want) > 1 {
		t.Errorf("remainder %.0f ns, want %.0f", r[results.RemainderTerm], want)
	}
	for i := range run.Arms[0].Batches[0].Records {
		if rec := &run.Arms[0].Batches[0].Records[i]; rec.Class == results.ClassUser {
			rec.TotalNs = 0 // as probes before #39 recorded it
		}
	}
	if old := results.SummarizeAll(run, nil)[0]; old.UserMeasured || math.Abs(old.UserNsPerOp-(100e6-98.3e6-2e6)) > 1 {
		t.Errorf("unmeasured: user space %.0f ns (measured %v), want wall − syscalls − run-queue wait", old.UserNsPerOp, old.UserMeasured)
	}
}

// One definition of user space for every arm of a run: an arm whose
// records carry no user CPU time in a run that measured it has user
// space 0, not what its syscalls leave of the wall time.
func TestUserMeasuredPerRun(t *testing.T) {
	run := resultstest.CodeRun()
	for j := range run.Arms[0].Batches {
		for k := range run.Arms[0].Batches[j].Records {
			if rec := &run.Arms[0].Batches[j].Records[k]; rec.Class == results.ClassUser && rec.Stage == "" {
				rec.TotalNs = 0
			}
		}
	}
	sums := results.SummarizeAll(run, nil)
	if !sums[0].UserMeasured || sums[0].UserNsPerOp != 0 {
		t.Errorf("%s: measured %v, user %.1f ns/op: want measured, 0", sums[0].Arm, sums[0].UserMeasured, sums[0].UserNsPerOp)
	}
	if alone := results.Summarize(&run.Arms[0], run.Protocol.Name); alone.UserMeasured {
		t.Error("an arm summarized alone, with no user CPU time of its own, is taken as measured")
	}
}
