package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// FactChange is one preflight fact that differs between two runs; the
// diff ties it to the terms whose mechanism it moves (explain.EnvChange).
type FactChange = explain.EnvChange

// metaSkip are Meta fields that are prose or derived (warnings restate the
// dir facts) or moment-to-moment (the load average, the current CPU
// frequencies, the pressure over the run: measurements, compared as
// such), not facts to compare.
var metaSkip = map[string]bool{results.FactNotes: true, results.FactLoadAvg: true, results.FactCPUFreqNow: true, results.FactPressure: true}

// dirsFacts is where Meta's work dirs are in its JSON: "dirs[0].journal".
const dirsFacts = "dirs"

// optionLists are the facts that are comma-separated sets of options:
// their change is what was added and removed, in any order.
var optionLists = map[string]bool{results.FactMountOptions: true, results.FactFSOptions: true}

// factChanges lists the facts that differ between two runs: every Meta
// field (found through its JSON form, so fields added to Meta are compared
// without a change here), the protocol, the work dirs and the flags. Any
// of them can explain every change in a diff at once.
func factChanges(prev, cur *results.Run) []FactChange {
	var out []FactChange
	for _, f := range differingFacts([]*results.Run{prev, cur}) {
		c := FactChange{Name: f.Name, Fact: f.Name[strings.LastIndexByte(f.Name, '.')+1:], Dir: strings.HasPrefix(f.Name, dirsFacts+"["),
			Old: f.Values[0], New: f.Values[1]}
		if optionLists[c.Fact] {
			c.Added, c.Removed = setChange(strings.Split(c.Old, ","), strings.Split(c.New, ","))
			if len(c.Added)+len(c.Removed) == 0 {
				continue // the same options in another order
			}
		}
		out = append(out, c)
	}
	return groupMoves(prev, cur, out)
}

// groupMoves folds, for each work dir that moved to another file system
// or device, every difference of that dir (its options, journal, queues,
// device numbers) into one change that stands for them all: one cause,
// said once ("the dir moved from tmpfs to ext4 on vda: no journal,
// mounted discard") instead of seventeen suspects for it (#29). A dir
// that stayed on the same kind of device (another loop device over the
// same disk) keeps its differences apart: its options are then what
// changed.
func groupMoves(prev, cur *results.Run, changes []FactChange) []FactChange {
	moved := map[string]*FactChange{}
	var order []string
	for i := 0; i < min(len(prev.Meta.Dirs), len(cur.Meta.Dirs)); i++ {
		od, nd := prev.Meta.Dirs[i], cur.Meta.Dirs[i]
		kind := ""
		switch {
		case od.FSType != nd.FSType || od.Upper != nd.Upper:
			kind = "file system"
		case deviceChain(od) != deviceChain(nd):
			kind = "device"
		default:
			continue
		}
		prefix := fmt.Sprintf("%s[%d]", dirsFacts, i)
		added, removed := setChange(fsMarks(od), fsMarks(nd))
		moved[prefix] = &FactChange{Name: prefix, Dir: true, Old: dirPlace(od), New: dirPlace(nd), Move: kind,
			MarksAdded: added, MarksRemoved: removed}
		order = append(order, prefix)
	}
	if len(moved) == 0 {
		return changes
	}
	var out []FactChange
	for _, c := range changes {
		prefix, _, _ := strings.Cut(c.Name, ".")
		if m := moved[prefix]; m != nil {
			m.StandsFor = append(m.StandsFor, c)
			continue
		}
		out = append(out, c)
	}
	for _, p := range order {
		out = append(out, *moved[p])
	}
	return out
}

// deviceChain names the devices under a dir, top first, loop devices
// by kind (loop1 and loop2 over the same disk are alike): a chain that
// differs is another device.
func deviceChain(d results.DirFacts) string {
	var parts []string
	for _, q := range d.Queues {
		name := q.Device
		if strings.HasPrefix(name, "loop") {
			name = "loop"
		}
		parts = append(parts, name)
	}
	return strings.Join(parts, " on ")
}

// dirPlace says where a dir's files live: "tmpfs", "ext4 on vda", "ext4
// on loop2 on vda", a loop device whose file is on no disk so marked.
func dirPlace(d results.DirFacts) string {
	place := results.OrNone(d.FSType)
	var devs []string
	for i, q := range d.Queues {
		name := q.Device
		if q.BackingFile != "" && i == len(d.Queues)-1 {
			name += " (its file on no disk)"
		}
		devs = append(devs, name)
	}
	if len(devs) > 0 {
		place += " on " + strings.Join(devs, " on ")
	}
	return place
}

// fsMarks are the settings of a file system that move the labs' numbers
// most: the journal, discard, barriers, the data mode.
func fsMarks(d results.DirFacts) []string {
	var marks []string
	switch d.Journal {
	case "no":
		marks = append(marks, "no journal")
	case "yes":
		marks = append(marks, "journaled")
	}
	opts := strings.Split(d.Options+","+d.FSOptions, ",")
	for _, o := range []string{"data=journal", "data=writeback", "nobarrier", "discard"} {
		if slices.Contains(opts, o) {
			marks = append(marks, "mounted "+o)
		}
	}
	return marks
}

// differingFacts lists, fact by fact, the values of the facts that are
// not the same in every run; the work dirs first, as a different
// filesystem explains everything.
func differingFacts(runs []*results.Run) []MatrixFact {
	all := make([]map[string]string, len(runs))
	names := map[string]bool{}
	for i, r := range runs {
		all[i] = facts(r)
		for k := range all[i] {
			names[k] = true
		}
	}
	keys := slices.Sorted(maps.Keys(names))
	sort.SliceStable(keys, func(i, j int) bool { return keys[i] == results.FactWorkDirs && keys[j] != results.FactWorkDirs })
	var out []MatrixFact
	for _, k := range keys {
		f := MatrixFact{Name: k}
		differs, skip := false, false
		for i, r := range runs {
			v, ok := all[i][k]
			// A run rebuilt from a CSV carries no flags: nothing to compare.
			skip = skip || unknown(r, v) || !ok && k == results.FactFlags
			differs = differs || v != all[0][k]
			f.Values = append(f.Values, results.OrNone(v))
		}
		if differs && !skip {
			out = append(out, f)
		}
	}
	return out
}

// facts are what a run records about how it was measured, by name.
func facts(run *results.Run) map[string]string {
	f := metaFacts(comparableMeta(run.Meta))
	dirs := runDirs(run)
	for i, d := range dirs {
		dirs[i] = results.FreshName(run.Meta, d)
	}
	f[results.FactWorkDirs] = strings.Join(dirs, ", ")
	if len(run.Args) > 0 { // a run rebuilt from a CSV has none
		f[results.FactFlags] = strings.Join(comparableArgs(run.Args), " ")
	}
	if p := run.Protocol; p.Name != "" {
		f[results.FactProtocol] = fmt.Sprintf("%s, %d rounds", p.Name, p.Rounds)
		if p.MinBatchNs > 0 {
			f[results.FactProtocol] += ", batches ≥ " + time.Duration(p.MinBatchNs).String()
		}
		if p.FixedOps > 0 {
			f[results.FactProtocol] += fmt.Sprintf(", %d ops a batch", p.FixedOps)
		}
	}
	return f
}

// comparableMeta is m with what a --fresh-fs run makes anew each time
// named by what it stands for: its mount point, by the dir it was made to
// match; its loop device (a number, and a device of its own), as one. Two
// such runs of the same dir listed their temporary mounts and loop
// devices as differences.
func comparableMeta(m results.Meta) results.Meta {
	m.Dirs = slices.Clone(m.Dirs)
	for i, d := range m.Dirs {
		if d.FreshOf == "" {
			continue
		}
		d.Dir, d.MountPoint = results.FreshName(m, d.Dir), results.FreshName(m, d.MountPoint)
		d.Source, d.Dev = "a loop device", ""
		d.Queues = slices.Clone(d.Queues)
		if len(d.Queues) > 0 {
			d.Queues[0].Device, d.Queues[0].BackingFile = "the loop device", "its image"
		}
		m.Dirs[i] = d
	}
	return m
}

// unknown tells a fact a run rebuilt from a CSV does not carry from a
// real difference: such a run knows only the backend and the kernel.
func unknown(run *results.Run, v string) bool {
	return run.Source == results.SourceCSV && (v == "" || v == "0")
}

// metaFacts flattens Meta to name → value: nested objects as "a.b",
// lists joined.
func metaFacts(m results.Meta) map[string]string {
	out := map[string]string{}
	data, err := json.Marshal(m)
	if err != nil {
		return out
	}
	var tree map[string]any
	if json.Unmarshal(data, &tree) != nil {
		return out
	}
	for k, v := range tree {
		if !metaSkip[k] {
			flatten(k, v, out)
		}
	}
	return out
}

func flatten(name string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			flatten(name+"."+k, sub, out)
		}
	case []any:
		if len(x) > 0 {
			if _, ok := x[0].(map[string]any); ok {
				// A list of objects (the dirs, a dir's queues): each by
				// its position, as the work dirs of two runs pair up.
				for i, e := range x {
					flatten(fmt.Sprintf("%s[%d]", name, i), e, out)
				}
				return
			}
		}
		var parts []string
		for _, e := range x {
			one := map[string]string{}
			flatten("", e, one)
			parts = append(parts, one[""])
		}
		out[name] = strings.Join(parts, ", ")
	case float64:
		out[name] = strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		out[name] = strconv.FormatBool(x)
	case string:
		out[name] = x
	case nil:
		out[name] = ""
	default:
		data, _ := json.Marshal(x)
		out[name] = string(data)
	}
}

// runDirs lists a run's work dirs in the order they were run.
func runDirs(run *results.Run) []string {
	return inOrder(run, func(a *results.ArmResult) string { return a.Dir })
}

// inOrder lists the values key takes over a run's arms, each once, in
// the order the arms ran.
func inOrder(run *results.Run, key func(*results.ArmResult) string) []string {
	var out []string
	seen := map[string]bool{}
	for i := range run.Arms {
		if k := key(&run.Arms[i]); !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// alignKeys returns the keys that pair arms across runs. Runs in the same
// work dirs pair by dir; otherwise by the dir's position, so a run on
// tmpfs pairs with the same run on ext4.
func alignKeys(prev, cur *results.Run) (oldKey, newKey func(*results.ArmResult) results.CaseID) {
	od, nd := runDirs(prev), runDirs(cur)
	if sameSet(od, nd) {
		byName := func(a *results.ArmResult) results.CaseID { return a.CaseID }
		return byName, byName
	}
	byPos := func(dirs []string) func(*results.ArmResult) results.CaseID {
		pos := map[string]string{}
		for i, d := range dirs {
			pos[d] = strconv.Itoa(i)
		}
		return func(a *results.ArmResult) results.CaseID {
			return a.At("dir#" + pos[a.Dir])
		}
	}
	return byPos(od), byPos(nd)
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	in := map[string]bool{}
	for _, x := range a {
		in[x] = true
	}
	for _, x := range b {
		if !in[x] {
			return false
		}
	}
	return true
}

// comparableArgs drops the flags that name where output goes or that are
// compared on their own (work dirs), so only flags that change what is
// measured remain.
func comparableArgs(args []string) []string {
	// --seed orders the rounds; it changes no figure's meaning.
	drop := map[string]bool{"--out": true, "--csv": true, "--dir": true, "--seed": true}
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case name == "-q" || name == "--quiet":
			continue
		case drop[name]:
			if !hasValue {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// setChange lists the members of b not in a (added) and of a not in b
// (removed), each once, in their order.
func setChange(a, b []string) (added, removed []string) {
	in := func(list []string) map[string]bool {
		m := map[string]bool{}
		for _, v := range list {
			m[v] = true
		}
		return m
	}
	ia, ib := in(a), in(b)
	for _, v := range b {
		if !ia[v] && v != "" && !slices.Contains(added, v) {
			added = append(added, v)
		}
	}
	for _, v := range a {
		if !ib[v] && v != "" && !slices.Contains(removed, v) {
			removed = append(removed, v)
		}
	}
	return added, removed
}
