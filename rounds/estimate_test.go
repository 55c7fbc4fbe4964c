package rounds

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
)

// paced is a Workers workload on a clock of its own: its batches take
// their case's time, slower as the run goes on (an ext4 without a
// journal skips more deleted inodes every round) and scattered by the
// host's load, its workers' starts and ends take what a Python lab's do,
// and the probe's attach and a traced batch's records cost what they
// cost here. The engine reads the same clock, so its estimates can be
// held to the time the run then took.
type paced struct {
	now      time.Duration
	rng      *rand.Rand
	cost     []time.Duration
	rounds   int
	slowdown float64        // a batch of the last round takes this much more than one of the first
	scatter  func() float64 // a batch's factor from the host's load
	start    func(gen, n int) time.Duration
	worker   []bool
}

func (p *paced) Attach() error { p.now += 400 * time.Microsecond; return nil }
func (p *paced) Detach()       { p.now += 100 * time.Microsecond }

func (p *paced) Batch(_ context.Context, c int, b *results.Batch) error {
	wall := float64(p.cost[c]) * float64(b.Ops) * (1 + p.slowdown*float64(b.Round)/float64(p.rounds)) * p.scatter()
	if b.Traced {
		wall *= 1.3 // the observer effect
		p.now += 600 * time.Microsecond
	}
	b.WallNs = int64(wall)
	p.now += time.Duration(wall) + 300*time.Microsecond
	return nil
}

func (p *paced) Live(c int) bool { return p.worker[c] }

func (p *paced) Start(_ context.Context, gen int, cases []int) {
	p.now += p.start(gen, len(cases))
	for _, c := range cases {
		p.worker[c] = true
	}
}

func (p *paced) Renew(int) { p.Finish() }

func (p *paced) Finish() {
	p.now += 30 * time.Millisecond
	for c := range p.worker {
		p.worker[c] = false
	}
}

// The estimate of the time left is within 20% of the time the run then
// took, from a quarter of the way in, on a quiet host and under load
// (or within half a second, the progress line's rounding of it): over a
// lab of nine cases in one group, 40 rounds in generations of four.
func TestEstimateHoldsToTheEnd(t *testing.T) {
	lognormal := func(rng *rand.Rand, sigma float64) float64 { return math.Exp(sigma * rng.NormFloat64()) }
	for _, tc := range []struct {
		name     string
		slowdown float64
		scatter  func(*rand.Rand) float64
		start    func(gen, n int) time.Duration
	}{
		{"quiet", 0.3, func(r *rand.Rand) float64 { return lognormal(r, 0.05) },
			func(gen, n int) time.Duration {
				if gen == 1 {
					return time.Duration(n) * 45 * time.Millisecond
				}
				return 40*time.Millisecond + time.Duration(n)*3*time.Millisecond
			}},
		{"under load", 0.3, func(r *rand.Rand) float64 {
			if r.IntN(100) < 15 { // preempted: twice to four times as long
				return 2 + 2*r.Float64()
			}
			return lognormal(r, 0.25)
		}, func(gen, n int) time.Duration {
			if gen == 1 {
				return time.Duration(n) * 110 * time.Millisecond
			}
			return 90*time.Millisecond + time.Duration(n)*8*time.Millisecond
		}},
		{"exec per worker", 0, func(r *rand.Rand) float64 { return lognormal(r, 0.15) },
			func(_, n int) time.Duration { return time.Duration(n) * 100 * time.Millisecond }},
	} {
		for seed := range uint64(5) {
			rng := rand.New(rand.NewPCG(seed, 1))
			const cases, rounds = 9, 40
			p := &paced{rng: rng, rounds: rounds, slowdown: tc.slowdown, scatter: func() float64 { return tc.scatter(rng) },
				start: tc.start, worker: make([]bool, cases)}
			for range cases {
				p.cost = append(p.cost, time.Duration(12+rng.IntN(8))*time.Millisecond)
			}
			type seen struct{ at, left time.Duration }
			var log []seen
			r := &Runner{Plan: Plan{Groups: [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8}}, Seed: seed, Rounds: rounds, Untraced: true, Traced: true,
				GenerationRounds: 4, Warmups: 1, FreshWarmup: 0.25, Ops: 1},
				Tracer: p, Clock: func() time.Time { return time.Unix(0, 0).Add(p.now) },
				Progress: func(pr Progress) {
					if pr.Stage == StageRound && pr.Left > 0 {
						log = append(log, seen{p.now, pr.Left})
					}
				}}
			if _, err := r.Run(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			end := log[len(log)-1].at // the last batch's end: what Left runs to
			worst, estimates := 0.0, 0
			for _, s := range log {
				if s.at < end/4 {
					continue
				}
				estimates++
				truth := end - s.at
				miss := math.Abs(float64(s.left - truth))
				if miss > 0.2*float64(truth) && miss > float64(500*time.Millisecond) {
					t.Errorf("%s, seed %d: at %.1fs of %.1fs: %.1fs left estimated, %.1fs true", tc.name, seed,
						s.at.Seconds(), end.Seconds(), s.left.Seconds(), truth.Seconds())
					break
				}
				if truth > 5*500*time.Millisecond { // where 20% is more than the rounding
					worst = math.Max(worst, miss/float64(truth))
				}
			}
			if estimates < rounds {
				t.Errorf("%s, seed %d: %d estimates from a quarter in, want one a batch", tc.name, seed, estimates)
			}
			t.Logf("%s, seed %d: a %.1fs run, worst miss %.0f%% of the time left (of more than 2.5s)", tc.name, seed, end.Seconds(), 100*worst)
		}
	}
}
