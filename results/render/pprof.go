package render

import (
	"io"
	"maps"
	"slices"
	"strings"

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
	{Type: "user_cpu_time", Unit: "nanoseconds"},
}

// The sample types' places in a sample's values.
const (
	pprofCalls = iota
	pprofSyscall
	pprofOffCPU
	pprofUser
	pprofTypes
)

// notSampledFrame stands for the measured user CPU time no sample of the
// user-time sampler stood for.
const notSampledFrame = "user space (not sampled)"

// WritePprof writes the run's traced records as a pprof profile, the
// format every profiler UI reads (go tool pprof, Pyroscope, Parca,
// Grafana), so a fleet of lab VMs can pool runs in a store it already has.
// Each case is a root frame ("modes/TemporaryFile (python, payload 400B)")
// above its syscall classes; under a class, its off-CPU time by label and
// its stages. Where the run took user stacks (#39), the program's own
// frames (function, file, line) stand between the case and each class
// they called it from, the class's figures split by each stack's share
// of the sampled calls, time and off-CPU time (the rounding's remainder
// to the last, so no total moves), and user CPU time is a sample type of
// its own (user_cpu_time) on the stacks the sampler found, with the
// measured time it found none for as "user space (not sampled)". Syscall
// time splits into the class's own frame and its off-CPU labels, so the
// cumulative time of a class is its time, and the totals are the
// syscalls.csv's class and stage rows': Σ calls, Σ kernel_ns of the
// syscall rows and Σ offcpu_ns of the class rows (off the CPU between
// syscalls, class "user", is off-CPU time but no syscall's). Stages
// carry calls only (their time, which device and journal stages spend
// beside the syscall rather than inside it, is the numeric label
// stage_ns), so nothing is counted twice. Labels: dir, kernel, backend.
func WritePprof(w io.Writer, run *results.Run, sums []*results.Summary) error {
	p := &profile.Profile{SampleType: pprofSampleTypes, DefaultSampleType: "syscall_time",
		TimeNanos: run.Started.UnixNano(), DurationNanos: run.Finished.Sub(run.Started).Nanoseconds()}
	if p.DurationNanos < 0 {
		p.DurationNanos = 0
	}
	// One mapping, already symbolized: without it pprof looks for a binary
	// to symbolize the frames with and says "Main binary filename not
	// available." before every report.
	frames := &profile.Mapping{ID: 1, File: "tmpprobe", HasFunctions: true, HasFilenames: true, HasLineNumbers: true}
	p.Mapping = []*profile.Mapping{frames}
	b := &pprofBuilder{p: p, mapping: frames, locs: map[results.Frame]*profile.Location{}, funcs: map[[2]string]*profile.Function{}}
	for _, s := range sums {
		if s.Traced == nil {
			continue
		}
		root := b.loc(results.Frame{Function: caseFrame(run.Kind, s)})
		labels := map[string][]string{"dir": {s.Dir}, "kernel": {run.Meta.KernelRelease}, "backend": {run.Meta.Backend}}
		add := func(values [pprofTypes]int64, stack ...*profile.Location) *profile.Sample {
			smp := &profile.Sample{Location: append(stack, root), Value: values[:], Label: labels}
			p.Sample = append(p.Sample, smp)
			return smp
		}
		sites := b.sites(s)
		for _, r := range s.Traced.Records {
			class := b.loc(results.Frame{Function: r.Class})
			split := sites[r.Class]
			if r.Stage != "" {
				stage := b.loc(results.Frame{Function: r.Stage})
				for i, calls := range split.of(r.Calls, func(x siteShare) float64 { return x.calls }) {
					smp := add(values(pprofCalls, calls), append([]*profile.Location{stage, class}, split.frames(i)...)...)
					if r.TotalNs > 0 {
						// The stage's time stays whole on each part: a
						// label, summed by no total.
						smp.NumLabel = map[string][]int64{"stage_ns": {int64(r.TotalNs)}}
						smp.NumUnit = map[string][]string{"stage_ns": {"nanoseconds"}}
					}
				}
				continue
			}
			// Off the CPU between syscalls ("user") is no syscall's time.
			inSyscall := int64(1)
			if r.Class == results.ClassUser {
				inSyscall, split = 0, nil
			}
			var labelled uint64
			for _, l := range slices.Sorted(maps.Keys(r.OffNs)) {
				label := b.loc(results.Frame{Function: "off-CPU " + l})
				labelled += r.OffNs[l]
				for i, ns := range split.of(r.OffNs[l], func(x siteShare) float64 { return x.off }) {
					v := values(pprofOffCPU, ns)
					v[pprofSyscall] = inSyscall * ns
					add(v, append([]*profile.Location{label, class}, split.frames(i)...)...)
				}
			}
			own := r.TotalNs - min(labelled, r.TotalNs)
			ownOff := r.OffCPUNs - min(labelled, r.OffCPUNs)
			calls := split.of(r.Calls, func(x siteShare) float64 { return x.calls })
			times := split.of(own, func(x siteShare) float64 { return x.ns })
			offs := split.of(ownOff, func(x siteShare) float64 { return x.off })
			for i := range calls {
				v := values(pprofCalls, calls[i])
				v[pprofSyscall], v[pprofOffCPU] = inSyscall*times[i], offs[i]
				add(v, append([]*profile.Location{class}, split.frames(i)...)...)
			}
		}
		b.userTime(s, add)
	}
	if err := p.CheckValid(); err != nil {
		return err
	}
	return p.Write(w)
}

// values is a sample's values with v at i, the rest 0.
func values(i int, v int64) [pprofTypes]int64 {
	var out [pprofTypes]int64
	out[i] = v
	return out
}

// pprofBuilder makes a profile's locations and functions once each.
type pprofBuilder struct {
	p       *profile.Profile
	mapping *profile.Mapping
	locs    map[results.Frame]*profile.Location
	funcs   map[[2]string]*profile.Function
}

// loc is the location of a frame: a program's, with its function, file
// and line, or tmpprobe's own (a case, a class, a stage, an off-CPU
// label), a function alone.
func (b *pprofBuilder) loc(f results.Frame) *profile.Location {
	if l := b.locs[f]; l != nil {
		return l
	}
	file := f.File
	if file == "" {
		file = f.Module
	}
	fn := b.funcs[[2]string{f.Function, file}]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(b.p.Function) + 1), Name: pprofName.Replace(f.Function), SystemName: f.Function, Filename: file}
		b.p.Function = append(b.p.Function, fn)
		b.funcs[[2]string{f.Function, file}] = fn
	}
	l := &profile.Location{ID: uint64(len(b.p.Location) + 1), Mapping: b.mapping, Line: []profile.Line{{Function: fn, Line: int64(f.Line)}}}
	b.p.Location = append(b.p.Location, l)
	b.locs[f] = l
	return l
}

// stack is the locations of stack i of the run s is an arm of, leaf
// first.
func (b *pprofBuilder) stack(s *results.Summary, i int) []*profile.Location {
	var out []*profile.Location
	for _, f := range s.Stacks.FramesOf(i) {
		out = append(out, b.loc(f))
	}
	return out
}

// pprofName keeps a Python name's angle brackets from pprof, which takes
// what is between them for C++ template arguments and drops it: a
// module's code, "<module>", would be named "" (pprof then shows its
// mapping's name). SystemName keeps the name as Python spells it.
var pprofName = strings.NewReplacer("<", "‹", ">", "›")

// siteShare is a call site's share of its class's sampled calls, time
// and off-CPU time, with its frames as locations, leaf first.
type siteShare struct {
	calls, ns, off float64
	stack          []*profile.Location
}

// siteSplit is a class's call sites; nil for a class no stack was taken
// of, which keeps its figures whole, under the case.
type siteSplit []siteShare

// sites are each class's call sites in s, from its pooled traced
// batches' stacks.
func (b *pprofBuilder) sites(s *results.Summary) map[string]siteSplit {
	out := map[string]siteSplit{}
	for _, r := range s.Traced.Stacks {
		if r.Class == results.ClassUser {
			continue
		}
		out[r.Class] = append(out[r.Class], siteShare{float64(r.Calls), float64(r.Ns), float64(r.OffCPUNs), b.stack(s, r.Stack)})
	}
	return out
}

// of splits v over the sites by the share each has of what share picks,
// whole ns or calls, the rounding's remainder to the last so the parts
// add up to v; v whole where the class has no sites, or where the sites
// have none of it (their calls share it then).
func (sp siteSplit) of(v uint64, share func(siteShare) float64) []int64 {
	if len(sp) == 0 {
		return []int64{int64(v)}
	}
	var all float64
	for _, x := range sp {
		all += share(x)
	}
	if all <= 0 {
		share = func(x siteShare) float64 { return x.calls }
		for _, x := range sp {
			all += share(x)
		}
	}
	out := make([]int64, len(sp))
	var given int64
	for i, x := range sp {
		if all > 0 && i < len(sp)-1 {
			out[i] = int64(float64(v) * share(x) / all)
		}
		given += out[i]
	}
	out[len(sp)-1] = int64(v) - given
	return out
}

// frames are the i-th part's frames: its site's stack, or none.
func (sp siteSplit) frames(i int) []*profile.Location {
	if len(sp) == 0 {
		return nil
	}
	return sp[i].stack
}

// userTime adds user space's CPU time: each stack the sampler found, the
// time its samples stand for, and the measured time none stood for.
func (b *pprofBuilder) userTime(s *results.Summary, add func([pprofTypes]int64, ...*profile.Location) *profile.Sample) {
	var sampled uint64
	for _, r := range s.Traced.Stacks {
		if r.Class != results.ClassUser {
			continue
		}
		sampled += r.Ns
		add(values(pprofUser, int64(r.Ns)), b.stack(s, r.Stack)...)
	}
	if !s.UserMeasured {
		return
	}
	for _, r := range s.Traced.Records {
		if r.Class == results.ClassUser && r.Stage == "" && r.TotalNs > sampled {
			add(values(pprofUser, int64(r.TotalNs-sampled)), b.loc(results.Frame{Function: notSampledFrame}))
		}
	}
}

// caseFrame names a case as its root frame.
func caseFrame(kind results.RunKind, s *results.Summary) string {
	if kind.OfCommands() {
		return s.Lab + "/" + s.Arm
	}
	return s.Lab + "/" + s.Arm + " (" + s.Runtime + ", " + s.ParamTitle() + ")"
}
