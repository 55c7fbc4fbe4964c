//go:build linux

// Package arms is the catalogue of lab workloads and the machinery that
// runs them in worker processes, batch by batch, under the probe.
package arms

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/didyoumean"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// Lab names.
const (
	LabModes   = "modes"
	LabBuffers = "buffers"
)

// Labs in the order reports show them.
var Labs = []string{LabModes, LabBuffers}

// Arm is one workload of a lab, and everything the tool knows about it:
// the worker code of each runtime, and what the report compares it with.
// For the modes lab an op is one temp-file life cycle and a batch is Ops
// ops; for the buffers lab an op is one write+read round trip of Size
// bytes and a batch is one round.
type Arm struct {
	Lab  string
	Name string
	Desc string
	// Baseline: the lab's ratios are taken against this arm.
	Baseline bool
	Syncs    bool // waits for the device every op (fsync, fdatasync)
	// Versus names arms of the same lab; the WHY section explains this
	// arm's gap to each ("this − that").
	Versus []string
	// SpillVersus, when set, says this arm keeps its bytes in memory up to
	// --spool-max and rolls over to a file past it; past it, its writes
	// are set beside those of the named arm, which uses a file throughout.
	SpillVersus string
	// Headline names the arm of Versus whose gap is a question the lab
	// write-ups ask (why NamedTemporaryFile is slower than TemporaryFile,
	// why fsync is a cliff): its sentence comes first in its group.
	Headline string
	Python   string   // the function of driver.py that runs one op
	Go       []goStep // what the Go worker does for one op, in order
}

// Catalog lists every arm, in report order.
var Catalog = []Arm{
	{Lab: LabModes, Name: "TemporaryFile", Baseline: true,
		Desc:   "tempfile.TemporaryFile(): O_TMPFILE open, write, flush, close",
		Python: "temporary_file", Go: []goStep{stepOpenTmpfile, stepWrite, stepClose}},
	{Lab: LabModes, Name: "NamedTemporaryFile", Versus: []string{"TemporaryFile"}, Headline: "TemporaryFile",
		Desc:   "NamedTemporaryFile(delete=True): O_CREAT|O_EXCL open, write, flush, close+unlink",
		Python: "named_temporary_file", Go: []goStep{stepCreate, stepWrite, stepClose, stepUnlink}},
	{Lab: LabModes, Name: "NamedTemporaryFile-keep", Versus: []string{"TemporaryFile"},
		Desc:   "NamedTemporaryFile(delete=False), write, flush, close, os.unlink",
		Python: "named_temporary_file_keep", Go: []goStep{stepCreate, stepWrite, stepClose, stepUnlink}},
	{Lab: LabModes, Name: "mkstemp-unlink-open", Versus: []string{"TemporaryFile"},
		Desc:   "mkstemp, unlink while open, write, close",
		Python: "mkstemp_unlink_open", Go: []goStep{stepCreate, stepUnlink, stepWrite, stepClose}},
	{Lab: LabModes, Name: "mkstemp-close-unlink", Versus: []string{"TemporaryFile"},
		Desc:   "mkstemp, write, close, unlink",
		Python: "mkstemp_close_unlink", Go: []goStep{stepCreate, stepWrite, stepClose, stepUnlink}},
	// Against close-unlink as well: the same life cycle but for the fsync.
	{Lab: LabModes, Name: "mkstemp-fsync", Syncs: true, Versus: []string{"TemporaryFile", "mkstemp-close-unlink"},
		Headline: "mkstemp-close-unlink",
		Desc:     "mkstemp, write, os.fsync, close, unlink",
		Python:   "mkstemp_fsync", Go: []goStep{stepCreate, stepWrite, stepFsync, stepClose, stepUnlink}},
	{Lab: LabModes, Name: "tmpfile-linkat", Versus: []string{"TemporaryFile"},
		Desc:   "O_TMPFILE open (no O_EXCL), write, linkat to a fresh name, close, unlink",
		Python: "tmpfile_linkat", Go: []goStep{stepOpenLinkable, stepWrite, stepLinkat, stepClose, stepUnlink}},
	{Lab: LabModes, Name: "atomic-replace", Syncs: true, Versus: []string{"TemporaryFile"},
		Desc:   "NamedTemporaryFile(delete=False), write, fsync, close, os.replace onto one name",
		Python: "atomic_replace", Go: []goStep{stepCreate, stepWrite, stepFsync, stepClose, stepRename}},
	{Lab: LabModes, Name: "mkstemp-fdatasync", Syncs: true, Versus: []string{"TemporaryFile"},
		Desc:   "mkstemp, write, os.fdatasync, close, unlink",
		Python: "mkstemp_fdatasync", Go: []goStep{stepCreate, stepWrite, stepFdatasync, stepClose, stepUnlink}},
	{Lab: LabBuffers, Name: "BytesIO", Baseline: true,
		Desc:   "io.BytesIO: write size bytes in chunks, seek 0, read back",
		Python: "bytes_io", Go: []goStep{stepMemoryRound}},
	{Lab: LabBuffers, Name: "SpooledTemporaryFile", Versus: []string{"BytesIO"}, SpillVersus: "NamedTemporaryFile",
		Desc:   "SpooledTemporaryFile(max_size): in memory until max_size, then a file",
		Python: "spooled_temporary_file", Go: []goStep{stepSpooledRound}},
	{Lab: LabBuffers, Name: "NamedTemporaryFile", Versus: []string{"SpooledTemporaryFile"},
		Desc:   "NamedTemporaryFile: the same trip through a named file",
		Python: "named_round_trip", Go: []goStep{stepCreate, stepFileRound, stepClose, stepUnlink}},
}

// Baseline names the arm a lab's ratios are taken against ("" for an
// unknown lab).
func Baseline(lab string) string {
	for _, a := range Catalog {
		if a.Lab == lab && a.Baseline {
			return a.Name
		}
	}
	return ""
}

// Knowledge is what the explanations need to know of the catalogue: they
// cannot ask it (arms imports them), so it is handed over as data.
// The headline gaps come first, then every arm's first Versus before any
// arm's second, each in catalogue order: a lab's gaps to its baseline read
// as one run.
func Knowledge() explain.LabKnowledge {
	k := explain.LabKnowledge{Baselines: map[string]string{}}
	for _, a := range Catalog {
		if a.Baseline {
			k.Baselines[a.Lab] = a.Name
		}
		if a.SpillVersus != "" {
			k.Spills = append(k.Spills, explain.Spill{Lab: a.Lab, Arm: a.Name, Versus: a.SpillVersus})
		}
	}
	for _, a := range Catalog {
		if a.Headline != "" {
			k.Pairs = append(k.Pairs, explain.Pair{Lab: a.Lab, A: a.Name, B: a.Headline, Headline: true})
		}
	}
	for rank, more := 0, true; more; rank++ {
		more = false
		for _, a := range Catalog {
			if rank >= len(a.Versus) {
				continue
			}
			more = true
			if a.Versus[rank] != a.Headline {
				k.Pairs = append(k.Pairs, explain.Pair{Lab: a.Lab, A: a.Name, B: a.Versus[rank]})
			}
		}
	}
	return k
}

// Select resolves arm names (or "lab/arm", or a lab name for all its arms)
// against the catalogue, restricted to labs when labs is not empty.
//
// An arm's bare name may be in more than one lab (NamedTemporaryFile is
// in both): it is taken in the labs the other names pin, an arm only one
// lab has, a lab or a lab/arm. "run NamedTemporaryFile TemporaryFile"
// once also ran the buffers lab's NamedTemporaryFile at every size,
// without its baseline. When nothing pins it, Select asks for the lab.
func Select(names, labs []string) ([]Arm, error) {
	for _, l := range labs {
		if !isLab(l) {
			return nil, fmt.Errorf("unknown lab %q (labs: %s)%s", l, strings.Join(Labs, ", "), didyoumean.Suggest(l, Labs))
		}
	}
	if len(labs) == 0 {
		labs = pinnedLabs(names)
		for _, n := range names {
			if in := labsOf(n); len(in) > 1 && !slices.ContainsFunc(in, func(l string) bool { return slices.Contains(labs, l) }) {
				return nil, &AmbiguousError{Arm: n, Labs: in}
			}
		}
	}
	inLab := func(a Arm) bool { return len(labs) == 0 || slices.Contains(labs, a.Lab) }
	if len(names) == 0 {
		return slices.DeleteFunc(slices.Clone(Catalog), func(a Arm) bool { return !inLab(a) }), nil
	}
	seen := make([]bool, len(Catalog))
	for _, n := range names {
		matched := false
		for i, a := range Catalog {
			if (n == a.Name || n == a.Lab+"/"+a.Name || n == a.Lab) && inLab(a) {
				seen[i] = true
				matched = true
			}
		}
		if matched {
			continue
		}
		if in := labsOf(n); len(in) > 0 {
			return nil, fmt.Errorf("%s is an arm of the %s lab, not of --lab %s", n, strings.Join(in, " and "), strings.Join(labs, ","))
		}
		var known []string
		for _, a := range Catalog {
			known = append(known, a.Name)
		}
		return nil, fmt.Errorf("unknown arm %q (see 'tmpprobe list')%s", n, didyoumean.Suggest(n, append(known, Labs...)))
	}
	var out []Arm
	for i, a := range Catalog {
		if seen[i] {
			out = append(out, a)
		}
	}
	return out, nil
}

// AmbiguousError is a bare arm name in several labs that no other name
// pins to one.
type AmbiguousError struct {
	Arm  string
	Labs []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%s is an arm of the %s labs: name the lab (--lab %s, or %s/%s)",
		e.Arm, strings.Join(e.Labs, " and "), e.Labs[0], e.Labs[0], e.Arm)
}

// pinnedLabs are the labs names pin: those named (a lab, a lab/arm) and
// those of an arm only one lab has; nil when none is (every name is an
// arm of several labs: see Select).
func pinnedLabs(names []string) []string {
	var pinned []string
	for _, n := range names {
		lab, _, ok := strings.Cut(n, "/")
		switch in := labsOf(n); {
		case isLab(n):
			pinned = append(pinned, n)
		case ok && isLab(lab):
			pinned = append(pinned, lab)
		case len(in) == 1:
			pinned = append(pinned, in[0])
		}
	}
	slices.Sort(pinned)
	return slices.Compact(pinned)
}

// labsOf lists the labs an arm's bare name is in.
func labsOf(name string) []string {
	var out []string
	for _, a := range Catalog {
		if a.Name == name && !slices.Contains(out, a.Lab) {
			out = append(out, a.Lab)
		}
	}
	return out
}

func isLab(l string) bool {
	for _, x := range Labs {
		if x == l {
			return true
		}
	}
	return false
}
