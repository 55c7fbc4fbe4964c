package explain

import (
	"fmt"
	"math"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
)

// Reason is one short reason for a term, the one a reader of the labs'
// notes asks first: new or no longer made, the inode freed here or not,
// the I/O that changed, what it waits for, how many calls. "" when
// nothing measured says more than the time.
func (g Gap) Reason(t Term) string {
	if w, ok := g.namedTermWords(t); ok {
		return w.short
	}
	unit := g.A.Unit()
	switch {
	case t.Name == results.UserTerm:
		most := g.functions
		if most == 0 {
			most = shortFunctions
		}
		if parts := g.partsText(t, most, false); parts != "" {
			return parts
		}
		return userReason(g.A, g.B)
	case t.Name == results.BetweenTerm:
		return betweenReason(g.A, g.B)
	case t.oldClass != t.newClass:
		return waitReason(g.A, t.newClass)
	}
	class := t.newClass
	ca, cb := g.A.Class(class), g.B.Class(class)
	switch {
	case cb.Calls == 0 && ca.Calls > 0:
		if w := waitReason(g.A, class); w != "" {
			return "new, " + w
		}
		switch {
		case g.A.Stage(class, results.StageExt4FreeInode).CallsPerOp >= 0.5:
			return "new, frees the inode"
		case ca.CallsPerOp != 1:
			return fmt.Sprintf("new, %s/%s", results.Count(ca.CallsPerOp), unit)
		}
		return "new"
	case ca.Calls == 0 && cb.Calls > 0:
		return "no longer made"
	}
	switch inodeMove(g.A, g.B, class) {
	case movedIn:
		return "frees the inode here instead"
	case movedOut:
		return "no longer frees the inode"
	}
	if io := ioChange(g.A, g.B, class); io != "" {
		return io
	}
	if w := waitReason(g.A, class); w != "" {
		return w
	}
	if math.Abs(ca.CallsPerOp-cb.CallsPerOp) >= 0.05*math.Max(ca.CallsPerOp, cb.CallsPerOp) {
		return fmt.Sprintf("calls/%s %s → %s", unit, results.Count(cb.CallsPerOp), results.Count(ca.CallsPerOp))
	}
	return ""
}

// betweenMechanism says what the off-CPU time between calls waited for,
// and the page faults that changed.
func betweenMechanism(a, b *results.Summary) string {
	oa, ob := waitingNs(a.Class(results.ClassUser)), waitingNs(b.Class(results.ClassUser))
	label, _ := dominantWait(a.Class(results.ClassUser).OffByLabel)
	if oa < ob {
		label, _ = dominantWait(b.Class(results.ClassUser).OffByLabel)
	}
	parts := []string{fmt.Sprintf("%s → %s µs, mostly %s", results.Micros(ob), results.Micros(oa), offPhrase(label))}
	pa := a.Stage(results.ClassUser, results.StagePageFault).CallsPerOp
	pb := b.Stage(results.ClassUser, results.StagePageFault).CallsPerOp
	if math.Abs(pa-pb) >= 0.05 {
		parts = append(parts, fmt.Sprintf("page faults/%s %s → %s", a.Unit(), results.Count(pb), results.Count(pa)))
	}
	return strings.Join(parts, "; ")
}

// betweenReason is what the off-CPU time between calls mostly waited
// for, in a word.
func betweenReason(a, b *results.Summary) string {
	ua, ub := a.Class(results.ClassUser), b.Class(results.ClassUser)
	label, _ := dominantWait(ua.OffByLabel)
	if waitingNs(ua) < waitingNs(ub) {
		label, _ = dominantWait(ub.OffByLabel)
	}
	return offWords[label].short
}

// userReason says in a word what user space is: the interpreter's code,
// or, when it moved mostly off the CPU, what it waited for (never a CPU:
// that is the run-queue wait's own term). Measured, user space is on a
// CPU by definition.
func userReason(a, b *results.Summary) string {
	ua, ub := a.Class(results.ClassUser), b.Class(results.ClassUser)
	du := a.UserNsPerOp - b.UserNsPerOp
	if d := waitingNs(ua) - waitingNs(ub); !a.UserMeasured && du != 0 && d/du >= 0.5 {
		label, _ := dominantWait(ua.OffByLabel)
		if d < 0 {
			label, _ = dominantWait(ub.OffByLabel)
		}
		if w := offWords[label].short; w != "" {
			return "off-CPU: " + w
		}
	}
	switch a.Runtime {
	case "python":
		return "Python code"
	case "go":
		return "Go code"
	}
	return ""
}

// waitReason is what a class mostly waits for, when it spends half its
// time or more off the CPU for something else than a CPU: its run-queue
// wait is the run-queue term's (#42: "waits for a CPU" given as a
// syscall's reason flipped with the load, not with the syscall).
func waitReason(s *results.Summary, class string) string {
	c := s.Class(class)
	queued := c.OffNsPerOp - waitingNs(c)
	if c.NsPerOp-queued <= 0 || waitingNs(c) < 0.5*(c.NsPerOp-queued) {
		return ""
	}
	label, _ := dominantWait(c.OffByLabel)
	return offWords[label].short
}

// waitingNs is a row's off-CPU time per op waiting for anything but a
// CPU: sleeping or blocked.
func waitingNs(c results.ClassSummary) float64 {
	if len(c.OffByLabel) == 0 {
		return c.OffNsPerOp // a run rebuilt from a CSV: unlabelled
	}
	var ns float64
	for l, v := range c.OffByLabel {
		if !isPreempted(l) {
			ns += v
		}
	}
	return ns
}

func isPreempted(label string) bool { return strings.HasPrefix(label, results.OffPreempted) }

// dominantWait is the off-CPU label with the most time of those that are
// not a wait for a CPU.
func dominantWait(m map[string]float64) (string, float64) {
	waits := map[string]float64{}
	for l, v := range m {
		if !isPreempted(l) {
			waits[l] = v
		}
	}
	return dominant(waits)
}

// ioChange is the first of the class's I/O stages whose count per op
// moved by 0.5 or more: "discards/op 0 → 1.0".
func ioChange(a, b *results.Summary, class string) string {
	for _, io := range ioStages {
		sa, sb := a.Stage(class, io.stage), b.Stage(class, io.stage)
		if sa.Beside || sb.Beside || math.Abs(sa.CallsPerOp-sb.CallsPerOp) < 0.5 {
			continue
		}
		return fmt.Sprintf("%s/%s %s → %s", io.what, a.Unit(), results.Count(sb.CallsPerOp), results.Count(sa.CallsPerOp))
	}
	return ""
}

func syscallsPerOp(s *results.Summary) float64 {
	var n float64
	for _, c := range s.Classes {
		if c.IsSyscall() {
			n += c.CallsPerOp
		}
	}
	return n
}
