package render

import (
	"io"
	"maps"
	"slices"

	"github.com/google/pprof/profile"

	"github.com/tmpprobe/tmpprobe/results"
)

// Sample types of the profiles tmpprobe writes, in order, named as pprof
// names its own (Go's CPU profile: samples/count, cpu/nanoseconds): one
// word in snake_case, so -sample_index=syscall_time selects one.
var pprofSampleTypes = []*profile.ValueType{
	{Type: "calls", Unit: "count"},
	{Type: "syscall_time", Unit: "nanoseconds"},
	{Type: "offcpu_time", Unit: "nanoseconds"},
}

// WritePprof writes the run's traced records as a pprof profile, the
// format every profiler UI reads (go tool pprof, Pyroscope, Parca,
// Grafana), so a fleet of lab VMs can pool runs in a store it already has.
// Each case is a root frame ("modes/TemporaryFile (python, payload 400B)")
// above its syscall classes; under a class, its off-CPU time by label and
// its stages. Syscall time splits into the class's own frame and its
// off-CPU labels, so the cumulative time of a class is its time, and the
// totals are the syscalls.csv's: Σ calls of every row, Σ kernel_ns of the
// syscall rows and Σ offcpu_ns of the class rows (off the CPU between
// syscalls, class "user", is off-CPU time but no syscall's). Stages carry calls only
// (their time, which device and journal stages spend beside the syscall
// rather than inside it, is the numeric label stage_ns), so nothing is
// counted twice. Labels: dir, kernel, backend.
func WritePprof(w io.Writer, run *results.Run, sums []*results.Summary) error {
	p := &profile.Profile{SampleType: pprofSampleTypes, DefaultSampleType: "syscall_time",
		TimeNanos: run.Started.UnixNano(), DurationNanos: run.Finished.Sub(run.Started).Nanoseconds()}
	if p.DurationNanos < 0 {
		p.DurationNanos = 0
	}
	// One mapping, already symbolized: without it pprof looks for a binary
	// to symbolize the frames with and says "Main binary filename not
	// available." before every report.
	frames := &profile.Mapping{ID: 1, File: "tmpprobe", HasFunctions: true}
	p.Mapping = []*profile.Mapping{frames}
	funcs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l := funcs[name]; l != nil {
			return l
		}
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: frames, Line: []profile.Line{{Function: fn}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, l)
		funcs[name] = l
		return l
	}
	for _, s := range sums {
		if s.Traced == nil {
			continue
		}
		root := loc(caseFrame(run.Kind, s))
		labels := map[string][]string{"dir": {s.Dir}, "kernel": {run.Meta.KernelRelease}, "backend": {run.Meta.Backend}}
		add := func(values [3]int64, stack ...*profile.Location) *profile.Sample {
			smp := &profile.Sample{Location: append(stack, root), Value: values[:], Label: labels}
			p.Sample = append(p.Sample, smp)
			return smp
		}
		for _, r := range s.Traced.Records {
			class := loc(r.Class)
			if r.Stage != "" {
				smp := add([3]int64{int64(r.Calls), 0, 0}, loc(r.Stage), class)
				if r.TotalNs > 0 {
					smp.NumLabel = map[string][]int64{"stage_ns": {int64(r.TotalNs)}}
					smp.NumUnit = map[string][]string{"stage_ns": {"nanoseconds"}}
				}
				continue
			}
			// Off the CPU between syscalls ("user") is no syscall's time.
			inSyscall := int64(1)
			if r.Class == results.ClassUser {
				inSyscall = 0
			}
			var labelled uint64
			for _, l := range slices.Sorted(maps.Keys(r.OffNs)) {
				ns := int64(r.OffNs[l])
				labelled += r.OffNs[l]
				add([3]int64{0, inSyscall * ns, ns}, loc("off-CPU "+l), class)
			}
			own := inSyscall * int64(r.TotalNs-min(labelled, r.TotalNs))
			add([3]int64{int64(r.Calls), own, int64(r.OffCPUNs - min(labelled, r.OffCPUNs))}, class)
		}
	}
	if err := p.CheckValid(); err != nil {
		return err
	}
	return p.Write(w)
}

// caseFrame names a case as its root frame.
func caseFrame(kind results.RunKind, s *results.Summary) string {
	if kind.OfCommands() {
		return s.Lab + "/" + s.Arm
	}
	return s.Lab + "/" + s.Arm + " (" + s.Runtime + ", " + s.ParamTitle() + ")"
}
