package results

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"
)

// FactChange is one preflight fact that differs between two runs.
type FactChange struct {
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
}

// metaSkip are Meta fields that are prose or derived (warnings restate the
// dir facts) or moment-to-moment (the load average), not facts to compare.
var metaSkip = map[string]bool{"notes": true, "warnings": true, "loadavg_1m": true}

// Preflight lists the facts that differ between two runs: every Meta field
// (found through its JSON form, so fields added to Meta are compared
// without a change here), the work dirs and the flags. Any of them can
// explain every change in a diff at once.
func Preflight(prev, cur *Run) []FactChange {
	of, nf := metaFacts(prev.Meta), metaFacts(cur.Meta)
	of["work dirs"], nf["work dirs"] = strings.Join(runDirs(prev), ", "), strings.Join(runDirs(cur), ", ")
	of["flags"], nf["flags"] = strings.Join(comparableArgs(prev.Args), " "), strings.Join(comparableArgs(cur.Args), " ")
	if len(prev.Args) == 0 || len(cur.Args) == 0 {
		delete(of, "flags") // a run rebuilt from a CSV has none
	}
	for k := range nf {
		if _, ok := of[k]; !ok {
			of[k] = ""
		}
	}
	var out []FactChange
	keys := sortedKeys(of)
	// The work dirs first: a different filesystem explains everything.
	sort.SliceStable(keys, func(i, j int) bool { return keys[i] == "work dirs" && keys[j] != "work dirs" })
	for _, k := range keys {
		if unknown(prev, of[k]) || unknown(cur, nf[k]) {
			continue
		}
		if of[k] != nf[k] {
			out = append(out, FactChange{k, orNone(of[k]), orNone(nf[k])})
		}
	}
	return out
}

// unknown tells a fact a run rebuilt from a CSV does not carry from a
// real difference: such a run knows only the backend and the kernel.
func unknown(run *Run, v string) bool {
	if v != "" && v != "0" {
		return false
	}
	for _, n := range run.Meta.Notes {
		if n == csvNote {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// metaFacts flattens Meta to name → value: nested objects as "a.b",
// lists joined.
func metaFacts(m Meta) map[string]string {
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
func runDirs(run *Run) []string {
	var dirs []string
	seen := map[string]bool{}
	for _, a := range run.Arms {
		if !seen[a.Dir] {
			seen[a.Dir] = true
			dirs = append(dirs, a.Dir)
		}
	}
	return dirs
}

// alignKeys returns the keys that pair arms across runs. Runs in the same
// work dirs pair by dir; otherwise by the dir's position, so a run on
// tmpfs pairs with the same run on ext4.
func alignKeys(prev, cur *Run) (oldKey, newKey func(*ArmResult) string) {
	od, nd := runDirs(prev), runDirs(cur)
	if sameSet(od, nd) {
		byName := func(a *ArmResult) string { return a.Key() }
		return byName, byName
	}
	byPos := func(dirs []string) func(*ArmResult) string {
		pos := map[string]string{}
		for i, d := range dirs {
			pos[d] = strconv.Itoa(i)
		}
		return func(a *ArmResult) string {
			return a.Lab + "/" + a.Arm + "/" + a.Runtime + "/dir#" + pos[a.Dir] + "/" + a.Param()
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
	drop := map[string]bool{"--out": true, "--csv": true, "--dir": true}
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
