package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// Input is what a report is made from: a run, its summaries in run order
// (results.SummarizeAll) and what the arms catalogue says of its labs.
type Input struct {
	Run  *results.Run
	Sums []*results.Summary
	Labs explain.LabKnowledge
}

// Options choose what a report shows of the run: the order of its
// breakdowns, a trace's syscalls, the histograms.
type Options struct {
	// Sort orders the breakdowns, one of results.SortKeys; "" = time.
	Sort string
	// Top and Syscalls pick a trace's syscalls: the first Top in the
	// breakdown's order (0: all), among those named (a name matches its
	// [variants]); their stages come with them.
	Top      int
	Syscalls []string
	// Hist adds each arm's log2 latency histograms.
	Hist bool
}

// New fills the report of a run.
func New(in Input, o Options) *Document {
	run, sums := in.Run, in.Sums
	d := &Document{Kind: run.Kind, Head: Head{Schema: run.Schema, Started: run.Started, Protocol: run.Protocol,
		Complete: run.Complete, Args: run.Args, Meta: run.Meta, Warnings: warningTexts(run.Derived.Warnings), Drops: run.Drops,
		Between: run.Derived.Between}}
	// A compare group's times are in one unit, its fastest command's:
	// its table, its WHY and each command's breakdown alike.
	scales := map[*results.Summary]results.TimeScale{}
	if run.Kind == results.KindCompare {
		for _, g := range results.PeerGroups(sums) {
			sc := commandScale(g)
			for _, s := range g {
				scales[s] = sc
			}
		}
	}
	arms := map[*results.Summary]*Arm{}
	for _, s := range sums {
		sc, ok := scales[s]
		if !ok {
			sc = s.TimeScale()
		}
		a := newArm(s, run.Kind, sc, o)
		arms[s] = a
		d.Arms = append(d.Arms, a)
	}
	pairs := in.Labs.Pairs
	if run.Kind == results.KindCompare {
		pairs = append(slices.Clip(pairs), explain.CommandPairs(sums)...)
		d.Heading = fmt.Sprintf("compare · %d commands · %d rounds, each command once untraced and once traced", len(sums), run.Protocol.Rounds)
	}
	gaps := explain.Comparisons(sums, pairs)
	for _, g := range results.PeerGroups(sums) {
		d.Groups = append(d.Groups, newGroup(run.Kind, g, arms, gaps, in.Labs))
	}
	for _, s := range explain.SpillSentences(sums, in.Labs.Spills) {
		d.Spills = append(d.Spills, Sentence{Kind: SentenceSpill, Text: s})
	}
	d.Failures = failures(run.Arms)
	d.Footer = footer(run)
	return d
}

// newGroup fills one peer group: its table, its verdicts (commands), the
// sentences of its gaps and state links, and its arms.
func newGroup(kind results.RunKind, g []*results.Summary, arms map[*results.Summary]*Arm, gaps []explain.Gap, labs explain.LabKnowledge) *Group {
	first := g[0]
	out := &Group{Title: explain.GroupTitle(first.Lab, first.Runtime, first.Dir, first.ParamTitle()), Rate: "ops/s", Unit: "op",
		Ratio: "ops/s", Scale: results.MicroScale, Base: labs.Baselines[first.Lab]}
	switch {
	case kind == results.KindCompare:
		// Commands have no runtime, and the dir they ran in is in the
		// footer: "compare lab · - ·  · per run" said nothing twice.
		out.Title, out.Rate, out.Unit, out.Ratio, out.Base = "compared commands · "+first.ParamTitle(), "wall", "run", "runs/s", first.Arm
		out.Scale = arms[first].Scale
	case first.SizeBytes > 0:
		out.Rate, out.Unit, out.Ratio = "MiB/s", "round", "MiB/s"
	}
	for _, s := range g {
		out.Arms = append(out.Arms, arms[s])
		out.Explained = out.Explained || s.Traced != nil
		if kind == results.KindCompare {
			out.Rows = append(out.Rows, commandRow(s, out.Scale))
			if s != first {
				out.Verdicts = append(out.Verdicts, Sentence{Kind: SentenceVerdict, Text: explain.CommandVerdict(s, first, results.MinEffectPct)})
			}
			continue
		}
		out.Rows = append(out.Rows, armRow(s, first.SizeBytes > 0))
	}
	out.Observer = observerLine(g, out.Ratio, kind)
	for _, gap := range gaps {
		if gap.A.Peer() == first.Peer() {
			said := SentenceGap
			if gap.Headline {
				said = SentenceHeadline
			}
			gap.Scale = out.Scale
			out.Why = append(out.Why, Sentence{Kind: said, Text: gap.Sentence(), Short: gap.ShortWithin(ShortWidth, ShortLines)})
		}
	}
	for _, l := range explain.StateLinks(g, labs.Baselines[first.Lab]) {
		out.Why = append(out.Why, Sentence{Kind: SentenceStateLink, Text: l.Sentence()})
	}
	return out
}

// observerLine says what tracing cost the group's arms, as one range:
// traced ÷ untraced throughput, the median of the rounds' (TRACED in
// 'tmpprobe help terms'), and where stacks were taken in traced batches
// of their own, what those cost.
func observerLine(g []*results.Summary, ratio string, kind results.RunKind) string {
	what := "arms"
	if kind == results.KindCompare {
		what = "commands"
	}
	span, n := ratioSpan(g, func(s *results.Summary) results.Estimate { return s.Observer })
	if n == 0 {
		return ""
	}
	line := fmt.Sprintf("TRACED: traced ÷ untraced %s %s", ratio, span)
	if strings.Contains(span, "–") {
		line += " over the " + what
	}
	line += ": what tracing cost"
	if stacks, n := ratioSpan(g, func(s *results.Summary) results.Estimate { return s.StacksObserver }); n > 0 {
		line += "; with stacks (traced batches of their own): " + stacks
	}
	return line
}

// ratioSpan is the range of the known figures of g, "0.88" or
// "0.82–0.88", and how many there are.
func ratioSpan(g []*results.Summary, figure func(*results.Summary) results.Estimate) (string, int) {
	lo, hi, n := math.Inf(1), math.Inf(-1), 0
	for _, s := range g {
		if e := figure(s); e.Known() {
			lo, hi, n = min(lo, e.Center), max(hi, e.Center), n+1
		}
	}
	if n == 0 || results.Ratio(lo) == results.Ratio(hi) {
		return results.Ratio(lo), n
	}
	return results.Ratio(lo) + "–" + results.Ratio(hi), n
}

// armRow is a lab arm's (or a trace's) row: its throughput (MiB/s for
// the buffers lab), its ratio to the baseline, its untraced time per op,
// and beside them, for report.md and JSON, its traced times and what
// tracing cost.
func armRow(s *results.Summary, buffers bool) Row {
	r := Row{Arm: s.Arm, Rounds: len(s.Rounds)}
	if s.Error != "" && !s.OpsPerS.Known() {
		r.Failed = errtext.FirstLine(s.Error)
		return r
	}
	head := s.OpsPerS
	if buffers {
		head = s.MBPerS()
	}
	r.Head = Cell{Value: head, Short: RateCell(head), Long: results.Rate(head.Center), Bounds: intervalCell(head, results.Rate)}
	r.Ratio = Cell{Value: s.Ratio, Short: results.RatioText(s.Ratio), Long: results.RatioText(s.Ratio)}
	per := s.TimePerOp()
	r.PerOp = Cell{Value: per, Short: perOpCell(per), Long: perOpCell(per), Bounds: intervalCell(per, results.Micros)}
	r.Wall, r.Kernel, r.User = timeCell(s.WallNsPerOp), timeCell(s.KernelNsPerOp), timeCell(s.UserNsPerOp)
	if s.Traced == nil {
		// Throughput only (--attach none): nothing was traced.
		r.Wall, r.Kernel, r.User = noCell, noCell, noCell
	}
	r.Traced = Cell{Value: s.Observer, Short: ShortRatioCell(s.Observer), Long: results.RatioText(s.Observer)}
	if s.Error != "" {
		r.Late = errtext.FirstLine(s.Error)
	}
	return r
}

// commandScale is the one unit a compare table and its sentences give
// times in: the one the quickest command's run reads best in.
func commandScale(g []*results.Summary) results.TimeScale {
	least := math.Inf(1)
	for _, s := range g {
		if t := s.TimePerOp(); t.Known() {
			least = min(least, t.Center)
		}
	}
	if math.IsInf(least, 1) {
		return results.MicroScale
	}
	return results.RunScale(least)
}

// commandRow is a compared command's row: its untraced wall time per
// run, its throughput ÷ the first command's (paired per round) and what
// tracing cost it, its times in sc.
func commandRow(s *results.Summary, sc results.TimeScale) Row {
	wall := s.TimePerOp()
	r := Row{Arm: s.Arm, Rounds: len(s.Rounds),
		Head:   Cell{Value: wall, Short: durationCell(wall, sc), Long: sc.Of(wall.Center) + " " + sc.Unit, Bounds: durationBounds(wall, sc)},
		Ratio:  Cell{Value: s.Ratio, Short: results.RatioText(s.Ratio), Long: results.RatioText(s.Ratio)},
		Traced: Cell{Value: s.Observer, Short: ShortRatioCell(s.Observer), Long: results.RatioText(s.Observer)}}
	r.PerOp = r.Head
	return r
}

// newArm fills an arm: its figures, and, when it was traced, its
// sentence and breakdown as the options show them, times in sc.
func newArm(s *results.Summary, kind results.RunKind, sc results.TimeScale, o Options) *Arm {
	a := &Arm{CaseID: s.CaseID, Ops: s.Ops, Error: s.Error, Figures: s.Headline(), TimePerOp: s.TimePerOp(), TracedOpsPerS: s.TracedOpsPerS,
		WallNs: s.WallNsPerOp, KernelNs: s.KernelNsPerOp, UserNs: s.UserNsPerOp, Traced: s.Traced != nil,
		UserMeasured: s.UserMeasured, BetweenNs: s.BetweenNsPerOp,
		Unit: s.Unit(), Scale: sc, Classes: s.Classes}
	if s.Traced == nil {
		return a
	}
	// The sentence names an arm's syscalls largest first whatever order
	// its breakdown is in; a trace's speaks of the syscalls it shows.
	shown, said := sortedBy(s, o.Sort), s
	if kind == results.KindTrace {
		shown.Classes = o.filter(shown.Classes)
		said = shown
		if a.Unit == "entry" {
			a.Heading = fmt.Sprintf("%s · %d entries · %s µs each", s.Arm, s.Ops, results.Micros(s.WallNsPerOp))
		} else {
			a.Heading = fmt.Sprintf("trace · %s · %.3f s", s.Arm, float64(s.Traced.WallNs)/1e9)
		}
	}
	a.Breakdown = shown.Classes
	whole, short := explain.CodeSentences(s, shown.Classes, sc, false), explain.CodeSentences(s, shown.Classes, sc, true)
	for i := range whole {
		a.Code = append(a.Code, Sentence{Kind: SentenceCode, Text: whole[i], Short: short[i]})
	}
	a.Functions, a.Sites, a.NotSampledNs = s.Functions, s.Sites, s.UnsampledNsPerOp
	a.Split = explain.TimeSplit(shown, sc)
	a.Sentence = Sentence{Kind: SentenceArm, Text: explain.ArmSentence(said, sc)}
	if o.Hist {
		a.Hist = &Hist{Title: fmt.Sprintf("%s/%s · %s · %s · %s", s.Lab, s.Arm, s.Runtime, s.Dir, s.ParamTitle())}
		if s.OfCommand() {
			a.Hist.Title = s.Lab + " · " + s.Arm
		}
		for _, r := range s.Traced.Records {
			if r.Stage == "" && len(r.Hist) > 0 {
				a.Hist.Classes = append(a.Hist.Classes, r)
			}
		}
	}
	return a
}

// sortedBy is a copy of s with its classes in the order by names ("" or
// "time": as summarized); s itself is not changed.
func sortedBy(s *results.Summary, by string) *results.Summary {
	f := *s
	f.Classes = slices.Clone(s.Classes)
	if by != "" && by != "time" {
		results.SortClasses(f.Classes, by)
	}
	return &f
}

// filter keeps the classes the options pick: the first Top syscalls in
// the order given among those named, with their stages.
func (o Options) filter(cs []results.ClassSummary) []results.ClassSummary {
	keep := map[string]bool{}
	n := 0
	for _, c := range cs {
		if !c.IsSyscall() || !o.named(c.Class) {
			continue
		}
		if o.Top > 0 && n >= o.Top {
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

func (o Options) named(class string) bool {
	if len(o.Syscalls) == 0 {
		return true
	}
	fam, _, _ := strings.Cut(class, "[")
	for _, s := range o.Syscalls {
		if s == class || s == fam {
			return true
		}
	}
	return false
}
