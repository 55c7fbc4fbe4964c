package rounds

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// The engine runs the batches the labs' runner and compare's ran before
// it was shared, in the same order: each is checked against a copy of
// the loop it replaced (oldLabs, oldCompare below), over plans with
// calibration, generations, failing cases, warm-up passes and a stop
// rule. Times are the script's (a batch costs its ops times the case's
// cost), so calibration decides the same way in both.

// script is a workload whose batches cost what it says: it logs every
// start, renewal and batch, and fails a case at a given batch.
type script struct {
	t        *testing.T
	attached bool // the recording tracer's state
	cost     []int64
	failAt   map[int]int // case → its batch (1-based) that fails
	ran      []int       // batches per case
	dead     []bool
	worker   []bool
	workers  bool // a Workers workload: a case needs a started worker
	clock    time.Duration
	log      []string
	progress []string
}

func newScript(t *testing.T, cases int, workers bool, failAt map[int]int) *script {
	s := &script{t: t, failAt: failAt, ran: make([]int, cases), dead: make([]bool, cases), worker: make([]bool, cases), workers: workers}
	for c := range cases {
		s.cost = append(s.cost, int64(1000*(c+1)+337*c*c))
	}
	return s
}

func (s *script) Attach() error { s.attached = true; s.log = append(s.log, "attach"); return nil }
func (s *script) Detach()       { s.attached = false; s.log = append(s.log, "detach") }

func (s *script) Batch(_ context.Context, c int, b *results.Batch) error {
	if b.Traced != s.attached {
		s.t.Errorf("case %d %+v ran with the probe attached=%v", c, b, s.attached)
	}
	s.ran[c]++
	if s.failAt[c] == s.ran[c] {
		s.dead[c], s.worker[c] = true, false
		s.log = append(s.log, fmt.Sprintf("fail %d", c))
		return nil
	}
	wall := s.cost[c] * int64(b.Ops)
	if s.ran[c] == 1 {
		wall *= 10 // a case's first ops are cold
	}
	b.WallNs, s.clock = wall, s.clock+time.Duration(wall)
	s.log = append(s.log, fmt.Sprintf("batch %d %q r%d g%d t=%v ops=%d", c, b.Kind, b.Round, b.Generation, b.Traced, b.Ops))
	return nil
}

func (s *script) Live(c int) bool { return !s.dead[c] && (!s.workers || s.worker[c]) }

func (s *script) Start(_ context.Context, _ int, cases []int) {
	for _, c := range cases {
		if s.dead[c] {
			continue
		}
		s.worker[c] = true
		s.log = append(s.log, fmt.Sprintf("start %d", c))
	}
}

func (s *script) Renew(gen int) {
	s.finish()
	s.log = append(s.log, fmt.Sprintf("renew g%d", gen))
}

func (s *script) Finish() { s.finish(); s.log = append(s.log, "finish") }

func (s *script) finish() {
	for c := range s.worker {
		s.worker[c] = false
	}
}

func (s *script) report(p Progress) {
	s.progress = append(s.progress, fmt.Sprintf("%s g%d %d/%d %d/%d c%d", p.Stage, p.Generation, p.Round, p.Rounds, p.Done, p.Total, p.Case))
}

// commands is a script without workers, as compare's runs are.
type commands struct{ s *script }

func (c commands) Batch(ctx context.Context, i int, b *results.Batch) error {
	return c.s.Batch(ctx, i, b)
}
func (c commands) Live(i int) bool { return c.s.Live(i) }

// labPlan is a lab run's plan in the old runner's terms.
type labPlan struct {
	groups           [][]int
	seed             uint64
	rounds, wr, ops  int
	minBatch         time.Duration
	untraced, traced bool
}

// oldLabs is arms' runRounds, refresh and calibrate as they were before
// the engine (4756147), over the script: the order to match. Its progress
// is in the engine's terms (arms maps them to its stages as before).
func oldLabs(s *script, p labPlan) {
	n := len(s.cost)
	resOps := make([]int, n)
	batches := make([][]results.Batch, n)
	batch := func(c int, b results.Batch) {
		if b.Traced != s.attached {
			s.attached = b.Traced
			s.log = append(s.log, map[bool]string{true: "attach", false: "detach"}[b.Traced])
		}
		if s.Batch(context.Background(), c, &b); !s.dead[c] {
			batches[c] = append(batches[c], b)
		}
	}
	calibrate := func(c int) {
		if s.dead[c] {
			return
		}
		m := p.ops
		for m == 0 {
			try := 1
			if k := len(batches[c]); k > 0 {
				last := batches[c][k-1]
				if k > 1 && time.Duration(last.WallNs) >= p.minBatch || last.Ops >= maxBatchOps {
					m = last.Ops
					break
				}
				try = NextOps(last.Ops, last.WallNs, p.minBatch)
			}
			if batch(c, results.Batch{Kind: results.BatchCalibrate, Ops: try}); s.dead[c] {
				return
			}
		}
		resOps[c] = m
		batch(c, results.Batch{Kind: results.BatchWarmup, Ops: m})
	}
	for c := range n {
		s.Start(context.Background(), 1, []int{c})
		s.progress = append(s.progress, fmt.Sprintf("start g1 0/0 %d/%d c%d", c+1, n, c))
	}
	for c := range n {
		calibrate(c)
		s.progress = append(s.progress, fmt.Sprintf("warmup g1 1/1 %d/%d c%d", c+1, n, c))
	}
	generation := func(round int) int {
		if p.wr <= 0 {
			return 1
		}
		return round/p.wr + 1
	}
	for round, slots := range Order(p.seed, p.groups, p.rounds, p.untraced, p.traced) {
		// Since #33 a later generation's workers start together, then
		// each is warmed up: the measured order is the old runner's.
		if round > 0 && p.wr > 0 && round%p.wr == 0 {
			s.Renew(generation(round))
			for c := range n {
				s.Start(context.Background(), generation(round), []int{c})
			}
			for c := range n {
				if s.Live(c) {
					batch(c, results.Batch{Kind: results.BatchWarmup, Ops: resOps[c]})
				}
			}
		}
		for i, sl := range slots {
			if s.dead[sl.Case] {
				continue
			}
			batch(sl.Case, results.Batch{Round: round + 1, Generation: generation(round), Ops: resOps[sl.Case], Traced: sl.Traced})
			s.progress = append(s.progress, fmt.Sprintf("round g%d %d/%d %d/%d c%d", generation(round), round+1, p.rounds, i+1, len(slots), sl.Case))
		}
	}
	s.Finish()
}

// batchesOf is the log without the probe's attach and detach, which the
// old runner skipped before its first traced batch (it took the probe
// for detached when cmd had attached it).
func batchesOf(log []string) []string {
	var out []string
	for _, l := range log {
		if l != "attach" && l != "detach" {
			out = append(out, l)
		}
	}
	return out
}

func TestLabsRunTheOldOrder(t *testing.T) {
	modes := [][]int{{0, 2, 4}, {1, 3, 5}} // three arms × two payloads, grouped by payload
	for _, tc := range []struct {
		name   string
		p      labPlan
		failAt map[int]int
	}{
		{"calibrated, one generation", labPlan{groups: modes, seed: 7, rounds: 5, minBatch: 200 * time.Microsecond, untraced: true, traced: true}, nil},
		{"generations of two", labPlan{groups: modes, seed: 11, rounds: 7, wr: 2, minBatch: 50 * time.Microsecond, untraced: true, traced: true}, nil},
		{"fixed ops, a case failing mid-round", labPlan{groups: modes, seed: 3, rounds: 6, wr: 4, ops: 20, untraced: true, traced: true}, map[int]int{3: 7}},
		{"failing in calibration", labPlan{groups: modes, seed: 5, rounds: 3, wr: 1, minBatch: 300 * time.Microsecond, untraced: true, traced: true}, map[int]int{1: 2}},
		{"traced only", labPlan{groups: [][]int{{0, 1}, {2}}, seed: 9, rounds: 4, wr: 3, minBatch: 100 * time.Microsecond, traced: true}, nil},
		{"throughput only", labPlan{groups: [][]int{{0, 1}, {2}}, seed: 9, rounds: 4, minBatch: 100 * time.Microsecond, untraced: true}, nil},
	} {
		cases := 0
		for _, g := range tc.p.groups {
			cases += len(g)
		}
		old := newScript(t, cases, true, tc.failAt)
		oldLabs(old, tc.p)
		s := newScript(t, cases, true, tc.failAt)
		r := &Runner{Plan: Plan{Groups: tc.p.groups, Seed: tc.p.seed, Rounds: tc.p.rounds, Untraced: tc.p.untraced, Traced: tc.p.traced,
			GenerationRounds: tc.p.wr, Warmups: 1, Ops: tc.p.ops, MinBatch: tc.p.minBatch}, Progress: s.report}
		if tc.p.traced {
			r.Tracer = s
		}
		out, err := r.Run(context.Background(), s)
		if err != nil || out.Rounds != tc.p.rounds {
			t.Errorf("%s: %d rounds, %v; want %d", tc.name, out.Rounds, err, tc.p.rounds)
		}
		if got, want := batchesOf(s.log), batchesOf(old.log); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the engine ran\n%s\nthe old runner\n%s", tc.name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		// The old runner said nothing while it renewed the workers: arms
		// drops the engine's reports of a later generation's start.
		var progress []string
		for _, p := range s.progress {
			if strings.HasPrefix(p, StageRound) || strings.Contains(p, " g1 ") {
				progress = append(progress, p)
			}
		}
		if !reflect.DeepEqual(progress, old.progress) {
			t.Errorf("%s: the engine reported\n%s\nthe old runner\n%s", tc.name, strings.Join(s.progress, "\n"), strings.Join(old.progress, "\n"))
		}
		if tc.p.traced && (len(s.log) == 0 || s.log[0] != "detach") {
			t.Errorf("%s: the engine began with %q, want the probe detached before anything runs", tc.name, s.log[:1])
		}
	}
}

// comparePlan is a comparison's plan in the old runner's terms; the
// stop rule is --min-time's, on the script's clock.
type comparePlan struct {
	commands, warmup, rounds int
	seed                     uint64
	minTime                  time.Duration
}

// oldCompare is cmdbench's run loop as it was before the engine
// (4756147), over the script. Its progress is in the engine's terms
// (cmdbench shows no count of rounds with --min-time, as before).
func oldCompare(s *script, p comparePlan) int {
	set := func(traced bool) {
		if s.attached != traced {
			s.attached = traced
			s.log = append(s.log, map[bool]string{true: "attach", false: "detach"}[traced])
		}
	}
	s.attached = true
	set(false)
	all := make([]int, p.commands)
	for i := range all {
		all[i] = i
	}
	for w := 0; w < p.warmup; w++ {
		for i := range all {
			s.Batch(context.Background(), i, &results.Batch{Kind: results.BatchWarmup, Ops: 1})
			s.progress = append(s.progress, fmt.Sprintf("warmup g1 %d/%d %d/%d c%d", w+1, p.warmup, i+1, len(all), i))
		}
	}
	rounds := p.rounds
	if p.minTime > 0 {
		rounds = 1000
	}
	order := Order(p.seed, [][]int{all}, rounds, true, true)
	start, ran := s.clock, 0
	for ri, round := range order {
		if p.minTime > 0 && ri >= p.rounds && s.clock-start >= p.minTime {
			break
		}
		for si, slot := range round {
			set(slot.Traced)
			s.Batch(context.Background(), slot.Case, &results.Batch{Round: ri + 1, Generation: ri + 1, Ops: 1, Traced: slot.Traced})
			s.progress = append(s.progress, fmt.Sprintf("round g%d %d/%d %d/%d c%d", ri+1, ri+1, rounds, si+1, len(round), slot.Case))
		}
		ran = ri + 1
	}
	return ran
}

func TestCompareRunsTheOldOrder(t *testing.T) {
	for _, p := range []comparePlan{
		{commands: 2, rounds: 6, seed: 42},
		{commands: 3, warmup: 2, rounds: 4, seed: 8},
		{commands: 2, warmup: 1, rounds: 3, seed: 1, minTime: 400 * time.Microsecond},
	} {
		old := newScript(t, p.commands, false, nil)
		oldRounds := oldCompare(old, p)
		s := newScript(t, p.commands, false, nil)
		s.attached = true // cmd hands compare the probe attached
		all := make([]int, p.commands)
		for i := range all {
			all[i] = i
		}
		plan := Plan{Groups: [][]int{all}, Seed: p.seed, Rounds: p.rounds, Untraced: true, Traced: true, GenerationRounds: 1, Warmups: p.warmup, Ops: 1}
		start := time.Duration(-1)
		if p.minTime > 0 {
			// The stop rule on the script's clock, from the first round.
			plan.Rounds = 1000
			plan.Continue = func(st Status) bool {
				if start < 0 {
					start = s.clock
				}
				return st.Rounds < p.rounds || s.clock-start < p.minTime
			}
		}
		out, err := (&Runner{Plan: plan, Tracer: s, Progress: s.report}).Run(context.Background(), commands{s})
		if err != nil || out.Rounds != oldRounds {
			t.Errorf("%+v: %d rounds, %v; the old runner ran %d", p, out.Rounds, err, oldRounds)
		}
		if !reflect.DeepEqual(s.log, old.log) {
			t.Errorf("%+v: the engine ran\n%s\nthe old runner\n%s", p, strings.Join(s.log, "\n"), strings.Join(old.log, "\n"))
		}
		if !reflect.DeepEqual(s.progress, old.progress) {
			t.Errorf("%+v: the engine reported\n%s\nthe old runner\n%s", p, strings.Join(s.progress, "\n"), strings.Join(old.progress, "\n"))
		}
		if p.minTime > 0 && (oldRounds <= p.rounds || oldRounds >= 1000) {
			t.Errorf("%+v: the stop rule ran %d rounds: want it to stop past --rounds, before the cap", p, oldRounds)
		}
	}
}

// A cancelled context stops the rounds before the next batch, with the
// rounds that finished counted.
func TestInterruptedRounds(t *testing.T) {
	s := newScript(t, 2, false, nil)
	ctx, cancel := context.WithCancel(context.Background())
	r := &Runner{Plan: Plan{Groups: [][]int{{0, 1}}, Seed: 1, Rounds: 5, Untraced: true, Traced: true, GenerationRounds: 1, Ops: 1},
		Tracer: s, Progress: func(p Progress) {
			if p.Stage == StageRound && p.Round == 2 && p.Done == p.Total {
				cancel()
			}
		}}
	out, err := r.Run(ctx, commands{s})
	if !errors.Is(err, ErrInterrupted) || out.Rounds != 2 || s.ran[0] != 4 || s.ran[1] != 4 {
		t.Errorf("%d rounds, %v, batches %v: want 2 rounds of 2×2, interrupted", out.Rounds, err, s.ran)
	}
}

// A narrowing rule decides, before each later generation, which groups
// it runs: the generation starts workers for those cases alone, its
// rounds run them alone, and no group ends the rounds.
func TestNarrowRunsTheGroupsItNames(t *testing.T) {
	s := newScript(t, 4, true, nil)
	var asked []Status
	r := &Runner{Plan: Plan{Groups: [][]int{{0, 1}, {2, 3}}, Seed: 5, Rounds: 10, Untraced: true, Traced: true,
		GenerationRounds: 2, Warmups: 1, FreshWarmup: 0.25, Ops: 40,
		Narrow: func(st Status) [][]int {
			asked = append(asked, st)
			if st.Generation == 1 {
				return [][]int{{3, 2}}
			}
			return nil
		}}, Tracer: s}
	out, err := r.Run(context.Background(), s)
	if err != nil || out.Rounds != 4 {
		t.Fatalf("%d rounds, %v; want 4: two generations of two", out.Rounds, err)
	}
	if len(asked) != 2 || asked[0].Rounds != 2 || asked[0].Generation != 1 || asked[1].Rounds != 4 || asked[1].Generation != 2 {
		t.Errorf("asked %+v; want after rounds 2 and 4, generations 1 and 2", asked)
	}
	renewed := false
	for _, l := range s.log {
		switch {
		case l == "renew g2":
			renewed = true
		case !renewed:
		case l == "start 0" || l == "start 1" || strings.HasPrefix(l, "batch 0 ") || strings.HasPrefix(l, "batch 1 "):
			t.Errorf("generation 2 ran %q: it runs cases 2 and 3 alone", l)
		case strings.Contains(l, `"warmup"`) && !strings.HasSuffix(l, "ops=10"):
			t.Errorf("generation 2's warm-up %q: want a quarter of the batch, 10 ops", l)
		}
	}
	if !renewed {
		t.Error("no second generation")
	}
}

// Times are the engine's whole time, stage by stage: on the paced
// workload's clock they add up to the run's, and Measured is the batches'
// own time.
func TestTimesAddUp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	p := &paced{rng: rng, rounds: 8, scatter: func() float64 { return 1 + rng.Float64() },
		start: func(_, n int) time.Duration { return time.Duration(n) * 40 * time.Millisecond }, worker: make([]bool, 3),
		cost: []time.Duration{3 * time.Millisecond, 5 * time.Millisecond, 7 * time.Millisecond}}
	r := &Runner{Plan: Plan{Groups: [][]int{{0, 1, 2}}, Seed: 2, Rounds: 8, Untraced: true, Traced: true,
		GenerationRounds: 3, Warmups: 1, FreshWarmup: 0.25, MinBatch: 20 * time.Millisecond},
		Tracer: p, Clock: func() time.Time { return time.Unix(0, 0).Add(p.now) }}
	out, err := r.Run(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	tm := out.Time
	sum := tm.Start + tm.Calibrate + tm.Warmup + tm.Switch + tm.Rounds
	if sum != p.now || tm.Measured <= 0 || tm.Measured >= tm.Rounds || tm.Calibrate <= 0 || tm.Warmup <= 0 || tm.Switch <= 0 {
		t.Errorf("times %+v add up to %v; the run took %v", tm, sum, p.now)
	}
}
