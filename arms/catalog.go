// Package arms is the catalogue of lab workloads and the machinery that
// runs them in worker processes, batch by batch, under the probe.
package arms

import (
	"fmt"
	"strings"
)

// Lab names.
const (
	LabModes   = "modes"
	LabBuffers = "buffers"
)

// Labs in the order reports show them.
var Labs = []string{LabModes, LabBuffers}

// Arm is one workload of a lab. For the modes lab an op is one temp-file
// life cycle and a batch is Ops ops; for the buffers lab an op is one
// write+read round trip of Size bytes and a batch is one round.
type Arm struct {
	Lab   string
	Name  string
	Desc  string
	Syncs bool // waits for the device every op (fsync, fdatasync)
}

// Catalog lists every arm, in report order.
var Catalog = []Arm{
	{LabModes, "TemporaryFile", "tempfile.TemporaryFile(): O_TMPFILE open, write, flush, close", false},
	{LabModes, "NamedTemporaryFile", "NamedTemporaryFile(delete=True): O_CREAT|O_EXCL open, write, flush, close+unlink", false},
	{LabModes, "NamedTemporaryFile-keep", "NamedTemporaryFile(delete=False), write, flush, close, os.unlink", false},
	{LabModes, "mkstemp-unlink-open", "mkstemp, unlink while open, write, close", false},
	{LabModes, "mkstemp-close-unlink", "mkstemp, write, close, unlink", false},
	{LabModes, "mkstemp-fsync", "mkstemp, write, os.fsync, close, unlink", true},
	{LabModes, "tmpfile-linkat", "O_TMPFILE open (no O_EXCL), write, linkat to a fresh name, close, unlink", false},
	{LabModes, "atomic-replace", "NamedTemporaryFile(delete=False), write, fsync, close, os.replace onto one name", true},
	{LabModes, "mkstemp-fdatasync", "mkstemp, write, os.fdatasync, close, unlink", true},
	{LabBuffers, "BytesIO", "io.BytesIO: write size bytes in chunks, seek 0, read back", false},
	{LabBuffers, "SpooledTemporaryFile", "SpooledTemporaryFile(max_size): in memory until max_size, then a file", false},
	{LabBuffers, "NamedTemporaryFile", "NamedTemporaryFile: the same trip through a named file", false},
}

// Baseline is the arm each lab's ratios are taken against.
var Baseline = map[string]string{LabModes: "TemporaryFile", LabBuffers: "BytesIO"}

// Select resolves arm names (or "lab/arm", or a lab name for all its arms)
// against the catalogue, restricted to labs when labs is not empty.
func Select(names, labs []string) ([]Arm, error) {
	inLab := func(a Arm) bool {
		if len(labs) == 0 {
			return true
		}
		for _, l := range labs {
			if l == a.Lab {
				return true
			}
		}
		return false
	}
	for _, l := range labs {
		if !isLab(l) {
			return nil, fmt.Errorf("unknown lab %q (labs: %s)", l, strings.Join(Labs, ", "))
		}
	}
	if len(names) == 0 {
		var out []Arm
		for _, a := range Catalog {
			if inLab(a) {
				out = append(out, a)
			}
		}
		return out, nil
	}
	seen := map[Arm]bool{}
	for _, n := range names {
		matched := false
		for _, a := range Catalog {
			if (n == a.Name || n == a.Lab+"/"+a.Name || n == a.Lab) && inLab(a) {
				seen[a] = true
				matched = true
			}
		}
		if !matched {
			return nil, fmt.Errorf("unknown arm %q (see 'tmpprobe list')", n)
		}
	}
	var out []Arm
	for _, a := range Catalog {
		if seen[a] {
			out = append(out, a)
		}
	}
	return out, nil
}

func isLab(l string) bool {
	for _, x := range Labs {
		if x == l {
			return true
		}
	}
	return false
}
