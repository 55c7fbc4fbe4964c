package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// TraceView selects what a trace report shows.
type TraceView struct {
	Top      int      // syscall classes shown, largest time first; 0 = all
	Syscalls []string // only these classes (a name matches its [variants])
	Width    int      // columns the WHY sentences wrap at; 0 = DefaultWidth
	Sort     string   // the order of the classes (results.SortKeys); "" = time
}

// Filter keeps the classes the view asks for: the first N syscalls in the
// order given (by time unless sorted otherwise), with their stages, among
// those named.
func (v TraceView) Filter(cs []results.ClassSummary) []results.ClassSummary {
	keep := map[string]bool{}
	n := 0
	for _, c := range cs {
		if !c.IsSyscall() || !v.named(c.Class) {
			continue
		}
		if v.Top > 0 && n >= v.Top {
			break
		}
		keep[c.Class] = true
		n++
	}
	var out []results.ClassSummary
	for _, c := range cs {
		if keep[c.Class] {
			out = append(out, c)
		}
	}
	return out
}

func (v TraceView) named(class string) bool {
	if len(v.Syscalls) == 0 {
		return true
	}
	fam, _, _ := strings.Cut(class, "[")
	for _, s := range v.Syscalls {
		if s == class || s == fam {
			return true
		}
	}
	return false
}

// WriteTrace prints a traced target and its regions: per syscall class the
// calls, time and off-CPU time per run (or per region entry), then why.
// The view's filter applies to both.
func WriteTrace(w io.Writer, sums []*results.Summary, v TraceView) {
	var shown []*results.Summary
	for _, s := range sums {
		if s.Traced == nil {
			continue
		}
		f := *sortedBy(s, v.Sort)
		f.Classes = v.Filter(f.Classes)
		shown = append(shown, &f)
		if s.Unit() == "entry" {
			fmt.Fprintf(w, "\n%s · %d entries · %s µs each\n", s.Arm, s.Ops, results.Micros(s.WallNsPerOp))
		} else {
			fmt.Fprintf(w, "\ntrace · %s · %.3f s\n", s.Arm, float64(s.Traced.WallNs)/1e9)
		}
		writeBreakdown(w, &f)
	}
	fmt.Fprintln(w, "\nWHY")
	for _, s := range shown {
		bullet(w, "  ", explain.ArmSentence(s), widthOr(v.Width))
	}
}
