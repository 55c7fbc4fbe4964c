//go:build linux

package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/session"
)

// progressMeter shows where a run is: on a terminal one line, rewritten
// four times a second and never wider than the terminal (stage, round,
// batch, the case running, elapsed time and an estimate from the rounds
// so far); elsewhere one line per finished stage or round.
type progressMeter struct {
	w      io.Writer
	tty    bool
	width  int
	mu     sync.Mutex
	cur    arms.Progress
	start  time.Time       // of the run
	since  time.Time       // of the current stage or round
	took   []time.Duration // of each round finished
	stop   chan struct{}
	closed bool
}

func newProgress(w io.Writer) *progressMeter {
	m := &progressMeter{w: w, start: time.Now(), since: time.Now(), stop: make(chan struct{})}
	if width, tty := session.Width(w); tty {
		m.tty, m.width = true, width
		go m.tick()
	}
	return m
}

func (m *progressMeter) update(p arms.Progress) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.Stage != m.cur.Stage || p.Round != m.cur.Round && p.Stage == arms.StageRound {
		m.since = time.Now()
	}
	m.cur = p
	if p.Done < p.Total {
		return
	}
	took := time.Since(m.since)
	if p.Stage == arms.StageRound {
		m.took = append(m.took, took)
	}
	if m.tty {
		return
	}
	switch p.Stage {
	case arms.StageStart:
		fmt.Fprintf(m.w, "started %d workers (%.1fs)\n", p.Total, took.Seconds())
	case arms.StageCalibrate:
		fmt.Fprintf(m.w, "calibrated %d cases (%.1fs)\n", p.Total, took.Seconds())
	case arms.StageRound:
		fmt.Fprintf(m.w, "round %d/%d done (%.1fs)\n", p.Round, p.Rounds, took.Seconds())
	}
	m.since = time.Now()
}

// recentRounds is how many of the last rounds the estimate averages: on
// an ext4 without a journal rounds slow down as a run deletes files, so
// the first rounds' pace would promise too early an end.
const recentRounds = 5

// fields are the terminal line for where the run is now, most important
// first: the stage, the time (and what is left), the batch, the case.
func (m *progressMeter) fields() []string {
	p := m.cur
	var stage, step string
	switch p.Stage {
	case arms.StageStart:
		stage = fmt.Sprintf("starting workers %d/%d", p.Done, p.Total)
	case arms.StageCalibrate:
		stage = fmt.Sprintf("calibrating %d/%d", p.Done, p.Total)
	case arms.StageRound:
		stage, step = fmt.Sprintf("round %d/%d", p.Round, p.Rounds), fmt.Sprintf("batch %d/%d", p.Done, p.Total)
	case arms.StageCase:
		stage = fmt.Sprintf("case %d/%d", p.Done, p.Total)
	default:
		return nil
	}
	clock := fmt.Sprintf("%.0fs", time.Since(m.start).Seconds())
	if done := len(m.took); p.Stage == arms.StageRound && done > 0 {
		var sum time.Duration
		recent := m.took[max(0, done-recentRounds):]
		for _, d := range recent {
			sum += d
		}
		per := sum / time.Duration(len(recent))
		left := per*time.Duration(p.Rounds-done) - min(time.Since(m.since), per)
		clock += fmt.Sprintf(", ~%.0fs left", max(left, 0).Seconds())
	}
	out := []string{stage, clock}
	if step != "" {
		out = append(out, step)
	}
	return append(out, label(p.Case))
}

// line joins the fields that fit in width columns, dropping whole fields
// from the end: a line cut mid-number ("· 10s, ~4") says something false.
func fitFields(fields []string, width int) string {
	line := ""
	for i, f := range fields {
		next := f
		if i > 0 {
			next = line + " · " + f
		}
		if len([]rune(next)) > width {
			if i == 0 {
				return truncRunes(f, width)
			}
			break
		}
		line = next
	}
	return line
}

func (m *progressMeter) tick() {
	t := time.NewTicker(250 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-m.stop:
			return
		case <-t.C:
			m.mu.Lock()
			if line := fitFields(m.fields(), m.width-1); line != "" {
				fmt.Fprintf(m.w, "\r\033[K%s", line)
			}
			m.mu.Unlock()
		}
	}
}

// close ends the line once the measuring ends; closing again (when the
// command returns) does nothing.
func (m *progressMeter) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	m.closed = true
	close(m.stop)
	if m.tty {
		fmt.Fprint(m.w, "\r\033[K")
	} else if m.cur.Stage == arms.StageCase {
		fmt.Fprintf(m.w, "ran %d cases in sequence (%.1fs)\n", m.cur.Done, time.Since(m.start).Seconds())
	}
}

// label names a case as the report does ("payload 400 B", "size 4 MiB").
func label(c arms.Case) string {
	id := results.CaseID{Lab: c.Arm.Lab, PayloadBytes: c.Payload, SizeBytes: c.Size}
	return fmt.Sprintf("%s %s/%s %s", c.Runtime.Name, c.Arm.Lab, c.Arm.Name, id.ParamTitle())
}

// truncRunes cuts s to n runes: a progress line that wraps is no longer
// rewritten in place.
func truncRunes(s string, n int) string {
	r := []rune(s)
	if n < 1 || len(r) <= n {
		return s
	}
	return string(r[:n])
}
