//go:build linux

package probe

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/link"
	"golang.org/x/sys/unix"
)

// sampler is the user-time sampler: a CPU-clock perf event on every CPU,
// counting user mode only and overflowing every periodNs of a task's CPU
// time there, each running perf_cpu_sample, which keeps the sample where
// the task is a followed thread. The events are opened at the first
// Attach and enabled only while the probe is attached: an untraced batch
// pays no tick.
type sampler struct {
	prog     *ebpf.Program
	periodNs uint64
	fds      []int
	links    []link.Link
	opened   bool
	err      error // why it could not open: it takes no samples
}

// open opens the events, disabled, and attaches the program to each with
// a BPF link: cilium/ebpf has no helper for an arbitrary perf event, and
// link.AttachRawLink with ebpf.AttachPerfEvent is BPF_LINK_CREATE on its
// fd (v5.15).
func (s *sampler) open() error {
	if s.opened {
		return s.err
	}
	s.opened = true
	ncpu, err := ebpf.PossibleCPU()
	if err != nil {
		s.err = err
		return err
	}
	for cpu := range ncpu {
		attr := unix.PerfEventAttr{
			Type:   unix.PERF_TYPE_SOFTWARE,
			Config: unix.PERF_COUNT_SW_CPU_CLOCK,
			Size:   uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
			Sample: s.periodNs,
			Bits:   unix.PerfBitDisabled | unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv,
		}
		fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if errors.Is(err, unix.ENODEV) || errors.Is(err, unix.ENXIO) {
			continue // a CPU that is not online
		}
		if err != nil {
			s.err = fmt.Errorf("perf_event_open on CPU %d: %w", cpu, err)
			break
		}
		s.fds = append(s.fds, fd)
		l, err := link.AttachRawLink(link.RawLinkOptions{Target: fd, Program: s.prog, Attach: ebpf.AttachPerfEvent})
		if err != nil {
			s.err = fmt.Errorf("attaching to CPU %d's perf event: %w", cpu, err)
			break
		}
		s.links = append(s.links, l)
	}
	if s.err != nil {
		s.close()
	}
	return s.err
}

// enable starts or stops the events' ticks; the program stays attached.
// Their period is never changed while they run: PERF_EVENT_IOC_PERIOD
// restarts the hrtimer, and jittering it lost 8-10% of the sampled time.
func (s *sampler) enable(on bool) error {
	req := uint(unix.PERF_EVENT_IOC_DISABLE)
	if on {
		req = unix.PERF_EVENT_IOC_ENABLE
	}
	for _, fd := range s.fds {
		if err := unix.IoctlSetInt(fd, req, 0); err != nil {
			return fmt.Errorf("perf event ioctl: %w", err)
		}
	}
	return nil
}

func (s *sampler) close() {
	for _, l := range s.links {
		l.Close()
	}
	for _, fd := range s.fds {
		unix.Close(fd)
	}
	s.links, s.fds = nil, nil
}
