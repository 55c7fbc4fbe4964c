package vmtest

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// GuestDisk is where the guest mounts the ext4 disk the host made.
const GuestDisk = "/mnt/disk"

// Console is what the guest's /init (vmtest/init) reported on the serial
// console. QEMU exits 0 whatever happened inside, so this is the verdict.
type Console struct {
	Blocks    map[string]string // block name -> its lines (strace, batches, cases)
	Disk      bool              // the ext4 disk was mounted
	Notes     []string          // what /init could not do
	Boot      string            // uptime when /init started
	Exit      map[string]int    // command label -> exit code
	CSV       map[string][]Row  // backend -> rows of its syscall CSV
	Leftovers string            // "programs=0 maps=0 links=0 kprobes=\"\""
	Done      string            // uptime when every run had finished; "" if never
	Output    map[string]string // command label -> its output
}

// Row is one line of the syscall breakdown CSV, by column name.
type Row map[string]string

// ParseConsole reads the VMTEST lines and the blocks between them.
func ParseConsole(out string) (*Console, error) {
	c := &Console{Exit: map[string]int{}, CSV: map[string][]Row{}, Output: map[string]string{}, Blocks: map[string]string{}}
	var block []string
	var inCmd, inCSV, inBlock string
	for _, line := range strings.Split(strings.ReplaceAll(out, "\r", ""), "\n") {
		rest, ok := strings.CutPrefix(line, "VMTEST ")
		if !ok {
			if inCmd != "" || inCSV != "" || inBlock != "" {
				block = append(block, line)
			}
			continue
		}
		word, arg, _ := strings.Cut(rest, " ")
		switch word {
		case "boot":
			c.Boot = arg
		case "cmd-begin":
			inCmd, _, _ = strings.Cut(arg, ":")
			block = nil
		case "cmd-end":
			label, code, err := labelExit(arg)
			if err != nil {
				return nil, err
			}
			c.Exit[label] = code
			c.Output[label] = strings.Join(block, "\n")
			inCmd, block = "", nil
		case "csv-begin":
			inCSV, block = arg, nil
		case "csv-end":
			if strings.TrimSpace(strings.Join(block, "")) == "" {
				inCSV, block = "", nil // a run that wrote none (refused)
				continue
			}
			rows, err := parseCSV(strings.Join(block, "\n"))
			if err != nil {
				return nil, fmt.Errorf("CSV of %s: %w", arg, err)
			}
			c.CSV[arg] = rows
			inCSV, block = "", nil
		case "block-begin":
			inBlock, block = arg, nil
		case "block-end":
			c.Blocks[arg] = strings.Join(block, "\n")
			inBlock, block = "", nil
		case "disk":
			c.Disk = arg == "mounted"
		case "note":
			c.Notes = append(c.Notes, arg)
		case "leftovers":
			c.Leftovers = arg
		case "done":
			c.Done = strings.TrimPrefix(arg, "at=")
		}
	}
	return c, nil
}

// labelExit splits "run kprobe at=12.34s exit=0".
func labelExit(s string) (string, int, error) {
	i := strings.LastIndex(s, " exit=")
	if i < 0 {
		return "", 0, fmt.Errorf("bad cmd-end line %q", s)
	}
	code, err := strconv.Atoi(s[i+len(" exit="):])
	label := s[:i]
	if j := strings.LastIndex(label, " at="); j >= 0 {
		label = label[:j]
	}
	return label, code, err
}

func parseCSV(text string) ([]Row, error) {
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil || len(recs) == 0 {
		return nil, fmt.Errorf("unreadable CSV (%v)", err)
	}
	var rows []Row
	for _, r := range recs[1:] {
		row := Row{}
		for i, col := range recs[0] {
			if i < len(r) {
				row[col] = r[i]
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// caseKey names a row's arm case: lab, arm, runtime and parameter.
func (r Row) caseKey() string {
	return r["lab"] + "/" + r["arm"] + "/" + r["runtime"] + "/" + r["payload_bytes"] + "/" + r["size_bytes"]
}

// RuntimeClasses are the Go runtime's own syscalls in a worker thread:
// heap growth, and a futex, a sched_yield or a nanosleep when sysmon's
// preemption or a lock's spin lands in a batch (batches take tens of ms
// under TCG; 6.1's guest once saw a sched_yield under one backend and not
// the other). They are the runtime's, not the arm's, and come and go
// between runs whatever the backend.
var RuntimeClasses = map[string]bool{
	"futex": true, "sched_yield": true, "nanosleep": true,
	"mmap": true, "munmap": true, "mremap": true, "brk": true, "madvise": true,
}

// SyscallCounts maps case -> syscall -> calls per op for the syscall rows
// (not stages or page faults, nor a function's or call site's rows, parts
// of their class's) of the arm's own classes, or of the runtime's when
// runtime is set.
func SyscallCounts(rows []Row, runtime bool) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, r := range rows {
		if r["stage"] != "" || r["stack"] != "" || r["syscall"] == "user" || r["syscall"] == "" || RuntimeClasses[r["syscall"]] != runtime {
			continue
		}
		k := r.caseKey()
		if out[k] == nil {
			out[k] = map[string]string{}
		}
		out[k][r["syscall"]] = r["calls_per_op"]
	}
	return out
}

// DiffCounts lists every case × syscall where got differs from want.
func DiffCounts(want, got map[string]map[string]string) []string {
	var diffs []string
	for _, k := range union(want, got) {
		for _, sc := range union(want[k], got[k]) {
			if w, g := want[k][sc], got[k][sc]; w != g {
				diffs = append(diffs, fmt.Sprintf("%s %s: %q vs %q calls/op", k, sc, w, g))
			}
		}
	}
	return diffs
}

// union is the keys of a and b, sorted.
func union[K cmp.Ordered, V any](a, b map[K]V) []K {
	seen := map[K]bool{}
	for k := range a {
		seen[k] = true
	}
	for k := range b {
		seen[k] = true
	}
	return slices.Sorted(maps.Keys(seen))
}

// StageRule says a syscall must show a stage, called exactly once per call
// of the syscall when Exact (the function is its one entry point).
type StageRule struct {
	Syscall, Stage string
	Exact          bool
}

// StageRules are the stage rows the function backends must produce for the
// Go arms on tmpfs, on every kernel booted. fdatasync has none on Debian's
// 6.1: GCC inlines vfs_fsync_range into __x64_sys_fdatasync (datasync=1 is
// a constant there) and calls f_op->fsync directly; its 6.12 has the row.
var StageRules = []StageRule{
	{"openat", "do_sys_openat2", true},
	{"unlink", "do_unlinkat", true},
	{"unlink", "vfs_unlink", true},
	{"fsync", "vfs_fsync_range", true},
	{"linkat", "do_linkat", true},
	{"linkat", "vfs_link", true},
	{"rename", "do_renameat2", true},
	{"rename", "vfs_rename", true},
}

// CheckStages lists what is wrong with rows' stage rows: per case, every
// syscall of a rule ("openat" covers openat[create] and openat[tmpfile])
// needs its stage row, with as many calls when the rule is exact.
func CheckStages(rows []Row) []string {
	calls := map[string]string{}
	for _, r := range rows {
		if r["stack"] == "" {
			calls[r.caseKey()+"|"+r["syscall"]+"|"+r["stage"]] = r["calls"]
		}
	}
	var probs []string
	for _, r := range rows {
		if r["stage"] != "" || r["stack"] != "" {
			continue
		}
		base, _, _ := strings.Cut(r["syscall"], "[")
		for _, rule := range StageRules {
			if rule.Syscall != base {
				continue
			}
			got, ok := calls[r.caseKey()+"|"+r["syscall"]+"|"+rule.Stage]
			switch {
			case !ok:
				probs = append(probs, fmt.Sprintf("%s: no %s > %s row", r.caseKey(), r["syscall"], rule.Stage))
			case rule.Exact && got != r["calls"]:
				probs = append(probs, fmt.Sprintf("%s: %s > %s %s calls, syscall %s", r.caseKey(), r["syscall"], rule.Stage, got, r["calls"]))
			}
		}
	}
	return probs
}

// CheckRow is the OK column ("yes", "no") of the row named name in the
// output of 'tmpprobe check', or "" when there is no such row.
func CheckRow(out, name string) string {
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == name {
			return f[1]
		}
	}
	return ""
}

// FooterBackend is the report footer's "backend …" line, which names the
// backend and how it is attached.
func FooterBackend(out string) string {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		if !strings.HasPrefix(line, "backend ") {
			continue
		}
		// The footer wraps to 80 columns, its continuation lines
		// indented by two spaces: the backend's line is all of them.
		for _, more := range lines[i+1:] {
			if !strings.HasPrefix(more, "  ") {
				break
			}
			line += " " + strings.TrimSpace(more)
		}
		return line
	}
	return ""
}
