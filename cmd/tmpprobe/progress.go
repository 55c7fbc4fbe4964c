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
// batch, the case running, elapsed time and the rounds engine's estimate
// of the time left, rounds.Progress.Left); elsewhere one line per
// finished stage or round.
type progressMeter struct {
	w     io.Writer
	tty   bool
	width int
	mu    sync.Mutex
	cur   arms.Progress
	at    time.Time // of cur
	start time.Time // of the run
	since time.Time // the last stage or round ended
	stop  chan struct{}
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
	m.cur, m.at = p, time.Now()
	if p.Done < p.Total {
		return
	}
	// A stage or round took from the end of the one before: the first
	// step of one is reported after it ran (a generation's workers start
	// together and are reported then).
	took := time.Since(m.since)
	m.since = time.Now()
	if m.tty {
		return
	}
	switch p.Stage {
	case arms.StageStart:
		fmt.Fprintf(m.w, "started %d workers (%.1fs)\n", p.Total, took.Seconds())
	case arms.StageCalibrate:
		fmt.Fprintf(m.w, "calibrated %d cases (%.1fs)\n", p.Total, took.Seconds())
	case arms.StageRound:
		left := ""
		if l := m.left(); l != "" {
			left = ", " + l
		}
		fmt.Fprintf(m.w, "round %d/%d done (%.1fs)%s\n", p.Round, p.Rounds, took.Seconds(), left)
	}
}

// left is the estimate of the time left as the line shows it, counted
// down from when it was made ("" when there is none).
func (m *progressMeter) left() string {
	if m.cur.Left <= 0 {
		return ""
	}
	left := max(m.cur.Left-time.Since(m.at), 0)
	if m.cur.AtMost {
		return fmt.Sprintf("≤%.0fs left", left.Seconds())
	}
	return fmt.Sprintf("~%.0fs left", left.Seconds())
}

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
	if l := m.left(); p.Stage == arms.StageRound && l != "" {
		clock += ", " + l
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
			select {
			case <-m.stop: // closed while this tick waited: the line stays cleared
				m.mu.Unlock()
				return
			default:
			}
			if line := fitFields(m.fields(), m.width-1); line != "" {
				fmt.Fprintf(m.w, "\r\033[K%s", line)
			}
			m.mu.Unlock()
		}
	}
}

// close ends the line once the measuring ends.
func (m *progressMeter) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
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
