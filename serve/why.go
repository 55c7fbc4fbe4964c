//go:build linux

package serve

import (
	"bytes"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/render"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// sample is what the target did in one SamplePeriod, by phase.
type sample struct {
	end     time.Time
	length  time.Duration
	records map[uint32][]results.ClassRecord
}

// ring holds the last samples, at most its capacity: the memory of /why
// is this many samples, however long the server runs.
type ring struct {
	mu      sync.Mutex
	samples []sample // oldest first
	max     int
}

func newRing(max int) ring { return ring{samples: make([]sample, 0, max), max: max} }

func (r *ring) add(s sample) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.samples) == r.max {
		copy(r.samples, r.samples[1:])
		r.samples = r.samples[:r.max-1]
	}
	r.samples = append(r.samples, s)
}

// all is a copy of the samples held, oldest first.
func (r *ring) all() []sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sample(nil), r.samples...)
}

// cachedWhy is the last /why said, for a second: one diff a second
// whatever the request rate, and one at a time.
type cachedWhy struct {
	mu   sync.Mutex
	at   time.Time
	text []byte
	code int
}

// whyText is the WHY of the last interval against the baseline window
// before it: the two windows as two traces, a round per sample, diffed
// and said by the diff's own sentences (compare.DiffWith and
// render.WriteDiffText, as 'tmpprobe diff' says two saved traces).
func (s *Server) whyText(w http.ResponseWriter, r *http.Request) {
	s.why.mu.Lock()
	defer s.why.mu.Unlock()
	if time.Since(s.why.at) >= SamplePeriod {
		s.why.code, s.why.text = s.sayWhy()
		s.why.at = time.Now()
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(s.why.code)
	w.Write(s.why.text)
}

func (s *Server) sayWhy() (int, []byte) {
	samples := s.window.all()
	last := int(s.cfg.Last / SamplePeriod)
	need := last + results.MinRoundsToCompare
	if len(samples) < need {
		return http.StatusServiceUnavailable, fmt.Appendf(nil,
			"the last %s needs at least %s before it to compare with: %d s of samples so far, %d s needed\n",
			s.cfg.Last, time.Duration(results.MinRoundsToCompare)*SamplePeriod, len(samples), need)
	}
	old, cur := samples[:len(samples)-last], samples[len(samples)-last:]
	// The whole target's "run" is one sample: its figures per run are
	// per second of the target's time; a region's are per entry.
	name := func(what string, w []sample) string {
		return fmt.Sprintf("%s: %s, %s to %s (a run: %s of it)", s.cfg.Label, what,
			clock(w[0].end.Add(-w[0].length)), clock(w[len(w)-1].end), SamplePeriod)
	}
	oldName := name(fmt.Sprintf("the %s before", windowLength(old)), old)
	newName := name(fmt.Sprintf("the last %s", windowLength(cur)), cur)
	rep := compare.DiffWith(oldName, s.windowRun(old), newName, s.windowRun(cur), nil,
		compare.Options{MinEffectPct: compare.DefaultMinEffectPct})
	var buf bytes.Buffer
	render.WriteDiffText(&buf, report.NewDiff(rep))
	return http.StatusOK, buf.Bytes()
}

// windowRun is a window of samples as a trace whose rounds are its
// samples: the whole target one op a sample (its figures per second of
// the target's time), each region one op an entry, as a trace's regions
// are (follow.Result.Arms).
func (s *Server) windowRun(window []sample) *results.Run {
	res := follow.Result{Records: map[uint32][]results.ClassRecord{}}
	var whole []results.Batch
	for i, smp := range window {
		res.Samples = append(res.Samples, smp.records)
		for ph, recs := range smp.records {
			res.Records[ph] = results.MergeRecords(res.Records[ph], recs)
		}
		res.Wall += smp.length
		one := follow.Result{Records: smp.records, Wall: smp.length}
		b := one.Arms(s.cfg.Label)[0].Batches[0]
		b.Round = i + 1
		whole = append(whole, b)
	}
	arms := res.Arms(s.cfg.Label)
	arms[0].Batches = whole
	first := window[0]
	return s.run(first.end.Add(-first.length), window[len(window)-1].end, arms)
}

func windowLength(w []sample) time.Duration {
	var d time.Duration
	for _, s := range w {
		d += s.length
	}
	return d.Round(time.Second)
}

func clock(t time.Time) string { return t.UTC().Format("15:04:05Z") }
