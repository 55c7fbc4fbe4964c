package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// DiffDocument is what a diff of two runs says, once: every sentence and
// cell, made from compare's judgement (Diff) by NewDiff, as New makes a
// run's Document. The text, markdown and JSON writers lay it out and say
// nothing of their own.
type DiffDocument struct {
	Diff     *compare.DiffReport
	Old, New string
	// Failures are the arms that lost something in NEW though they have
	// figures: "modes/mkstemp-fsync (go) failed in NEW after 3 of 6
	// rounds (worker exit: …)".
	Failures []string
	// Problems are why the runs compare only in part.
	Problems []string
	// Between says where the spread between runs the tests count came
	// from, LeftOut which runs beside NEW are not its replicates; ""
	// when none.
	Between, LeftOut string
	// Facts are the differences of the environment, in Diff.Preflight's
	// order.
	Facts []DiffFact
	// Neighbours are the other tasks that appeared, grew or vanished.
	Neighbours []DiffNeighbour
	Groups     []DiffGroup
	// Arms are what the diff says of each arm, in Diff.Arms' order.
	Arms []DiffArm
	// Drift are the groups' drift notes, in Diff.Drift's order.
	Drift []DiffDrift
	// ChangedHead heads the arms that changed on their own (Changed, their
	// sentences), or says none did.
	ChangedHead string
	Changed     []string
	// TooFew names the arms too few rounds judge; WorkToo the arms whose
	// work per op changed within noise, RunQueue those whose run-queue
	// wait grew within noise, each line those that said the same;
	// SameDirection points at the preflight when every change went one
	// way. "" or nil when there is none.
	TooFew string
	// Tellable says, for arms within noise, what change one run a side
	// can tell against the spread between runs, and what no number of
	// runs saved beside brings below (#43).
	Tellable string
	// Storage names the arms that moved with the storage, each line
	// those whose work headline says the same.
	Storage       []string
	WorkToo       []string
	RunQueue      []string
	SameDirection string
	// Gate is the gate's verdict, "" when the diff does not gate; Gated
	// are its reasons to fail, each.
	Gate  string
	Gated []string
}

// DiffFact is one difference of the environment as a diff says it.
type DiffFact struct {
	Fact *compare.FactChange
	// Line says it: "kernel_release: 6.1 → 6.12", or a work dir's move,
	// its Phrase ("work dirs /tmp → /mnt: the dir moved from tmpfs to
	// ext4 on vda: no journal"); Said adds what it explains, when it
	// explains a change and is no move.
	Line, Said string
	// Change is what changed: "OLD → NEW", or the options added and
	// removed ("+nobarrier −barrier").
	Change string
	// Old and New are the table's cells: the values, or the options
	// removed and added.
	Old, New string
	// Explains are what it explains, each ("mkstemp-fsync (go): fsync");
	// ExplainsShort names two and how many more.
	Explains      []string
	ExplainsShort string
	// Tied: it explains a change. Detail: a work dir's device name or
	// mount point, which explains nothing (listed on request).
	// InMove: the work dirs' own difference, said in a move's Line.
	Tied, Detail, InMove bool
	// Move: a work dir's move, which stands for the facts StandsFor.
	Move          bool
	Phrase, Short string
	StandsFor     []DiffFact
}

// DiffNeighbour is a neighbour's change as a diff says it; Lost: OLD had
// it and NEW lost or had less of it.
type DiffNeighbour struct {
	Text string
	Lost bool
}

// DiffGroup is a group's table: its title, the unit of its rates, its
// drift note's words (said under the title; "" when none), and a row an
// arm.
type DiffGroup struct {
	Title, Rate string
	Drift       string
	Rows        []DiffRow
}

// DiffRow is an arm's row: its throughput's and its ratio's cells.
type DiffRow struct {
	Arm        string
	Ops, Ratio DiffCells
	Status     compare.Status
}

// DiffCells are a comparison's cells: "OLD→NEW" and Δ for the terminal,
// each side with its interval, Δ and p for report.md; Known false where
// the arm has no such comparison.
type DiffCells struct {
	Known        bool
	Arrow, Delta string
	Old, New     string
	Change, P    string
}

// DiffArm is what a diff says of an arm: its label, its sentence, and the
// words of what its judgement ties to it.
type DiffArm struct {
	Arm      *compare.ArmDiff
	Label    string
	Sentence string
	// TermCulprits are each term's culprits, named; WorkHeadline and
	// WorkCulprits the work verdict's; RunQueue the CPU neighbours its
	// run-queue wait grew with.
	TermCulprits [][]string
	WorkHeadline string
	WorkCulprits []string
	RunQueue     []string
}

// DiffDrift is a group's drift note: its group's title and what it says
// of it (Said); Sentence is the two, as a list of notes says it.
type DiffDrift struct {
	Note           *compare.DriftNote
	Group, Said    string
	Sentence       string
	Baseline       string
	Moved          []string
	DeltaPct, PVal float64
}

// NewDiff says what a diff found.
func NewDiff(rep *compare.DiffReport) *DiffDocument {
	d := &DiffDocument{Diff: rep, Old: rep.Old, New: rep.New, LeftOut: results.LeftOutText(rep.LeftOut)}
	for _, a := range rep.Failed() {
		d.Failures = append(d.Failures, armName(a)+" "+failureText(a.Failure))
	}
	for _, p := range rep.Problems {
		d.Problems = append(d.Problems, explain.ProblemText(p, "OLD", "NEW"))
	}
	d.Between = betweenText(rep.Between)
	d.Facts = diffFacts(rep)
	for _, nc := range rep.Neighbours {
		d.Neighbours = append(d.Neighbours, DiffNeighbour{Text: explain.NeighbourPhrase(nc), Lost: !nc.Grew})
	}
	for i := range rep.Arms {
		d.Arms = append(d.Arms, diffArm(&rep.Arms[i]))
	}
	for i := range rep.Drift {
		d.Drift = append(d.Drift, driftNote(&rep.Drift[i]))
	}
	for _, g := range rep.Groups() {
		dg := DiffGroup{Title: groupTitle(g[0]), Rate: g[0].Rate}
		if n := rep.DriftOf(g); n != nil {
			dg.Drift = driftNote(n).Said
		}
		for _, a := range g {
			dg.Rows = append(dg.Rows, DiffRow{Arm: a.Arm, Ops: diffCells(a.OpsPerS, a, results.Rate), Ratio: diffCells(a.Ratio, a, results.Ratio),
				Status: a.Status})
		}
		d.Groups = append(d.Groups, dg)
	}
	d.sayChanges()
	d.Gated, d.Gate = gateWords(rep)
	return d
}

// armName names an arm with its lab, as a gate and a failure do:
// "modes/mkstemp-fsync (go)".
func armName(a *compare.ArmDiff) string { return a.Lab + "/" + explain.ArmLabel(a.Kind, a.CaseID) }

// failureText says what an arm lost in NEW, after its name.
func failureText(f *compare.Failure) string {
	if f.Error == "" {
		return fmt.Sprintf("exited non-zero in %d of %d runs in NEW (none in OLD)", f.FailedRuns, f.Runs)
	}
	of := ""
	if f.Planned > 0 {
		of = fmt.Sprintf(" of %d", f.Planned)
	}
	return fmt.Sprintf("failed in NEW after %d%s rounds (%s)", f.Rounds, of, errtext.FirstLine(f.Error))
}

// betweenText says where the spread between runs came from.
func betweenText(b *compare.Between) string {
	if b == nil {
		return ""
	}
	runs := fmt.Sprintf("%d earlier run", len(b.Runs.Runs))
	if len(b.Runs.Runs) != 1 {
		runs += "s"
	}
	runs += " like it in " + b.Runs.From
	switch b.Side {
	case compare.BetweenNew:
		return "as NEW's intervals do (" + runs + ")"
	case compare.BetweenOld:
		return "as OLD's intervals do (" + runs + ")"
	}
	return "as a run saved beside NEW's would (" + runs + ")"
}

// groupTitle names an arm's group: "modes lab · go · /tmp · payload
// 400 B", with both work dirs when they differ.
func groupTitle(a *compare.ArmDiff) string {
	switch a.Kind {
	case results.KindTrace:
		// A trace has no runtime, dir or payload: name what was traced.
		return "trace · " + a.Arm
	case results.KindCompare:
		return "compared commands, per run"
	}
	dirs := a.OldDir
	switch {
	case a.OldDir == "":
		dirs = a.NewDir
	case a.NewDir != "" && a.NewDir != a.OldDir:
		dirs = a.OldDir + " → " + a.NewDir
	}
	return explain.GroupTitle(a.Lab, a.Runtime, dirs, a.ParamTitle())
}

// diffArm says what the diff found of an arm.
func diffArm(a *compare.ArmDiff) DiffArm {
	out := DiffArm{Arm: a, Label: explain.ArmLabel(a.Kind, a.CaseID)}
	for _, t := range a.Terms {
		var names []string
		for _, c := range t.Culprits {
			names = append(names, explain.CulpritText(c))
		}
		out.TermCulprits = append(out.TermCulprits, names)
	}
	said := armSaid(a)
	if w := a.Work; w != nil {
		out.WorkHeadline = w.Headline(a.Unit)
		for _, c := range w.Culprits {
			out.WorkCulprits = append(out.WorkCulprits, explain.CulpritText(c))
		}
		if w.Headed() && (a.Changed() || a.Status == compare.StatusWithStorage || w.MoreOrLess()) {
			// The exact counts first: they hold where the timing beside
			// them may be within noise.
			said = out.WorkHeadline + "; " + said
		}
	}
	if g := a.RunQueue; g != nil {
		for _, nc := range g.Neighbours {
			out.RunQueue = append(out.RunQueue, explain.NeighbourShort(nc))
		}
		said += "; " + g.Clause(a.Unit)
	}
	out.Sentence = out.Label + ": " + said
	return out
}

// armSaid is what an arm's sentence says after its label, of its status.
func armSaid(a *compare.ArmDiff) string {
	what := a.Rate
	if a.JudgedBy == "ratio" {
		what = "ratio to " + a.BaselineArm
	}
	j := a.Judged()
	switch {
	case a.Status == compare.StatusOnlyOld || a.Status == compare.StatusOnlyNew:
		return string(a.Status)
	case a.Status == compare.StatusFailed:
		return explain.FailedSentence(errtext.FirstLine(a.OldError + " " + a.NewError))
	case a.WithGroup:
		return explain.WithGroupSentence(a.Rate, *a.OpsPerS, a.BaselineArm, a.Ratio)
	case a.Status == compare.StatusDrift:
		return explain.DriftBaselineSentence(a.Rate, *a.OpsPerS)
	case a.Status == compare.StatusTooFew && a.Unit == "run":
		return explain.WholeTraceSentence(a.ChangePct)
	case a.Status == compare.StatusTooFew:
		return explain.TooFewSentence(what, *j, results.MinRoundsToCompare)
	case a.Status == compare.StatusNoise:
		return explain.NoiseSentence(what, *j)
	case a.Status == compare.StatusWithBaseline:
		return explain.WithBaselineSentence(what, a.Rate, *j, *a.OwnRate)
	case a.Status == compare.StatusWithStorage:
		return explain.WithStorageSentence(what, *j)
	}
	return explain.ChangeSentence(explain.ChangeHeadline(*j, what), float64(a.NewWall-a.OldWall), a.Unit, a.Terms, a.Extras, a.WorkMoved())
}

// driftNote says a group's drift note.
func driftNote(n *compare.DriftNote) DiffDrift {
	base := n.Baseline
	out := DiffDrift{Note: n, Group: groupTitle(base), Baseline: base.Arm, DeltaPct: base.OpsPerS.DeltaPct, PVal: base.OpsPerS.P}
	for _, a := range n.Moved {
		out.Moved = append(out.Moved, a.Arm)
	}
	switch n.Kind {
	case compare.DriftEnvironment:
		var causes, with []string
		for _, c := range n.Causes {
			causes = append(causes, explain.CauseText(c))
		}
		for _, a := range n.With {
			with = append(with, a.Arm)
		}
		out.Said = explain.EnvironmentShiftSentence(base.Arm, *base.OpsPerS, n.Lo, n.Hi, causes, with)
	default:
		var carried []string
		for _, a := range n.Carried {
			carried = append(carried, explain.CarriedArm(a.Arm, a.Rate, *a.OpsPerS))
		}
		out.Said = explain.DriftSentence(base.Arm, *base.OpsPerS, out.Moved, carried)
	}
	out.Sentence = out.Group + ": " + out.Said
	return out
}

// diffCells are a comparison's cells, or the arm's short status where it
// has none because it failed or ran in one run only.
func diffCells(c *results.Comparison, a *compare.ArmDiff, f func(float64) string) DiffCells {
	if c == nil {
		return DiffCells{Delta: shortStatus[a.Status]}
	}
	cell := func(e results.Estimate) string {
		s := f(e.Center)
		if e.Bounded() && e.Lo != e.Hi {
			s += " [" + f(e.Lo) + "–" + f(e.Hi) + "]"
		}
		return s
	}
	out := DiffCells{Known: true, Arrow: f(c.Old.Center) + "→" + f(c.New.Center), Old: cell(c.Old), New: cell(c.New),
		Change: results.SignedPct(c.DeltaPct), P: results.PValue(c.P)}
	switch c.Verdict {
	case results.VerdictTooFew:
		// A trace is one sample a side: its change, with how few samples
		// stand behind it, says more than "too few" beside "6→6".
		n := min(c.NOld, c.NNew)
		out.Delta = fmt.Sprintf("%s n=%d", results.SignedPct(c.DeltaPct), n)
		out.Change += fmt.Sprintf(" (n=%d)", n)
	case results.VerdictSame:
		out.Delta, out.Change = "~ p="+results.PValue(c.P), "~"
	default:
		out.Delta = results.SignedPct(c.DeltaPct) + " p=" + results.PValue(c.P)
	}
	return out
}

// shortStatus fits the table; the sentences below it say the rest.
var shortStatus = map[compare.Status]string{compare.StatusOnlyOld: "only OLD", compare.StatusOnlyNew: "only NEW", compare.StatusFailed: "failed"}

// sayChanges says the changes: the arms that changed on their own, those
// too few rounds judge, and what arms said alike within noise.
func (d *DiffDocument) sayChanges() {
	rep := d.Diff
	byArm := map[*compare.ArmDiff]*DiffArm{}
	for i := range d.Arms {
		byArm[d.Arms[i].Arm] = &d.Arms[i]
	}
	// An arm that moved with its group is said in the group's note.
	withGroup := 0
	for _, a := range rep.Changed() {
		if a.WithGroup {
			withGroup++
			continue
		}
		d.Changed = append(d.Changed, byArm[a].Sentence)
	}
	rule := fmt.Sprintf("p < %g and %g%% or more", rep.Alpha, rep.MinEffectPct)
	switch {
	case len(d.Changed) > 0:
		more := ""
		if withGroup > 0 {
			more = fmt.Sprintf("; %d more with their group, above", withGroup)
		}
		d.ChangedHead = fmt.Sprintf("Changed (%s), %d of %d%s:", rule, len(d.Changed), len(rep.Arms), more)
	case withGroup > 0:
		d.ChangedHead = fmt.Sprintf("No arm changed beyond its group (%s).", rule)
	default:
		d.ChangedHead = fmt.Sprintf("No arm changed (%s).", rule)
	}
	var few []string
	for i := range rep.Arms {
		if a := &rep.Arms[i]; a.Status == compare.StatusTooFew {
			few = append(few, d.Arms[i].Label)
		}
	}
	if len(few) > 0 {
		d.TooFew = fmt.Sprintf("Too few rounds to judge (need %d a side): %s.", results.MinRoundsToCompare, strings.Join(few, ", "))
	}
	d.Tellable = tellable(rep)
	// Arms that said the same are said together: one line for every arm
	// that allocates inodes on ext4, one for the CPU neighbour.
	var work, rq, storage []string
	workArms, rqArms, rqMost, storageArms := map[string][]string{}, map[string][]string{}, map[string]float64{}, map[string][]string{}
	for i := range rep.Arms {
		a := &rep.Arms[i]
		if a.Changed() {
			continue
		}
		if a.Status == compare.StatusWithStorage {
			h := d.Arms[i].WorkHeadline
			if storageArms[h] == nil {
				storage = append(storage, h)
			}
			storageArms[h] = append(storageArms[h], a.Arm)
		}
		if a.WorkMoved() {
			h := d.Arms[i].WorkHeadline
			if workArms[h] == nil {
				work = append(work, h)
			}
			workArms[h] = append(workArms[h], a.Arm)
		}
		if g := a.RunQueue; g != nil {
			who := g.Who()
			if rqArms[who] == nil {
				rq = append(rq, who)
			}
			rqArms[who] = append(rqArms[who], a.Arm)
			rqMost[who] = max(rqMost[who], float64(g.Delta))
		}
	}
	for _, h := range work {
		names := workArms[h]
		if len(names) > 3 {
			names = append(names[:2:2], fmt.Sprintf("%d more", len(names)-2))
		}
		d.WorkToo = append(d.WorkToo, fmt.Sprintf("Work per op changed too: %s: %s", strings.Join(names, ", "), h))
	}
	for _, h := range storage {
		d.Storage = append(d.Storage, explain.StorageLine(storageArms[h], h))
	}
	for _, who := range rq {
		arms := fmt.Sprintf("%d arms", len(rqArms[who]))
		if len(rqArms[who]) == 1 {
			arms = rqArms[who][0]
		}
		d.RunQueue = append(d.RunQueue, fmt.Sprintf("Run-queue wait grew in %s within noise, up to %s µs/op: %s.", arms,
			results.SignedMicros(rqMost[who]), who))
	}
	d.SameDirection = sameDirection(rep, d.moved())
}

// moved says a work dir moved to another file system or device, and the
// work dirs' difference says where: the sentences then name the move.
func (d *DiffDocument) moved() bool {
	dirs, move := false, false
	for _, f := range d.Facts {
		dirs, move = dirs || f.InMove, move || f.Move
	}
	return dirs && move
}

// sameDirection points at the preflight when it differs and every real
// change went the same way: one cause for all is likelier than many.
func sameDirection(rep *compare.DiffReport, moved bool) string {
	changed := rep.Changed()
	if len(rep.Preflight) == 0 || len(changed) < 2 || moved {
		return "" // none, or a dir's move, which the sentences name
	}
	for _, a := range changed[1:] {
		if a.Status != changed[0].Status {
			return ""
		}
	}
	return fmt.Sprintf("All %d changed arms %s: look at the preflight differences first.", len(changed), changed[0].Status)
}

// gateWords say why the gate fails, each, and its verdict; nil and ""
// when the diff does not gate.
func gateWords(rep *compare.DiffReport) (reasons []string, verdict string) {
	g := rep.Gate
	if g == nil {
		return nil, ""
	}
	for _, r := range rep.Gated {
		reasons = append(reasons, reasonText(r))
	}
	on := ""
	if g.On == compare.GateWork {
		on = " --gate work"
	}
	switch {
	case len(reasons) == 0 && on != "":
		return nil, fmt.Sprintf("No arm's work per op changed by %g%% or more.", g.ThresholdPct)
	case len(reasons) == 0:
		return nil, fmt.Sprintf("No arm regressed by %g%% or more.", g.ThresholdPct)
	}
	return reasons, fmt.Sprintf("Fails%s --threshold %g: %s", on, g.ThresholdPct, strings.Join(reasons, "; "))
}

// reasonText says one reason a gate fails.
func reasonText(r compare.GateReason) string {
	a := r.Arm
	switch r.Kind {
	case compare.ReasonIncomplete:
		return "NEW is incomplete"
	case compare.ReasonNoArms:
		return "NEW has no arms"
	case compare.ReasonFailed:
		return armName(a) + " " + failureText(a.Failure)
	case compare.ReasonMissing:
		return armName(a) + " is missing from NEW"
	case compare.ReasonLost:
		return armName(a) + " failed in NEW"
	case compare.ReasonNoThroughput:
		return armName(a) + " has no throughput in NEW"
	case compare.ReasonTraceFell:
		return explain.TraceFell(armName(a), a.ChangePct)
	case compare.ReasonTooFew:
		return armName(a) + " has too few rounds to judge"
	case compare.ReasonUntraced:
		return armName(a) + ": its work cannot be judged (not traced in both runs)"
	case compare.ReasonWorkTooFew:
		return armName(a) + ": its work cannot be judged (too few rounds)"
	case compare.ReasonWorkChanged:
		var over []string
		for _, c := range r.Over {
			over = append(over, c.Text(a.Unit))
		}
		return armName(a) + ": " + a.Work.Verdict + ": " + strings.Join(over, ", ")
	}
	return armName(a)
}

// tellable says what change the arms within noise could show against
// the spread between runs: "Within noise: against the spread between
// runs here, one run a side tells changes of 20% (NamedTemporaryFile) to
// 2404% (mkstemp-fsync) or more, …; a change of 5% in 6 of these arms
// needs both sides measured in one run, where the rounds pair them"; ""
// when every such arm already tells the minimum effect, or none has a
// spread between runs.
func tellable(rep *compare.DiffReport) string {
	type arm struct {
		name       string
		now, limit float64
	}
	var arms []arm
	for i := range rep.Arms {
		a := &rep.Arms[i]
		j := a.Judged()
		if a.Status != compare.StatusNoise || j == nil || j.Between == nil {
			continue
		}
		now, limit := j.Between.Tellable()
		arms = append(arms, arm{explain.ArmLabel(a.Kind, a.CaseID), now, limit})
	}
	if len(arms) == 0 {
		return ""
	}
	best := slices.MinFunc(arms, func(x, y arm) int { return cmp.Compare(x.now, y.now) })
	worst := slices.MaxFunc(arms, func(x, y arm) int { return cmp.Compare(x.now, y.now) })
	if worst.now*100 <= rep.MinEffectPct {
		return ""
	}
	out := "Within noise: against the spread between runs here, one run a side tells changes of " + results.Share(best.now)
	if best != worst {
		out += fmt.Sprintf(" (%s) to %s (%s)", best.name, results.Share(worst.now), worst.name)
	}
	out += " or more"
	lo := slices.MinFunc(arms, func(x, y arm) int { return cmp.Compare(x.limit, y.limit) }).limit
	hi := slices.MaxFunc(arms, func(x, y arm) int { return cmp.Compare(x.limit, y.limit) }).limit
	out += " (with more runs saved beside, " + results.Share(lo)
	if results.Share(lo) != results.Share(hi) {
		out += " to " + results.Share(hi)
	}
	out += " at best)"
	if n := len(slices.DeleteFunc(slices.Clone(arms), func(x arm) bool { return x.limit*100 <= rep.MinEffectPct })); n > 0 {
		out += fmt.Sprintf("; a change of %g%% in %d of these %d arms needs both sides measured in one run, where the rounds pair them", rep.MinEffectPct, n, len(arms))
	}
	return out + "."
}
