//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/tmpprobe/tmpprobe/arms"
	"github.com/tmpprobe/tmpprobe/results/render"
)

// progressMeter shows where a run is: on a terminal one line, rewritten
// four times a second and never wider than the terminal (stage, round,
// batch, the case running, elapsed time and an estimate from the rounds
// so far); elsewhere one line per finished stage or round.
type progressMeter struct {
	w     io.Writer
	tty   bool
	width int
	mu    sync.Mutex
	cur   arms.Progress
	start time.Time // of the run
	since time.Time // of the current stage or round
	spent time.Duration
	done  int // rounds finished
	stop  chan struct{}
}

func newProgress(w io.Writer) *progressMeter {
	m := &progressMeter{w: w, start: time.Now(), since: time.Now(), stop: make(chan struct{})}
	if width, tty := termWidth(w); tty {
		m.tty, m.width = true, width
		go m.tick()
	}
	return m
}

// termWidth is the width of w when it is a terminal, else the report's
// default width.
func termWidth(w io.Writer) (width int, tty bool) {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return render.DefaultWidth, false
	}
	if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
		return cols, true
	}
	return render.DefaultWidth, true
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
		m.done++
		m.spent += took
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

// line is the terminal line for where the run is now.
func (m *progressMeter) line() string {
	p := m.cur
	var s string
	switch p.Stage {
	case arms.StageStart:
		s = fmt.Sprintf("starting workers %d/%d", p.Done, p.Total)
	case arms.StageCalibrate:
		s = fmt.Sprintf("calibrating %d/%d", p.Done, p.Total)
	case arms.StageRound:
		s = fmt.Sprintf("round %d/%d · batch %d/%d", p.Round, p.Rounds, p.Done, p.Total)
	case arms.StageCase:
		s = fmt.Sprintf("case %d/%d", p.Done, p.Total)
	default:
		return ""
	}
	s += fmt.Sprintf(" · %s · %.0fs", label(p.Case), time.Since(m.start).Seconds())
	if p.Stage == arms.StageRound && m.done > 0 {
		left := m.spent / time.Duration(m.done) * time.Duration(p.Rounds-m.done)
		s += fmt.Sprintf(", ~%.0fs left", left.Seconds())
	}
	return s
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
			if line := m.line(); line != "" {
				fmt.Fprintf(m.w, "\r\033[K%s", truncRunes(line, m.width-1))
			}
			m.mu.Unlock()
		}
	}
}

func (m *progressMeter) close() {
	close(m.stop)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tty {
		fmt.Fprint(m.w, "\r\033[K")
	} else if m.cur.Stage == arms.StageCase {
		fmt.Fprintf(m.w, "ran %d cases in sequence (%.1fs)\n", m.cur.Done, time.Since(m.start).Seconds())
	}
}

func label(c arms.Case) string {
	param := fmt.Sprintf("payload %d", c.Payload)
	if c.Size > 0 {
		param = fmt.Sprintf("size %d", c.Size)
	}
	return fmt.Sprintf("%s %s/%s %s", c.Runtime.Name, c.Arm.Lab, c.Arm.Name, param)
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
