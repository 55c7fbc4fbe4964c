package vmtest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Counts are calls by syscall class, as the probe names classes.
type Counts map[string]uint64

// seekWhence are strace's names for lseek's whence values.
var seekWhence = map[string]uint64{"SEEK_SET": 0, "SEEK_CUR": 1, "SEEK_END": 2, "SEEK_DATA": 3, "SEEK_HOLE": 4}

// StraceRegions reads `strace -f` output and counts, for each region a
// thread marked (internal/marker: lseek(-1, cookie, phase<<1 | begin)),
// the calls that thread made between its begin and end markers, by class
// as the probe classifies them: openat with O_TMPFILE is openat[tmpfile],
// with O_CREAT|O_EXCL openat[create]. A call strace shows in two parts
// (<unfinished ...>, <... resumed>) counts once.
func StraceRegions(log string) (map[uint32]Counts, error) {
	regions := map[uint32]Counts{}
	inside := map[string]uint32{} // tid -> phase of its open region
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		tid, rest, ok := strings.Cut(sc.Text(), " ")
		rest = strings.TrimSpace(rest)
		if !ok || strings.HasPrefix(rest, "<...") || strings.HasPrefix(rest, "---") || strings.HasPrefix(rest, "+++") {
			continue
		}
		name, args, ok := strings.Cut(rest, "(")
		if !ok || name == "" || strings.ContainsAny(name, " <") {
			continue
		}
		if name == "lseek" && strings.HasPrefix(args, "-1,") {
			phase, begin, err := parseMarker(args)
			if err != nil {
				return nil, fmt.Errorf("strace line %d: %v: %s", n, err, sc.Text())
			}
			if begin {
				inside[tid] = phase
				if regions[phase] == nil {
					regions[phase] = Counts{}
				}
			} else {
				delete(inside, tid)
			}
			continue
		}
		phase, ok := inside[tid]
		if !ok {
			continue
		}
		regions[phase][straceClass(name, args)]++
	}
	return regions, sc.Err()
}

// parseMarker reads lseek's arguments "-1, COOKIE, WHENCE)…".
func parseMarker(args string) (phase uint32, begin bool, err error) {
	f := strings.SplitN(args, ",", 3)
	if len(f) < 3 {
		return 0, false, fmt.Errorf("lseek with %d arguments", len(f))
	}
	w := strings.TrimSpace(f[2])
	if i := strings.IndexAny(w, " )"); i >= 0 {
		w = w[:i]
	}
	v, ok := seekWhence[w]
	if !ok {
		if v, err = strconv.ParseUint(w, 0, 32); err != nil {
			return 0, false, fmt.Errorf("whence %q", w)
		}
	}
	return uint32(v >> 1), v&1 == 1, nil
}

func straceClass(name, args string) string {
	if name != "openat" {
		return name
	}
	f := strings.SplitN(args, ",", 4)
	if len(f) < 3 {
		return name
	}
	flags := f[2]
	switch {
	case strings.Contains(flags, "O_TMPFILE"):
		return "openat[tmpfile]"
	case strings.Contains(flags, "O_CREAT") && strings.Contains(flags, "O_EXCL"):
		return "openat[create]"
	}
	return name
}

// RunBatch is a traced batch of a saved run: its case, ops and the calls
// of each syscall class the probe counted.
type RunBatch struct {
	Case   string
	Ops    int
	Counts Counts
}

// RunBatches reads a run.json's traced batches by phase.
func RunBatches(runJSON []byte) (map[uint32]RunBatch, error) {
	var run struct {
		Arms []struct {
			Lab, Arm, Runtime string
			Batches           []struct {
				Ops     int
				Phase   uint32
				Traced  bool
				Records []struct {
					Class, Stage string
					Calls        uint64
				}
			}
		}
	}
	if err := json.Unmarshal(runJSON, &run); err != nil {
		return nil, err
	}
	out := map[uint32]RunBatch{}
	for _, a := range run.Arms {
		for _, b := range a.Batches {
			if !b.Traced {
				continue
			}
			rb := RunBatch{Case: a.Lab + "/" + a.Arm + "/" + a.Runtime, Ops: b.Ops, Counts: Counts{}}
			for _, r := range b.Records {
				if r.Stage == "" && r.Class != "user" && r.Class != "region" && r.Calls > 0 {
					rb.Counts[r.Class] += r.Calls
				}
			}
			out[b.Phase] = rb
		}
	}
	return out, nil
}

// FormatCounts writes counts by phase one line each, "phase class=calls …",
// as the guest prints them; ParseCounts reads them back.
func FormatCounts(byPhase map[uint32]Counts) string {
	var b strings.Builder
	for _, p := range union(byPhase, nil) {
		fmt.Fprintf(&b, "%d", p)
		for _, c := range union(byPhase[p], nil) {
			fmt.Fprintf(&b, " %s=%d", c, byPhase[p][c])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ParseCounts reads FormatCounts's lines.
func ParseCounts(text string) (map[uint32]Counts, error) {
	out := map[uint32]Counts{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		p, err := strconv.ParseUint(f[0], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("bad counts line %q", line)
		}
		c := Counts{}
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("bad count %q in %q", kv, line)
			}
			c[k] = n
		}
		out[uint32(p)] = c
	}
	return out, nil
}

// CompareWithStrace lists where a traced batch's counts differ from
// strace's in the same region, class by class, and regions only one saw.
func CompareWithStrace(batches, strace map[uint32]Counts, cases map[uint32]string) []string {
	var diffs []string
	for _, p := range union(batches, strace) {
		b, inRun := batches[p]
		s, inStrace := strace[p]
		switch {
		case !inRun:
			diffs = append(diffs, fmt.Sprintf("phase %d: strace saw a region the run has no traced batch for", p))
			continue
		case !inStrace:
			diffs = append(diffs, fmt.Sprintf("phase %d (%s): no region in strace's log", p, cases[p]))
			continue
		}
		for _, k := range union(b, s) {
			if b[k] != s[k] {
				diffs = append(diffs, fmt.Sprintf("phase %d (%s): %s %d calls, strace %d", p, cases[p], k, b[k], s[k]))
			}
		}
	}
	return diffs
}
