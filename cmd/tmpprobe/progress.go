//go:build linux

package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/tmpprobe/tmpprobe/arms"
)

// progressMeter shows where a run is: on a terminal one line rewritten
// four times a second (case, batch, elapsed, and an estimate from the
// case's earlier batches); elsewhere one line per finished case.
type progressMeter struct {
	w    io.Writer
	tty  bool
	mu   sync.Mutex
	cur  arms.Progress
	t0   time.Time // current batch started
	mean time.Duration
	stop chan struct{}
}

func newProgress(w io.Writer) *progressMeter {
	m := &progressMeter{w: w, tty: isTerminal(w), stop: make(chan struct{})}
	if m.tty {
		go m.tick()
	}
	return m
}

func (m *progressMeter) update(p arms.Progress) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p.Batch == 1 && !p.Done {
		m.mean = 0
	}
	m.cur = p
	if !p.Done {
		m.t0 = time.Now()
	} else {
		m.mean += (p.BatchDuration - m.mean) / time.Duration(p.Batch)
	}
	if !m.tty && p.Done && p.Batch == p.Batches {
		fmt.Fprintf(m.w, "[%d/%d] %s done\n", p.Index+1, p.Cases, label(p))
	}
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
			p := m.cur
			if p.Cases > 0 {
				line := fmt.Sprintf("[%d/%d] %s  batch %d/%d  %.1fs", p.Index+1, p.Cases, label(p),
					p.Batch, p.Batches, time.Since(m.t0).Seconds())
				if m.mean > 0 && !p.Done {
					line += fmt.Sprintf(" of ~%.1fs", m.mean.Seconds())
				}
				fmt.Fprintf(m.w, "\r\033[K%s", line)
			}
			m.mu.Unlock()
		}
	}
}

func (m *progressMeter) close() {
	close(m.stop)
	if m.tty {
		m.mu.Lock()
		fmt.Fprint(m.w, "\r\033[K")
		m.mu.Unlock()
	}
}

func label(p arms.Progress) string {
	c := p.Case
	param := fmt.Sprintf("payload %d", c.Payload)
	if c.Size > 0 {
		param = fmt.Sprintf("size %d", c.Size)
	}
	return fmt.Sprintf("%s %s/%s %s", c.Runtime.Name, c.Arm.Lab, c.Arm.Name, param)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
