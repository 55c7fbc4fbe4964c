//go:build linux

package serve

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"net/http"
	"strconv"
	"time"

	"github.com/tmpprobe/tmpprobe/follow"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/render"
)

const pprofIndexText = `tmpprobe serve: pprof profiles of %s
  /debug/pprof/syscalls?seconds=N  the next N seconds (default %s, at most %s):
      sample types calls, syscall_time (the default) and offcpu_time
`

func (s *Server) pprofIndex(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/debug/pprof/" {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fprintf(w, pprofIndexText, s.cfg.Label, DefaultProfile, s.cfg.MaxProfile)
}

// profile is the pprof profile of the next ?seconds=: the difference of
// two snapshots of the probe's totals, as the trace of those seconds,
// written by render.WritePprof (the writer --pprof uses, so a frame it
// learns to write, user stacks among them, is served here too).
func (s *Server) profile(w http.ResponseWriter, r *http.Request) {
	length := DefaultProfile
	if v := r.URL.Query().Get("seconds"); v != "" {
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || !(n > 0) {
			http.Error(w, fmt.Sprintf("seconds=%q: want a number above 0", v), http.StatusBadRequest)
			return
		}
		length = time.Duration(n * float64(time.Second))
	}
	length = min(length, s.cfg.MaxProfile)
	select {
	case s.profiles <- struct{}{}:
		defer func() { <-s.profiles }()
	default:
		w.Header().Set("Retry-After", strconv.Itoa(int(length.Seconds())+1))
		http.Error(w, fmt.Sprintf("%d profiles are being taken: try again later", maxProfilesInFlight), http.StatusServiceUnavailable)
		return
	}
	before, err := s.t.Snapshot()
	if err != nil {
		http.Error(w, "reading the probe: "+err.Error(), http.StatusInternalServerError)
		return
	}
	stacksBefore, err := s.t.SnapshotStacks()
	if err != nil {
		http.Error(w, "reading the probe's stacks: "+err.Error(), http.StatusInternalServerError)
		return
	}
	start := time.Now()
	timer := time.NewTimer(length)
	defer timer.Stop()
	select {
	case <-r.Context().Done():
		return // the scraper went away, or tmpprobe is stopping: nothing to keep
	case <-timer.C:
	}
	after, err := s.t.Snapshot()
	if err != nil {
		http.Error(w, "reading the probe: "+err.Error(), http.StatusInternalServerError)
		return
	}
	stacksAfter, err := s.t.SnapshotStacks()
	if err != nil {
		http.Error(w, "reading the probe's stacks: "+err.Error(), http.StatusInternalServerError)
		return
	}
	end := time.Now()
	grew := map[uint32][]results.ClassRecord{}
	for ph, recs := range after {
		grew[ph] = results.SubtractRecords(recs, before[ph])
	}
	stacks := map[uint32][]results.StackRecord{}
	for ph, recs := range stacksAfter {
		stacks[ph] = results.SubtractStackRecords(recs, stacksBefore[ph])
	}
	res := follow.Result{Records: grew, Wall: end.Sub(start), Stacks: stacks}
	run := s.run(start, end, res.Arms(s.cfg.Label))
	run.Stacks = s.t.StackTable()
	var buf bytes.Buffer
	if err := render.WritePprof(&buf, run, results.SummarizeAll(run, nil)); err != nil {
		http.Error(w, "writing the profile: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="syscalls.pb.gz"`)
	w.Write(buf.Bytes())
}

// run is what the server read between start and end as a trace's run.
// Its strings are escaped already: the label and the host's facts once,
// in New, and the probe names its classes itself.
func (s *Server) run(start, end time.Time, arms []results.ArmResult) *results.Run {
	return &results.Run{Schema: results.Schema, Tool: "tmpprobe", Kind: results.KindTrace, Complete: true,
		Started: start.UTC(), Finished: end.UTC(), Meta: s.cfg.Meta, Arms: arms}
}

func fprintf(w io.Writer, format string, a ...any) { fmt.Fprintf(w, format, a...) }

// discardLog drops net/http's own lines (a client's TLS handshake on a
// plain port, a broken connection): they would interleave with the
// terminal's, and say nothing a user of tmpprobe can act on.
var discardLog = log.New(io.Discard, "", 0)
