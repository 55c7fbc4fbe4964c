//go:build linux

package arms_test

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/rounds"
)

// A real run follows the seed's order batch for batch: its traced batches,
// numbered by the probe's phase as they ran, are the traced slots of
// rounds.Order in turn, and each case's untraced ones its untraced slots.
// Workers start and calibrate with the probe detached (cmd hands the
// runner the probe attached), the progress line hears of the first
// generation's start and calibration only, and then of every batch.
func TestRunFollowsTheSeedOrder(t *testing.T) {
	p := openProbe(t)
	sel, _ := arms.Select([]string{"TemporaryFile", "mkstemp-close-unlink"}, nil)
	plan := &arms.Plan{Arms: sel, Runtimes: []arms.Runtime{{Name: "go"}}, Dirs: []string{t.TempDir()},
		Payloads: []int{400, 4096}, Chunk: chunk, SpoolMax: spoolMax, Ops: 20,
		Rounds: 5, Seed: 17, Baseline: true, BatchTimeout: time.Minute, WorkerRounds: 2}
	var stages []string
	r := &arms.Runner{Tracer: p, Cookie: p.Cookie, Progress: func(pr arms.Progress) {
		if pr.Stage != arms.StageRound && p.Attached() {
			t.Errorf("%s %d/%d: the probe is attached", pr.Stage, pr.Done, pr.Total)
		}
		stages = append(stages, fmt.Sprintf("%s %d %d/%d", pr.Stage, pr.Round, pr.Done, pr.Total))
	}}
	if err := p.Attach(); err != nil {
		t.Fatal(err)
	}
	res, err := r.Run(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	type ran struct {
		phase       uint32
		round, cse  int
		traced      bool
		generation  int
		warmupsSeen int
	}
	var traced []ran
	untraced := map[int][]int{}
	for c, a := range res {
		if a.Error != "" {
			t.Fatalf("%s: %s", a.Arm, a.Error)
		}
		warmups := 0
		for _, b := range a.Batches {
			switch {
			case b.Kind == results.BatchWarmup:
				warmups++
			case b.Traced:
				traced = append(traced, ran{b.Phase, b.Round, c, true, b.Generation, warmups})
			case b.Measured():
				untraced[c] = append(untraced[c], b.Round)
			}
		}
	}
	sort.Slice(traced, func(i, j int) bool { return traced[i].phase < traced[j].phase })
	var wantTraced []ran
	wantUntraced := map[int][]int{}
	for round, slots := range rounds.Order(plan.Seed, plan.Groups(), plan.Rounds, true, true) {
		for _, s := range slots {
			if s.Traced {
				wantTraced = append(wantTraced, ran{round: round + 1, cse: s.Case, traced: true})
			} else {
				wantUntraced[s.Case] = append(wantUntraced[s.Case], round+1)
			}
		}
	}
	if len(traced) != len(wantTraced) {
		t.Fatalf("%d traced batches, want %d", len(traced), len(wantTraced))
	}
	for i, b := range traced {
		if b.round != wantTraced[i].round || b.cse != wantTraced[i].cse {
			t.Errorf("traced batch %d: case %d round %d, the order says case %d round %d", i+1, b.cse, b.round, wantTraced[i].cse, wantTraced[i].round)
		}
		if want := (b.round-1)/2 + 1; b.generation != want || b.warmupsSeen != want {
			t.Errorf("traced batch %d (round %d): generation %d after %d warm-ups, want %d", i+1, b.round, b.generation, b.warmupsSeen, want)
		}
	}
	if !reflect.DeepEqual(untraced, wantUntraced) {
		t.Errorf("untraced rounds by case %v, the order says %v", untraced, wantUntraced)
	}
	n := len(plan.Cases())
	var want []string
	for _, st := range []string{arms.StageStart, arms.StageCalibrate} {
		for i := range n {
			want = append(want, fmt.Sprintf("%s 0 %d/%d", st, i+1, n))
		}
	}
	for round := 1; round <= plan.Rounds; round++ {
		for i := range 2 * n {
			want = append(want, fmt.Sprintf("%s %d %d/%d", arms.StageRound, round, i+1, 2*n))
		}
	}
	if !reflect.DeepEqual(stages, want) {
		t.Errorf("progress\n%v\nwant\n%v", stages, want)
	}
}
