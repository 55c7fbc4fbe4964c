//go:build linux

package probe

import (
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/tmpprobe/tmpprobe/internal/marker"
)

// calibrationPhase is never handed to a worker (phases count up from 1).
const calibrationPhase = 1<<31 - 1

// Calibration is the time of one getppid call with the probe detached,
// attached while the thread is outside any region (every other process on
// the machine pays this), and inside a region (what an arm's syscall pays).
type Calibration struct {
	Detached, Inactive, Active time.Duration
}

// Calibrate measures what tracing costs one syscall, over n calls each. It
// leaves the probe attached and its maps as it found them (callers run it
// between batches, not during one).
func (p *Probe) Calibrate(n int) (Calibration, error) {
	var c Calibration
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	loop := func() time.Duration {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			unix.Getppid()
		}
		return time.Since(t0) / time.Duration(n)
	}
	p.Detach()
	c.Detached = loop()
	if err := p.Attach(); err != nil {
		return c, err
	}
	c.Inactive = loop()
	marker.Begin(p.Cookie, calibrationPhase)
	c.Active = loop()
	marker.End(p.Cookie, calibrationPhase)
	p.forgetPhase(calibrationPhase)
	return c, nil
}

func (p *Probe) forgetPhase(phase uint32) {
	for _, name := range statsMaps {
		m := p.coll.Maps[name]
		var key tmpprobeClassKey
		var keys []tmpprobeClassKey
		var v []tmpprobeClassStats
		it := m.Iterate()
		for it.Next(&key, &v) {
			if key.Phase == phase {
				keys = append(keys, key)
			}
		}
		for i := range keys {
			m.Delete(&keys[i])
		}
	}
}
