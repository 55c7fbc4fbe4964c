package results

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Neighbour kinds: what another task took from a traced batch.
const (
	NeighbourCPU  = "cpu"  // the CPU of a preempted worker, for its run-queue wait
	NeighbourDisk = "disk" // requests on the work dir's devices
)

// Neighbour is another task that shared the CPU or the disk with traced
// batches. CPU: Count preemptions of a worker by it, Ns the worker's
// run-queue wait that followed. Disk: Count requests it started on the
// work dir's devices, Ns their device time, Bytes their size.
type Neighbour struct {
	Kind   string `json:"kind"`
	Comm   string `json:"comm"`
	PID    uint32 `json:"pid"`
	Cgroup uint64 `json:"cgroup,omitempty"` // cgroup v2 id
	// KernelThread: a kworker or jbd2 writing back for someone.
	KernelThread bool   `json:"kernel_thread,omitempty"`
	Count        uint64 `json:"count"`
	Ns           uint64 `json:"ns"`
	Bytes        uint64 `json:"bytes,omitempty"`
	// Observer: tmpprobe itself or one of its workers (of another case),
	// which took the CPU to run the measurement: the observer, never a
	// neighbour (#29).
	Observer bool `json:"observer,omitempty"`
}

// MarkObserver marks the neighbours that are tmpprobe's own processes
// (own says which pids are) as the observer, in place, and returns them.
func MarkObserver(nbs []Neighbour, own func(pid uint32) bool) []Neighbour {
	for i := range nbs {
		if !nbs[i].KernelThread && own(nbs[i].PID) {
			nbs[i].Observer = true
		}
	}
	return nbs
}

// Name names the neighbour in a sentence: "sha256sum (pid 4123)", or a
// kernel thread's comm alone ("kworker/u4:2"), its pid meaning nothing
// to a reader and changing from run to run.
func (n Neighbour) Name() string {
	if n.Observer {
		return fmt.Sprintf("tmpprobe's own %s (pid %d, the observer)", n.Comm, n.PID)
	}
	if n.KernelThread {
		return n.Comm
	}
	return fmt.Sprintf("%s (pid %d)", n.Comm, n.PID)
}

// key is what neighbours are summed by: kernel threads by comm (a
// kworker's pid changes), processes by comm and pid.
func (n Neighbour) key() string {
	if n.Observer {
		return fmt.Sprintf("%s/o/%s/%d", n.Kind, n.Comm, n.PID)
	}
	if n.KernelThread {
		return n.Kind + "/k/" + n.Comm
	}
	return fmt.Sprintf("%s/%s/%d", n.Kind, n.Comm, n.PID)
}

// SumNeighbours adds up neighbours seen in several batches, the largest
// time first.
func SumNeighbours(lists ...[]Neighbour) []Neighbour {
	by := map[string]*Neighbour{}
	var out []Neighbour
	var order []string
	for _, l := range lists {
		for _, n := range l {
			k := n.key()
			if by[k] == nil {
				c := n
				c.Count, c.Ns, c.Bytes = 0, 0, 0
				by[k] = &c
				order = append(order, k)
			}
			by[k].Count += n.Count
			by[k].Ns += n.Ns
			by[k].Bytes += n.Bytes
		}
	}
	for _, k := range order {
		out = append(out, *by[k])
	}
	slices.SortStableFunc(out, func(a, b Neighbour) int {
		if a.Kind != b.Kind {
			return cmp.Compare(a.Kind, b.Kind)
		}
		return cmp.Compare(b.Ns, a.Ns)
	})
	return out
}

// Neighbours sums the neighbours of an arm's measured traced batches.
func (a *ArmResult) Neighbours() []Neighbour {
	var lists [][]Neighbour
	for i := range a.Batches {
		if b := &a.Batches[i]; b.Traced && b.Measured() {
			lists = append(lists, b.Neighbours)
		}
	}
	return SumNeighbours(lists...)
}

// RunQueueNs is the run-queue wait of a batch's traced threads: their
// off-CPU time while preempted, which the CPU neighbours' time adds up to.
func RunQueueNs(b *Batch) uint64 {
	var ns uint64
	for _, r := range b.Records {
		for l, v := range r.OffNs {
			if strings.HasPrefix(l, OffPreempted) {
				ns += v
			}
		}
	}
	return ns
}

// WaitShareBase is what a CPU neighbour's share of a run-queue wait of rq
// is taken of: rq, or, when the CPU neighbours took more than rq, their
// sum. A neighbour is counted wherever the thread waited for a CPU, rq
// only where that was inside a syscall, and a share of rq alone read
// "108% of the run-queue wait".
func WaitShareBase(rq uint64, nbs []Neighbour) uint64 {
	var sum uint64
	for _, n := range nbs {
		if n.Kind == NeighbourCPU && !n.Observer {
			sum += n.Ns
		}
	}
	return max(rq, sum)
}

// DeviceNs is the device time of the requests a batch's traced syscalls
// waited for (the dev_* stages).
func DeviceNs(b *Batch) uint64 {
	var ns uint64
	for _, r := range b.Records {
		if strings.HasPrefix(r.Stage, DevStagePrefix) {
			ns += r.TotalNs
		}
	}
	return ns
}
