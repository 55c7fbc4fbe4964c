package explain

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// EnvChange is one fact of the environment that differs between two runs:
// a mount option, a block queue setting, a sysctl, the Python version.
type EnvChange struct {
	Name string `json:"name"`
	Old  string `json:"old"`
	New  string `json:"new"`
	// Added and Removed are, for a list of options, what NEW has that OLD
	// had not, and what OLD had that NEW has not.
	Added   []string `json:"added,omitempty"`
	Removed []string `json:"removed,omitempty"`
	// Explains names the terms of changed arms the mechanism ties this
	// difference to ("mkstemp-fsync (go): fsync"); empty when it can
	// explain no change.
	Explains []string `json:"explains,omitempty"`
	// Move is set when the work dir moved to another file system
	// ("file system") or another device under it ("device"): the change
	// stands for every fact of the dir that came with it (StandsFor),
	// and is said once, as Phrase (#29).
	Move   string `json:"move,omitempty"`
	Phrase string `json:"phrase,omitempty"`
	// Short is Phrase without the marks of the file systems, as a
	// sentence names the move: "the dir moved from tmpfs to ext4 on vda".
	Short     string      `json:"short,omitempty"`
	StandsFor []EnvChange `json:"stands_for,omitempty"`
}

// Evidence are the words in a term's detail names that show a mechanism
// at work: its stages ("dev_flush", "jbd2_commit") and off-CPU reasons
// ("off-CPU waiting for the journal commit", "… (run-queue wait)").
var (
	evidenceFlush     = []string{results.StageDevFlush, "bio_flush", "bio_fua", results.StageJBD2Commit, "journal commit"}
	evidenceDiscard   = []string{results.StageDevDiscard, "bio_discard"}
	evidenceJournal   = []string{results.StageJBD2Commit, "jbd2_handle", "journal commit", results.StageDevFlush, results.StageDevWrite}
	evidenceDevice    = []string{results.DevStagePrefix, "waiting for the device", "until the device", "journal commit"}
	evidenceWriteback = []string{results.StageDevWrite, "bio_write", "writeback", "kworker"}
	evidenceRunQueue  = []string{"run-queue wait"}
	evidencePageFault = []string{results.StagePageFault}
)

// mechanism is what a fact of the environment moves: the evidence a term
// shows when it moved, or user space (user), or any term (any: a change
// of kernel or CPU speed moves every figure).
type mechanism struct {
	evidence []string
	user     bool
	any      bool
}

// optionMechanism is what a file system option moves, by its name without
// "no" and "=value".
func optionMechanism(opt string) mechanism {
	key, _, _ := strings.Cut(opt, "=")
	key = strings.TrimPrefix(key, "no")
	switch key {
	case "barrier":
		return mechanism{evidence: evidenceFlush}
	case "discard":
		return mechanism{evidence: evidenceDiscard}
	case "data", "commit", "journal_async_commit", "journal_checksum", "min_batch_time", "max_batch_time", "fast_commit", "journal_ioprio":
		return mechanism{evidence: evidenceJournal}
	case "delalloc", "dioread_nolock", "auto_da_alloc", "dax":
		return mechanism{evidence: evidenceWriteback}
	}
	return mechanism{}
}

// factMechanism is what a fact moves, by the last part of its name.
func factMechanism(c EnvChange) mechanism {
	name := c.Name[strings.LastIndexByte(c.Name, '.')+1:]
	switch {
	case name == "write_cache" || name == "fua":
		return mechanism{evidence: evidenceFlush}
	case name == "discard_max_bytes" || name == "discard_granularity":
		return mechanism{evidence: evidenceDiscard}
	case name == "journal" || name == "fast_commit":
		return mechanism{evidence: evidenceJournal}
	case name == "scheduler" || name == "wbt_lat_usec" || name == "nr_requests" || name == "rotational" ||
		name == "read_ahead_kb" || name == "max_sectors_kb" || name == "loop_dio" || name == "io_max":
		return mechanism{evidence: evidenceDevice}
	case strings.HasPrefix(name, "dirty_"):
		return mechanism{evidence: evidenceWriteback}
	case name == "python":
		return mechanism{user: true}
	case name == "thp" || name == "memory_max":
		return mechanism{evidence: evidencePageFault}
	case name == "cpu_max":
		return mechanism{evidence: evidenceRunQueue, user: true}
	case name == "kernel_release" || name == "kernel_cmdline" || name == "cpufreq" || name == "cpu" || name == "cpus" || name == "backend",
		// Another file system under the work dir changes every mechanism.
		name == "fs_type" || name == "overlay_upper":
		return mechanism{any: true}
	}
	return mechanism{}
}

// optionToggled: NEW's option is OLD's turned the other way (nobarrier
// for barrier, data=writeback for data=ordered): one change, said once.
func optionToggled(opt string, others []string) bool {
	key, _, _ := strings.Cut(opt, "=")
	for _, o := range others {
		k, _, _ := strings.Cut(o, "=")
		if k == key || "no"+k == key || k == "no"+key {
			return true
		}
	}
	return false
}

// negated is the option a file system reports when o is gone: discard
// removed is nodiscard, nobarrier removed is barrier, so a change seen in
// the mount options and in the options ext4 reports is said once.
func negated(o string) string {
	switch {
	case strings.Contains(o, "="):
		return "without " + o
	case strings.HasPrefix(o, "no"):
		return strings.TrimPrefix(o, "no")
	}
	return "no" + o
}

// Causes are the change said as causes ("NEW is mounted data=journal");
// none when the fact cannot explain a change in time.
func (c EnvChange) Causes() []string {
	phrases, _ := c.causes()
	return phrases
}

// causes are a change said as causes with what it moves; none when the
// fact cannot explain a change in time (a device's name, a mount point).
func (c EnvChange) causes() (phrases []string, mechs []mechanism) {
	if c.Move != "" {
		// Another file system or device moves every mechanism. Named
		// without its marks, which the preflight line gives.
		return []string{c.Short}, []mechanism{{any: true}}
	}
	if c.Added != nil || c.Removed != nil {
		for _, o := range c.Added {
			if m := optionMechanism(o); m.evidence != nil {
				phrases, mechs = append(phrases, "NEW is mounted "+o), append(mechs, m)
			}
		}
		for _, o := range c.Removed {
			if m := optionMechanism(o); m.evidence != nil && !optionToggled(o, c.Added) {
				phrases, mechs = append(phrases, "NEW is mounted "+negated(o)), append(mechs, m)
			}
		}
		return phrases, mechs
	}
	m := factMechanism(c)
	if m.evidence == nil && !m.user && !m.any {
		return nil, nil
	}
	name := c.Name[strings.LastIndexByte(c.Name, '.')+1:]
	return []string{fmt.Sprintf("%s %s → %s", strings.ReplaceAll(name, "_", " "), results.OrNone(c.Old), results.OrNone(c.New))}, []mechanism{m}
}

// moved says a detail changed enough to show in a sentence: a time that
// is a tenth or more of the term's change, a count that changed by 5% or
// more. detailText names exactly these.
func moved(d Detail, termNs float64) bool {
	delta := d.Delta()
	if d.Unit == "ns" {
		return math.Abs(delta) >= math.Max(0.1*math.Abs(termNs), 100)
	}
	return math.Abs(delta) >= 0.01 && math.Abs(delta) >= 0.05*math.Max(math.Abs(d.Old), math.Abs(d.New))
}

// shows says a term moved through the mechanism: one of its moved
// details carries the mechanism's evidence, or it is user space and the
// mechanism moves user space.
func (m mechanism) shows(t Term) bool { return m.weight(t) > 0 }

// weight is how much of term t the mechanism can explain, in ns per op:
// its moved details' times that carry the mechanism's evidence (the whole
// term, for user space and a mechanism that moves it); a mechanism seen
// only in a moved count weighs 1 ns, ranked after any time.
func (m mechanism) weight(t Term) float64 {
	if (m.user && t.Name == results.UserTerm) || (t.Name == results.RunQueueTerm && m.evident(t.Name)) {
		return math.Abs(float64(t.Delta))
	}
	var w float64
	for _, d := range t.Details {
		if !moved(d, float64(t.Delta)) || !m.evident(d.Name) {
			continue
		}
		if d.Unit == "ns" {
			w += math.Abs(d.Delta())
		} else {
			w = math.Max(w, 1)
		}
	}
	return w
}

// counted says a count the mechanism moves changed in the term: exact,
// so the term is tied to it even when its time is within noise.
func (m mechanism) counted(t Term) bool {
	for _, d := range t.Details {
		if d.Unit != "ns" && moved(d, float64(t.Delta)) && m.evident(d.Name) {
			return true
		}
	}
	return false
}

// evident says a detail's name carries the mechanism's evidence.
func (m mechanism) evident(name string) bool {
	for _, e := range m.evidence {
		if strings.Contains(name, e) {
			return true
		}
	}
	return false
}

// ranked are a term's culprits with how much of it each can explain.
type ranked struct {
	phrase string
	weight float64
}

// top are the culprits to name, those that can explain the most first, at
// most maxCulprits (a sentence with more names none a reader can act on).
func top(rs []ranked) []string {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].weight > rs[j].weight })
	var out []string
	for _, r := range rs {
		if len(out) == maxCulprits {
			break
		}
		out = appendOnce(out, r.phrase)
	}
	return out
}

// TieCulprits names, inside each term of a changed arm that it moved, the
// difference of the environment and the neighbours behind it: "NEW is
// mounted nobarrier" beside fsync's dev_flush/op 2 → 0, at most three a
// term, ranked by how much of the term their mechanism can explain. A
// fact that moves every figure (the kernel, the CPU, another file system
// under the dir) is tied to the arm, not to a term: the arm's headline
// names it (WorkCulprits). label names the arm in env's Explains.
func TieCulprits(label string, terms []Term, env []EnvChange, old, cur *results.Summary) {
	sumAbs := sumAbsDelta(terms)
	byTerm := make([][]ranked, len(terms))
	for ci := range env {
		phrases, mechs := env[ci].causes()
		for pi, m := range mechs {
			if m.any {
				// It may explain the whole arm, through no one term.
				env[ci].Explains = appendOnce(env[ci].Explains, label)
				continue
			}
			for ti := range terms {
				w := m.weight(terms[ti])
				if w == 0 || !(shown(terms[ti], ti, sumAbs) || m.counted(terms[ti])) {
					continue
				}
				byTerm[ti] = append(byTerm[ti], ranked{phrases[pi], w})
				env[ci].Explains = appendOnce(env[ci].Explains, label+": "+terms[ti].Name)
			}
		}
	}
	// A neighbour goes on the shown term it moved most, once: every
	// syscall waits on the same run queue and device.
	for _, nc := range NeighbourChanges(old, cur) {
		m := nc.mechanism()
		best, bw := -1, 0.0
		for ti := range terms {
			if w := m.weight(terms[ti]); shown(terms[ti], ti, sumAbs) && w > bw {
				best, bw = ti, w
			}
		}
		if best >= 0 {
			// Named short: its share is in the diff's list of neighbours.
			byTerm[best] = append(byTerm[best], ranked{nc.Short(), bw})
		}
	}
	for ti := range terms {
		terms[ti].Culprits = top(byTerm[ti])
	}
}

// mechanism is what a neighbour moves: the run-queue wait (CPU), or the
// device and writeback waits (disk).
func (nc NeighbourChange) mechanism() mechanism {
	if nc.Kind == results.NeighbourDisk {
		return mechanism{evidence: append(append([]string{}, evidenceDevice...), evidenceWriteback...)}
	}
	return mechanism{evidence: evidenceRunQueue}
}

// WorkCulprits are the causes an arm's work headline names, at most
// three, ranked by how much they can explain: for work that changed, the
// differences whose mechanism moves those counts (discard beside
// discards); for the same work done slower, those whose mechanism moves
// the time per unit that headed it (a disk neighbour beside device time,
// a CPU neighbour beside the run-queue wait). A fact that moves every
// figure (another file system or device under the dir, the kernel, the
// CPU) can explain any of it. neighbours are the whole run's.
func WorkCulprits(w Work, env []EnvChange, neighbours []NeighbourChange) []string {
	if !w.MoreOrLess() && w.Unit == nil {
		return nil // nothing said that a cause could explain
	}
	var rs []ranked
	evidence := map[string]float64{} // a stage or label → what it weighs
	switch {
	case w.MoreOrLess():
		for _, c := range w.Changed {
			if st := workStage[c.Name]; st != "" {
				evidence[st] += math.Abs(c.New - c.Old)
			}
		}
	case w.Unit != nil:
		evidence[w.Unit.Evidence] = math.Abs(w.Unit.Explains)
	}
	all := 0.0
	for _, v := range evidence {
		all += v
	}
	for _, e := range env {
		phrases, mechs := e.causes()
		for i, m := range mechs {
			weight := 0.0
			for name, v := range evidence {
				if m.evident(name) || (m.user && name == results.UserTerm) {
					weight += v
				}
			}
			if m.any {
				weight = math.Max(all, 1) // it can explain whatever moved
			}
			if weight > 0 {
				rs = append(rs, ranked{phrases[i], weight})
			}
		}
	}
	for _, nc := range neighbours {
		// A neighbour slows an op's work; it does not add to it.
		if !nc.Grew || w.Unit == nil {
			continue
		}
		m := nc.mechanism()
		weight := 0.0
		for name, v := range evidence {
			if m.evident(name) {
				weight += v
			}
		}
		if weight > 0 {
			rs = append(rs, ranked{nc.Short(), weight})
		}
	}
	// Specific causes before those that move everything, at equal weight.
	return top(rs)
}

// workStage is the stage whose mechanisms move a count of work.
var workStage = map[string]string{
	results.WorkFlushes: results.StageDevFlush, results.WorkDeviceWrites: results.StageDevWrite,
	results.WorkDiscards: results.StageDevDiscard, results.WorkDeviceReads: results.StageDevRead,
	results.WorkDeviceBytes: results.StageDevWrite, results.WorkJournalCommits: results.StageJBD2Commit,
	results.WorkPageFaults: results.StagePageFault,
}

func appendOnce(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

// NeighbourChange is a neighbour that appeared, grew, shrank or vanished
// between two runs of an arm, with its share in each.
type NeighbourChange struct {
	Kind   string
	Name   string
	Phrase string // "NEW: sh (pid 4123) took 41% of the run-queue wait (was 0%)"
	// Verb is how it changed: "appeared", "grew", "shrank", "gone".
	Verb string
	// Grew: it appeared or grew in NEW.
	Grew bool
}

// Short names the change in a clause: "cpuhog (pid 4123) appeared".
func (nc NeighbourChange) Short() string { return nc.Name + " " + nc.Verb }

// NeighbourShareMin is the share of the run-queue wait or of the device
// time below which a neighbour is not named, in a diff or a footer: the
// scheduler's own threads and a stray daemon always take a little.
const NeighbourShareMin = 0.10

// NeighbourWallMin is the share of the traced time below which a
// run-queue wait moves no figure worth naming its neighbours for.
const NeighbourWallMin = 0.01

// NeighbourChanges compares the neighbours of an arm's traced batches in
// two runs: those that took a tenth or more of the run-queue wait or the
// device time on one side, and on the other at most half as much of the
// traced wall time (batches are sized by time, so per op and per wall
// time are alike for one arm; per wall time also holds for a whole run).
func NeighbourChanges(old, cur *results.Summary) []NeighbourChange {
	if old == nil || cur == nil || old.Traced == nil || cur.Traced == nil {
		return nil
	}
	type side struct {
		share   float64 // of the run-queue wait, or of the device time
		perWall float64 // ns per ns of traced wall time
		reqs    float64 // requests per op (disk)
		bytes   float64
		present bool
	}
	sides := map[string]*[2]side{}
	names := map[string]results.Neighbour{}
	for i, s := range []*results.Summary{old, cur} {
		ops, wall := float64(s.Traced.Ops), float64(s.Traced.WallNs)
		if ops == 0 || wall == 0 {
			continue
		}
		// The device time is the traced syscalls' and every disk
		// neighbour's, as the footer counts it: against its own time
		// alone each neighbour had 100%, and a comm several processes
		// share (a build's compilers) summed to more.
		rq, dev := results.RunQueueNs(s.Traced), results.DeviceNs(s.Traced)
		rqBase := results.WaitShareBase(rq, s.Traced.Neighbours)
		for _, n := range s.Traced.Neighbours {
			if n.Kind == results.NeighbourDisk {
				dev += n.Ns
			}
		}
		for _, n := range s.Traced.Neighbours {
			if n.Observer {
				continue // tmpprobe itself: the observer, not a neighbour
			}
			if n.Kind == results.NeighbourCPU && float64(rq)*100 < wall {
				continue // a run-queue wait under 1% of the time matters to no figure
			}
			// By comm: the same program is the same neighbour in two
			// runs whatever its pid (a build's compiler, tmpprobe itself).
			k := n.Kind + "/" + n.Comm
			if sides[k] == nil {
				sides[k] = &[2]side{}
			}
			if n.Ns > names[k].Ns {
				names[k] = n
			}
			total := rqBase
			if n.Kind == results.NeighbourDisk {
				total = dev
			}
			sd := &sides[k][i]
			sd.present = true
			sd.perWall += float64(n.Ns) / wall
			sd.reqs += float64(n.Count) / ops
			sd.bytes += float64(n.Bytes)
			if total > 0 {
				sd.share += float64(n.Ns) / float64(total)
			}
		}
	}
	var out []NeighbourChange
	for k, s := range sides {
		o, c := s[0], s[1]
		if math.Max(o.share, c.share) < NeighbourShareMin || math.Max(o.perWall, c.perWall) < NeighbourWallMin {
			continue
		}
		n := names[k]
		what := "of the run-queue wait"
		if n.Kind == results.NeighbourDisk {
			what = "of the device time"
		}
		var p, short string
		switch {
		case !o.present || c.perWall >= 2*o.perWall:
			short = "appeared"
			if o.present {
				short = "grew"
			}
			p = fmt.Sprintf("NEW: %s took %s %s, %.1f%% of the traced time (OLD %.1f%%; %s)", n.Name(), results.Share(c.share), what, 100*c.perWall, 100*o.perWall, short)
		case !c.present || c.perWall <= 0.5*o.perWall:
			verb := "gone in NEW"
			short = "gone"
			if c.present {
				verb, short = fmt.Sprintf("NEW %.1f%%", 100*c.perWall), "shrank"
			}
			p = fmt.Sprintf("OLD: %s took %s %s, %.1f%% of the traced time (%s)", n.Name(), results.Share(o.share), what, 100*o.perWall, verb)
		default:
			continue
		}
		if n.Kind == results.NeighbourDisk {
			p += fmt.Sprintf(", %s requests/op", results.Count(math.Max(o.reqs, c.reqs)))
		}
		out = append(out, NeighbourChange{Kind: n.Kind, Name: n.Name(), Phrase: p, Verb: short, Grew: short == "appeared" || short == "grew"})
	}
	sortChanges(out)
	return out
}

func sortChanges(out []NeighbourChange) {
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Phrase < out[j-1].Phrase; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
}
