//go:build linux

package follow

import (
	"time"

	"github.com/tmpprobe/tmpprobe/probe"
	"github.com/tmpprobe/tmpprobe/results"
)

// Interval is what Run hands the periodic callback: the records of the
// last interval, by phase.
type Interval struct {
	Elapsed time.Duration // since the trace began, at the interval's end
	Length  time.Duration // the last one, cut by the end of the trace, may be short
	Records map[uint32][]results.ClassRecord
}

// samplePeriod is how often a trace snapshots its regions, the first
// maxSamples times; beyond that, neighbouring samples merge (the period
// doubles), so a long trace keeps a bounded number of them.
const (
	samplePeriod = 250 * time.Millisecond
	maxSamples   = 64
)

// addSample keeps what the regions did since the last sample.
func (r *Result) addSample(now, last map[uint32][]results.ClassRecord) {
	s := map[uint32][]results.ClassRecord{}
	for ph, recs := range now {
		if ph&probe.RegionFlag != 0 {
			if d := results.SubtractRecords(recs, last[ph]); len(d) > 0 {
				s[ph] = d
			}
		}
	}
	r.Samples = append(r.Samples, s)
	if len(r.Samples) > maxSamples {
		var merged []map[uint32][]results.ClassRecord
		for i := 0; i < len(r.Samples); i += 2 {
			m := r.Samples[i]
			if i+1 < len(r.Samples) {
				for ph, recs := range r.Samples[i+1] {
					m[ph] = results.MergeRecords(m[ph], recs)
				}
			}
			merged = append(merged, m)
		}
		r.Samples = merged
	}
}

// snapshots are the probe's running totals as the last interval and the
// last sample read them. The totals are read, never cleared, while the
// target runs: an interval or a sample is the difference of two
// snapshots, so nothing is lost.
type snapshots struct {
	lastInterval, lastSample map[uint32][]results.ClassRecord
	lastTick                 time.Time // the last interval's end
}

func newSnapshots(start time.Time) snapshots {
	return snapshots{lastInterval: map[uint32][]results.ClassRecord{}, lastSample: map[uint32][]results.ClassRecord{}, lastTick: start}
}

// sample keeps what the regions did since the last sample.
func (t *tracing) sample() error {
	now, err := t.p.Snapshot()
	if err != nil {
		return err
	}
	t.res.addSample(now, t.lastSample)
	t.lastSample = now
	return nil
}

// interval hands out the interval ending now.
func (t *tracing) interval() error {
	now, err := t.p.Snapshot()
	if err != nil {
		return err
	}
	t.handOut(now)
	return nil
}

// handOut gives the periodic callback what the totals grew by since the
// last interval, timed by one reading of the clock.
func (t *tracing) handOut(totals map[uint32][]results.ClassRecord) {
	at := time.Now()
	iv := Interval{Elapsed: at.Sub(t.start), Length: at.Sub(t.lastTick), Records: map[uint32][]results.ClassRecord{}}
	for ph, recs := range totals {
		iv.Records[ph] = results.SubtractRecords(recs, t.lastInterval[ph])
	}
	t.lastInterval, t.lastTick = totals, at
	if t.every != nil {
		t.every(iv)
	}
}
