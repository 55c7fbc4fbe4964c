package results

import "strings"

// Where in the code (#39): the user stacks behind user time and behind
// syscalls. A stack is kept as pprof keeps it (and Parca, and the
// OpenTelemetry profiler): ids into one table of frames per run, each a
// function and a line, symbolized once, where the run was measured; the
// text, pprof, the CSVs and diff then agree on what a frame is.

// Frame kinds.
const (
	FramePython = "python" // a CPython frame: qualified name, file, line
	FrameNative = "native" // a native frame: symbol, and file:line where debug info has it
)

// Frame is one frame of a user stack.
type Frame struct {
	// Function is the function's name as its language spells it:
	// "_TemporaryFileWrapper.__getattr__" (CPython 3.11+'s qualified
	// name; 3.8–3.10 have only the bare name), "main.persist", "fsync".
	Function string `json:"function"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Kind     string `json:"kind"`
	// Module is what the frame's code is part of where that says more
	// than its file: a native frame's object ("libc.so.6"). A frame
	// named "?" could not be named: its Module says where it was (the
	// object) or why it is unknown ("code object gone before it was
	// read", "no Python frame").
	Module string `json:"module,omitempty"`
}

// Stack is a user stack as indexes into Run.Frames, leaf first.
type Stack []int

// StackRecord is what one batch spent in one user stack: the time a
// sampler found its threads on the CPU in user mode there (Class
// ClassUser: user time), or the calls of a syscall class issued from it,
// with their time and their time off the CPU.
type StackRecord struct {
	Class string `json:"class"`
	Stack int    `json:"stack"` // index into Run.Stacks
	// Samples are a user-time record's CPU samples, each standing for the
	// sampler's period; Calls a syscall record's calls whose stack was
	// taken.
	Samples uint64 `json:"samples,omitempty"`
	Calls   uint64 `json:"calls,omitempty"`
	// Ns is the user CPU time the samples stand for, or the calls' time.
	Ns       uint64 `json:"ns"`
	OffCPUNs uint64 `json:"offcpu_ns,omitempty"`
}

// Stacks is how a run took stacks, for its readers to weigh them by:
// the sampler's period and which calls had theirs taken.
type Stacks struct {
	// SamplePeriodNs is the user-time sampler's period (0: it did not
	// run).
	SamplePeriodNs uint64 `json:"sample_period_ns,omitempty"`
	// Every is 1 when every call of a class had its stack taken, N for
	// one call in N (drawn at random), 0 when none had; EveryClass
	// overrides it for the classes it names (a trace takes every fsync's
	// and one in N of the other calls'). TailNs, when set, says calls of
	// that long or longer had theirs taken besides.
	Every      uint32            `json:"every,omitempty"`
	EveryClass map[string]uint32 `json:"every_class,omitempty"`
	TailNs     uint64            `json:"tail_ns,omitempty"`
	// Frames and Table are the run's frames and its stacks of them,
	// which every batch's StackRecords index.
	Frames []Frame `json:"frames,omitempty"`
	Table  []Stack `json:"table,omitempty"`
	// Unresolved counts what could not be named, by why ("code object
	// gone", "no symbols"): a frame named "?" stands for each.
	Unresolved map[string]uint64 `json:"unresolved,omitempty"`
	// Harness names the code that runs the workload rather than being
	// it (the labs' driver.py, the Go worker): a frame whose file is one
	// of these, or whose function starts with one, is the harness. Each
	// arm runs its op from a function of its own there, so by function
	// name the harness would differ from arm to arm where it does the
	// same work; its time is said as one part.
	Harness []string `json:"harness,omitempty"`
}

// IsHarness says whether f is the harness's (see Stacks.Harness).
func (s *Stacks) IsHarness(f Frame) bool {
	for _, h := range s.Harness {
		if f.File == h || strings.HasPrefix(f.Function, h) {
			return true
		}
	}
	return false
}

// HarnessFunction is the one function the harness's frames are said as.
const HarnessFunction = "(the harness)"

// EveryOf is how a class's calls had their stacks taken: 1 every call,
// N one call in N, 0 none.
func (s *Stacks) EveryOf(class string) uint32 {
	if n, ok := s.EveryClass[class]; ok {
		return n
	}
	return s.Every
}

// stackRecordKey is what one record of a batch is of: a class in a stack.
type stackRecordKey struct {
	class string
	stack int
}

func (r StackRecord) key() stackRecordKey { return stackRecordKey{r.Class, r.Stack} }

// MergeStackRecords adds recs into into, record by record of one class
// and stack: the sum of batches, as MergeRecords is of class records.
func MergeStackRecords(into, recs []StackRecord) []StackRecord {
	at := map[stackRecordKey]int{}
	for i, r := range into {
		at[r.key()] = i
	}
	for _, r := range recs {
		k := r.key()
		i, ok := at[k]
		if !ok {
			at[k] = len(into)
			into = append(into, r)
			continue
		}
		into[i].Samples += r.Samples
		into[i].Calls += r.Calls
		into[i].Ns += r.Ns
		into[i].OffCPUNs += r.OffCPUNs
	}
	return into
}

// SubtractStackRecords is cur less prev, record by record of one class
// and stack: what running totals grew by between two snapshots, as
// SubtractRecords is of class records. A record that did not grow is
// left out.
func SubtractStackRecords(cur, prev []StackRecord) []StackRecord {
	before := map[stackRecordKey]StackRecord{}
	for _, r := range prev {
		before[r.key()] = r
	}
	var out []StackRecord
	for _, r := range cur {
		b := before[r.key()]
		d := StackRecord{Class: r.Class, Stack: r.Stack, Samples: sub(r.Samples, b.Samples), Calls: sub(r.Calls, b.Calls),
			Ns: sub(r.Ns, b.Ns), OffCPUNs: sub(r.OffCPUNs, b.OffCPUNs)}
		if d.Samples > 0 || d.Calls > 0 || d.Ns > 0 || d.OffCPUNs > 0 {
			out = append(out, d)
		}
	}
	return out
}

// sub is a - b, or 0 where a running total read less than before.
func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}
