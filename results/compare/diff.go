package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/errtext"
	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// Arm statuses in a diff.
const (
	StatusRegressed = "regressed"
	StatusImproved  = "improved"
	StatusNoise     = "within noise"
	StatusTooFew    = "too few samples"
	StatusDrift     = "moved with the machine" // a baseline arm that moved, judged with its group
	// StatusWithBaseline is an arm whose ratio moved only because its
	// baseline did: its own throughput did not change with it.
	StatusWithBaseline = "moved with the baseline"
	StatusOnlyOld      = "only in OLD"
	StatusOnlyNew      = "only in NEW"
	StatusFailed       = "failed"
)

// DefaultMinEffectPct is the smallest change a diff reports, besides
// being significant: benchstat's significance alone flags a real but
// negligible 1%.
const DefaultMinEffectPct = results.MinEffectPct

// DiffReport is what changed between two runs.
type DiffReport struct {
	Old      string   `json:"old"`
	New      string   `json:"new"`
	Problems []string `json:"problems,omitempty"` // why the runs compare only in part
	// Preflight lists every difference of the environment: those the
	// mechanism ties to a changed term first (Explains), then the rest.
	Preflight []FactChange `json:"preflight_differences,omitempty"`
	// Neighbours are the other tasks that appeared, grew or vanished
	// between the runs, over all traced batches, with their share.
	Neighbours []string `json:"neighbours,omitempty"`
	// Drift is, per group whose baseline arm moved, the sentence that
	// puts the change on the machine or the environment.
	Drift        []DriftNote `json:"drift,omitempty"`
	Arms         []ArmDiff   `json:"arms"`
	MinEffectPct float64     `json:"min_effect_pct"`
	Alpha        float64     `json:"alpha"`
	// ThresholdPct is --threshold, nil when the diff does not gate.
	ThresholdPct *float64 `json:"threshold_pct,omitempty"`
	// Gate is what --threshold fails on: GateTime or GateWork.
	Gate string `json:"gate"`
	// BetweenRuns says where the spread between runs the tests count came
	// from ("" when none did).
	BetweenRuns string `json:"between_runs,omitempty"`
	// LeftOut says which runs beside NEW were not taken for replicates,
	// and why ("2 runs beside it left out: mounted nobarrier").
	LeftOut string `json:"left_out,omitempty"`
	// Gated is why --threshold fails: arms that regressed by it or more,
	// an incomplete NEW run, arms NEW lost, arms too few rounds judge.
	Gated []string `json:"gated,omitempty"`
}

// DriftNote is a group whose baseline arm's throughput changed.
type DriftNote struct {
	Group    string  `json:"group"`
	Baseline string  `json:"baseline"`
	DeltaPct float64 `json:"delta_pct"`
	P        float64 `json:"p"`
	// Moved are the arms of the group whose ratio to the baseline changed.
	Moved    []string `json:"ratio_changed"`
	Sentence string   `json:"sentence"`
}

// ArmDiff is one aligned arm: its throughput and its ratio to the lab's
// baseline in both runs, each compared round by round, and, when the arm
// changed, the decomposition of Δ wall per op.
type ArmDiff struct {
	// CaseID is the arm's case, as OLD ran it (as NEW did when only NEW
	// ran it): its payload and size are what sentences compare, never
	// Param.
	results.CaseID
	Param string `json:"param"` // as benchmark names spell it
	// Kind is the kind of the runs compared: a command's arm is named by
	// its command alone.
	Kind     results.RunKind `json:"kind,omitempty"`
	OldDir   string          `json:"old_dir,omitempty"`
	NewDir   string          `json:"new_dir,omitempty"`
	Baseline bool            `json:"baseline,omitempty"` // the lab's baseline arm
	Status   string          `json:"status"`
	Lost     bool            `json:"lost,omitempty"` // ran in OLD, failed in NEW
	// WithGroup: it moved with its group when the environment changed,
	// its ratio to the baseline unchanged; the group's note says it.
	WithGroup bool `json:"with_group,omitempty"`
	// Failure is what NEW's arm lost though it has figures: its worker
	// failed after some rounds, or its command exited non-zero in runs
	// where OLD's did not; nil when nothing.
	Failure *Failure `json:"failure_in_new,omitempty"`
	Unit    string   `json:"unit"`
	Rate    string   `json:"rate"` // "ops/s", or "MiB/s" for the buffers lab
	// OpsPerS compares the headline throughput (in Rate units);
	// Ratio the ratio to the baseline arm, paired per round in each run.
	OpsPerS *results.Comparison `json:"ops_per_s,omitempty"`
	Ratio   *results.Comparison `json:"ratio,omitempty"`
	// JudgedBy names the comparison the status comes from: the ratio
	// when the arm has one in both runs (the machine's drift cancels in
	// it), else the throughput.
	JudgedBy  string           `json:"judged_by,omitempty"`
	ChangePct float64          `json:"change_pct"`
	OldWall   results.NsPerOp  `json:"old_wall_ns_per_op"`
	NewWall   results.NsPerOp  `json:"new_wall_ns_per_op"`
	Terms     []explain.Term   `json:"terms,omitempty"`
	Extras    []explain.Detail `json:"extras,omitempty"`
	// Work is the arm's work per op in the two runs: more, less, or the
	// same (and then what got slower per unit of it); nil where a run
	// traced nothing of the arm.
	Work *explain.Work `json:"work,omitempty"`
	// RunQueue is the arm's run-queue wait, when it grew, with the CPU
	// neighbours that appeared in the run.
	RunQueue *explain.RunQueueGrowth `json:"run_queue,omitempty"`
	// Sentence says it all, the arm's label first; said is what follows
	// the label, kept apart so that clauses join it without parsing the
	// sentence back.
	Sentence string `json:"sentence"`
	said     string
}

// say sets the arm's sentence: its label, then what is said of it.
func (d *ArmDiff) say(said string) {
	d.said, d.Sentence = said, d.Label()+": "+said
}

// defaultPayload is the --payload default; sentences name other payloads.
const defaultPayload = 400

// Label names the arm in a sentence: "mkstemp-fsync (go)",
// "NamedTemporaryFile (python, 16 MiB)".
func (d *ArmDiff) Label() string {
	if d.Kind.OfCommands() {
		return d.Arm
	}
	l := d.Arm + " (" + d.Runtime
	switch {
	case d.SizeBytes > 0:
		l += ", " + results.Size(float64(d.SizeBytes))
	case d.PayloadBytes != defaultPayload:
		l += ", payload " + results.Size(float64(d.PayloadBytes))
	}
	return l + ")"
}

// Judged is the comparison the arm's status comes from.
func (d *ArmDiff) Judged() *results.Comparison {
	if d.JudgedBy == "ratio" {
		return d.Ratio
	}
	return d.OpsPerS
}

// Diff aligns the arms of two runs by lab, arm, runtime, parameter (and
// work dir, when both runs used the same ones) and explains each change.
// baseline names each lab's baseline arm. A thresholdPct of 0 or more
// gates (NoGate does not): arms that regressed by it or more, an
// incomplete or empty NEW and arms NEW lost are listed in Gated.
func Diff(oldName string, prev *results.Run, newName string, cur *results.Run, baseline map[string]string, minEffectPct, thresholdPct float64) *DiffReport {
	return DiffWith(oldName, prev, newName, cur, baseline, Options{MinEffectPct: minEffectPct, ThresholdPct: thresholdPct})
}

// Gates: what --gate fails on.
const (
	// GateTime fails on an arm that regressed in time (the default).
	GateTime = "time"
	// GateWork fails on an arm whose work per op changed, whatever its
	// time did: the gate for a machine whose speed moves (#29).
	GateWork = "work"
)

// Options are how a diff judges two runs.
type Options struct {
	MinEffectPct float64
	// ThresholdPct gates (0 included); NoGate does not.
	ThresholdPct float64
	// Gate is GateTime ("" too) or GateWork.
	Gate string
	// History are saved runs like NEW, for the spread between runs of
	// the cases neither run recorded one for (see BetweenRuns): those
	// that started after NEW, and NEW itself, are left out.
	History     []results.EarlierRun
	HistoryFrom string
	// LeftOut are the runs beside NEW that are not replicates of it.
	LeftOut []results.LeftOut
}

// DiffWith is Diff with every option.
func DiffWith(oldName string, prev *results.Run, newName string, cur *results.Run, baseline map[string]string, opt Options) *DiffReport {
	minEffectPct, thresholdPct := opt.MinEffectPct, opt.ThresholdPct
	rep := &DiffReport{Old: oldName, New: newName, MinEffectPct: minEffectPct, Alpha: results.Alpha, Gate: opt.Gate}
	if rep.Gate == "" {
		rep.Gate = GateTime
	}
	if thresholdPct >= 0 {
		rep.ThresholdPct = &thresholdPct
	}
	rep.Preflight = factChanges(prev, cur)
	rep.Problems = comparability(prev, cur)
	baseline = results.CommandBaseline(cur, baseline) // a comparison names its own
	so, sn := results.SummarizeAll(prev, baseline), results.SummarizeAll(cur, baseline)
	spread, from := spreadsOf(prev, cur, sn, baseline, opt)
	rep.BetweenRuns = from
	rep.LeftOut = results.LeftOutText(opt.LeftOut)
	oldKey, newKey := alignKeys(prev, cur)
	newByKey := map[results.CaseID]*results.Summary{}
	for _, s := range sn {
		if k := newKey(s.ArmResult); newByKey[k] == nil {
			newByKey[k] = s
		}
	}
	matched := map[*results.Summary]bool{}
	var pairs []judged
	pair := func(o, n *results.Summary) {
		if rep.Arms[len(rep.Arms)-1].Work != nil {
			pairs = append(pairs, judged{i: len(rep.Arms) - 1, so: o, sn: n})
		}
	}
	for _, o := range so {
		n := newByKey[oldKey(o.ArmResult)]
		if n != nil && matched[n] {
			n = nil // a duplicate key in OLD: the NEW arm is taken
		}
		if n != nil {
			matched[n] = true
		}
		d := diffArm(cur.Kind, o, n, baseline, minEffectPct, rep.Preflight, spread)
		if n != nil && !d.Lost {
			d.Failure = failureOf(o, n, cur.Protocol.Rounds)
		}
		rep.Arms = append(rep.Arms, d)
		pair(o, n)
	}
	for _, n := range sn {
		if !matched[n] {
			rep.Arms = append(rep.Arms, diffArm(cur.Kind, nil, n, baseline, minEffectPct, rep.Preflight, spread))
		}
	}
	for i := range rep.Arms {
		d := &rep.Arms[i]
		d.OldDir, d.NewDir = results.FreshName(prev.Meta, d.OldDir), results.FreshName(cur.Meta, d.NewDir)
	}
	rep.Drift = drift(rep)
	whole := explain.NeighbourChanges(wholeRun(so), wholeRun(sn))
	for i := range pairs { // rep.Arms is complete: its arms stay put
		pairs[i].d = &rep.Arms[pairs[i].i]
	}
	sayWork(pairs, rep.Preflight, whole, cur, minEffectPct)
	rep.gate(cur)
	// The work dirs stay first (they say where each run ran); then the
	// differences that explain a change, then the rest.
	rank := func(f FactChange) int {
		switch {
		case f.Name == "work dirs":
			return 0
		case len(f.Explains) > 0:
			return 1
		}
		return 2
	}
	sort.SliceStable(rep.Preflight, func(i, j int) bool { return rank(rep.Preflight[i]) < rank(rep.Preflight[j]) })
	for _, c := range whole {
		rep.Neighbours = append(rep.Neighbours, c.Phrase)
	}
	return rep
}

// comparability names what makes two runs compare only in part.
func comparability(prev, cur *results.Run) []string {
	var out []string
	for _, side := range []struct {
		name string
		run  *results.Run
	}{{"OLD", prev}, {"NEW", cur}} {
		switch {
		case len(side.run.Arms) == 0:
			out = append(out, side.name+" has no arms: nothing to compare")
		case !side.run.Complete:
			out = append(out, side.name+" is incomplete (interrupted, or saved before it finished): its arms may lack rounds")
		}
	}
	if ol, nl := labsOf(prev), labsOf(cur); len(prev.Arms) > 0 && len(cur.Arms) > 0 && ol != nl {
		out = append(out, explain.DifferentLabs(ol, nl))
	}
	return out
}

func labsOf(run *results.Run) string {
	return strings.Join(inOrder(run, func(a *results.ArmResult) string { return a.Lab }), ", ")
}

// NoGate is Diff's thresholdPct for a diff that does not gate. A
// threshold of 0 gates: it fails on any regression the diff finds.
const NoGate = -1.0

// gate lists what fails --threshold.
func (rep *DiffReport) gate(cur *results.Run) {
	if rep.ThresholdPct == nil {
		return
	}
	threshold := *rep.ThresholdPct
	if !cur.Complete {
		rep.Gated = append(rep.Gated, "NEW is incomplete")
	}
	// Under either gate: an arm that failed in NEW is no pass, whatever
	// its figures before the failure say.
	for _, d := range rep.Failed() {
		rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label()+" "+d.Failure.Text())
	}
	if len(cur.Arms) == 0 {
		rep.Gated = append(rep.Gated, "NEW has no arms")
	}
	for i := range rep.Arms {
		d := &rep.Arms[i]
		switch {
		case d.Status == StatusOnlyOld:
			rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label()+" is missing from NEW")
		case d.Lost:
			rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label()+" failed in NEW")
		case d.Status == StatusTooFew && d.Unit == "run" && d.OpsPerS.NNew == 0:
			rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label()+" has no throughput in NEW")
		case d.Status == StatusTooFew && d.Unit == "run":
			// A whole trace is one sample a side: no test can judge it,
			// so the gate takes the change as it is (its work, below,
			// for --gate work).
			if rep.Gate != GateWork && -d.ChangePct >= threshold {
				rep.Gated = append(rep.Gated, explain.TraceFell(d.Lab+"/"+d.Label(), d.ChangePct))
			}
		case d.Status == StatusTooFew:
			// A gate that cannot judge must not pass as if it had.
			rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label()+" has too few rounds to judge")
		}
	}
	if rep.Gate == GateWork {
		for i := range rep.Arms {
			d := &rep.Arms[i]
			switch {
			case d.Status == StatusOnlyOld || d.Status == StatusOnlyNew || d.Status == StatusFailed ||
				(d.Status == StatusTooFew && (d.Unit != "run" || d.OpsPerS.NNew == 0)):
				// Said above, or NEW's own.
			case d.Work == nil:
				rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label()+": its work cannot be judged (not traced in both runs)")
			case d.Work.Verdict == explain.WorkUnjudged:
				rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label()+": its work cannot be judged (too few rounds)")
			default:
				var over []string
				for _, c := range d.Work.Changed {
					if math.Abs(c.Pct()) >= threshold {
						over = append(over, c.Text(d.Unit))
					}
				}
				if len(over) > 0 {
					rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label()+": "+d.Work.Verdict+": "+strings.Join(over, ", "))
				}
			}
		}
		return
	}
	for _, d := range rep.Changed() {
		if d.Status == StatusRegressed && -d.ChangePct >= threshold {
			rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label())
		}
	}
}

// Failed lists the arms that lost something in NEW though they have
// figures (see Failure).
func (rep *DiffReport) Failed() []*ArmDiff {
	var out []*ArmDiff
	for i := range rep.Arms {
		if rep.Arms[i].Failure != nil {
			out = append(out, &rep.Arms[i])
		}
	}
	return out
}

// Changed lists the arms that changed: regressions, worst first, then
// improvements, best first.
func (rep *DiffReport) Changed() []*ArmDiff {
	var out []*ArmDiff
	for i := range rep.Arms {
		if s := rep.Arms[i].Status; s == StatusRegressed || s == StatusImproved {
			out = append(out, &rep.Arms[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Status != b.Status {
			return a.Status == StatusRegressed
		}
		if a.Status == StatusRegressed {
			return a.ChangePct < b.ChangePct
		}
		return a.ChangePct > b.ChangePct
	})
	return out
}

// rateEstimate is the headline figure as the run prints it, in the lab's
// unit (MiB/s for the buffers lab).
func rateEstimate(s *results.Summary) results.Estimate {
	if s.SizeBytes > 0 {
		return s.MBPerS()
	}
	return s.OpsPerS
}

// spreads give each pair of arms the spread between runs of its ops/s
// and its ratio: the one NEW's intervals include (recorded in its
// run.json), else OLD's, else measured over opt.History as a run saved
// beside those runs would have measured it.
type spreads func(o, n *results.Summary) (ops, ratio results.Spread)

func spreadsOf(prev, cur *results.Run, sn []*results.Summary, baseline map[string]string, opt Options) (sp spreads, from string) {
	var measured *results.BetweenRuns
	var earlier []results.EarlierRun
	for _, e := range opt.History {
		if e.Run != cur && !e.Run.Started.After(cur.Started) && !e.Run.Started.Equal(cur.Started) {
			earlier = append(earlier, e)
		}
	}
	if len(earlier) > 0 {
		measured = results.MeasureBetween(cur, sn, opt.HistoryFrom, earlier, baseline)
	}
	from = betweenSource(prev, cur, measured)
	return func(o, n *results.Summary) (ops, ratio results.Spread) {
		for _, side := range []struct {
			run *results.Run
			b   *results.BetweenRuns
			s   *results.Summary
		}{{cur, cur.Derived.Between, n}, {prev, prev.Derived.Between, o}, {cur, measured, n}} {
			if side.s == nil {
				continue
			}
			if c, ok := side.b.Spread(side.run.CaseKey(side.s.CaseID)); ok {
				return results.Spread{LogSD: c.OpsPerS, Runs: c.Runs}, results.Spread{LogSD: c.Ratio, Runs: c.Runs}
			}
		}
		return results.Spread{}, results.Spread{}
	}, from
}

// betweenSource says where the spread between runs the tests count comes
// from; "" when there is none.
func betweenSource(prev, cur *results.Run, measured *results.BetweenRuns) string {
	runs := func(b *results.BetweenRuns) string {
		s := fmt.Sprintf("%d earlier run", len(b.Runs))
		if len(b.Runs) != 1 {
			s += "s"
		}
		return s + " like it in " + b.From
	}
	switch {
	case cur.Derived.Between.Measured():
		return "as NEW's intervals do (" + runs(cur.Derived.Between) + ")"
	case prev.Derived.Between.Measured():
		return "as OLD's intervals do (" + runs(prev.Derived.Between) + ")"
	case measured.Measured():
		return "as a run saved beside NEW's would (" + runs(measured) + ")"
	}
	return ""
}

// rateSamples are the headline figures of an arm in its lab's unit (MiB/s
// for the buffers lab), one per unit of the run (see results.UnitSummaries).
func rateSamples(s *results.Summary) []float64 {
	k := 1.0
	if s.SizeBytes > 0 {
		k = float64(s.SizeBytes) / (1 << 20)
	}
	return s.UnitSamples(func(r *results.RoundSample) float64 { return r.Headline() * k })
}

// ratioSamples are the per-unit paired ratios of an arm (see
// results.UnitSummaries): the U test then compares independent units, as
// the intervals count them.
func ratioSamples(s *results.Summary) []float64 {
	return s.UnitSamples(func(r *results.RoundSample) float64 { return r.Ratio })
}

// wholeRun pools the traced batches of every arm of a run, for the
// neighbours' shares over the run.
func wholeRun(sums []*results.Summary) *results.Summary {
	pooled := &results.Batch{Traced: true}
	for _, s := range sums {
		if s.Traced != nil {
			pooled.Ops += s.Traced.Ops
			pooled.WallNs += s.Traced.WallNs
			pooled.Records = append(pooled.Records, s.Traced.Records...)
			pooled.Neighbours = results.SumNeighbours(pooled.Neighbours, s.Traced.Neighbours)
		}
	}
	return &results.Summary{ArmResult: &results.ArmResult{}, Traced: pooled}
}

func diffArm(kind results.RunKind, so, sn *results.Summary, baseline map[string]string, minEffectPct float64, env []FactChange, spread spreads) ArmDiff {
	ref := so
	if ref == nil {
		ref = sn
	}
	d := ArmDiff{CaseID: ref.CaseID, Param: ref.Param(), Kind: kind,
		Unit: ref.Unit(), Rate: "ops/s", Baseline: baseline[ref.Lab] == ref.Arm}
	if ref.SizeBytes > 0 {
		d.Rate = "MiB/s"
	}
	switch {
	case sn == nil:
		d.OldDir, d.Status = so.Dir, StatusOnlyOld
	case so == nil:
		d.NewDir, d.Status = sn.Dir, StatusOnlyNew
	}
	if d.Status != "" {
		d.say(d.Status)
		return d
	}
	d.OldDir, d.NewDir = so.Dir, sn.Dir
	if !so.OpsPerS.Known() || !sn.OpsPerS.Known() {
		d.Status, d.Lost = StatusFailed, so.OpsPerS.Known()
		d.say(explain.FailedSentence(errtext.FirstLine(so.Error + " " + sn.Error)))
		return d
	}
	if so.Traced != nil && sn.Traced != nil {
		w := judgeWork(so, sn, minEffectPct)
		d.Work = &w
	}
	opsSpread, ratioSpread := spread(so, sn)
	rates := results.CompareRuns(rateEstimate(so), rateEstimate(sn), rateSamples(so), rateSamples(sn), opsSpread, minEffectPct)
	d.OpsPerS, d.JudgedBy = &rates, "ops/s"
	// The ratio to the baseline cancels a machine that got slower as a
	// whole; it is no judge when the environment changed or the arm's
	// work did: then a slowdown of every arm is the finding, not drift
	// (#43), and each arm is judged by its own throughput.
	byRatio := !slices.ContainsFunc(env, movesNumbers) && (d.Work == nil || !d.Work.MoreOrLess())
	if ro, rn := ratioSamples(so), ratioSamples(sn); !d.Baseline && len(ro) > 0 && len(rn) > 0 {
		ratios := results.CompareRuns(so.Ratio, sn.Ratio, ro, rn, ratioSpread, minEffectPct)
		d.Ratio = &ratios // shown either way
		if byRatio {
			d.JudgedBy = "ratio"
		}
	}
	j := d.Judged()
	d.ChangePct = j.DeltaPct
	// Whether the arm's own throughput moved with its ratio is asked of
	// its generations alone: the spread between runs says how far a
	// whole run moves, which a ratio already cancels, and with it a slow
	// arm on a drifting machine would read as carried by its baseline.
	ownRate := results.CompareRuns(rateEstimate(so), rateEstimate(sn), rateSamples(so), rateSamples(sn), results.Spread{}, minEffectPct)
	switch {
	case j.Verdict == results.VerdictTooFew || rates.Verdict == results.VerdictTooFew:
		d.Status = StatusTooFew
	case j.Verdict == results.VerdictSame:
		d.Status = StatusNoise
	case d.JudgedBy == "ratio" && (ownRate.Verdict != results.VerdictChanged || (ownRate.DeltaPct < 0) != (j.DeltaPct < 0)):
		// The ratio moved but the arm's own throughput did not move with
		// it: the baseline moved. An arm changes only when both say so,
		// as a machine that got slower moves every throughput and no
		// ratio.
		d.Status = StatusWithBaseline
	case j.DeltaPct < 0:
		d.Status = StatusRegressed
	default:
		d.Status = StatusImproved
	}
	d.OldWall, d.NewWall = results.NsPerOp(so.WallNsPerOp), results.NsPerOp(sn.WallNsPerOp)
	what := d.Rate
	if d.JudgedBy == "ratio" {
		what = "ratio to " + baseline[d.Lab]
	}
	// Counts are exact where timings are not: an arm whose work per op
	// changed has its terms and their culprits tied even when its time
	// is within noise (nobarrier takes fsync's flushes 2 → 0 whether or
	// not the shared disk let the gain show).
	workMoved := d.Work != nil && d.Work.MoreOrLess()
	if so.Traced != nil && sn.Traced != nil && (workMoved || (d.Status != StatusTooFew && d.Status != StatusNoise && d.Status != StatusWithBaseline)) {
		c := explain.Decompose(so, sn, false)
		d.Terms, d.Extras = c.Terms, c.Extras
		explain.TieCulprits(d.Label(), d.Terms, env, so, sn)
	}
	switch d.Status {
	case StatusTooFew:
		d.say(explain.TooFewSentence(what, *j, results.MinRoundsToCompare))
		if d.Unit == "run" {
			d.say(explain.WholeTraceSentence(d.ChangePct))
		}
		return d
	case StatusNoise:
		d.say(explain.NoiseSentence(what, *j))
		return d
	case StatusWithBaseline:
		d.say(explain.WithBaselineSentence(what, d.Rate, *j, ownRate))
		return d
	}
	d.say(explain.ChangeSentence(explain.ChangeHeadline(*j, what), float64(d.NewWall-d.OldWall), d.Unit, d.Terms, d.Extras, workMoved))
	return d
}

// drift finds, per group, a baseline arm whose throughput changed, and
// says once what that means for the group: with no ratio moved, the
// machine or the environment moved (every throughput with it); with
// ratios moved but the arms' own throughputs not, the baseline itself
// changed; arms that changed on their own are named. The baseline's
// status says so instead of "regressed".
func drift(rep *DiffReport) []DriftNote {
	var out []DriftNote
	if causes := environmentCauses(rep.Preflight); causes != nil {
		// Not the machine's drift: what changed is named, and every arm
		// was judged by its own throughput.
		for _, g := range rep.Groups() {
			if n, ok := environmentShift(g, causes); ok {
				out = append(out, n)
			}
		}
		return out
	}
	for _, g := range rep.Groups() {
		var base *ArmDiff
		var moved, carried []string
		others := 0
		for _, d := range g {
			switch {
			case d.Baseline:
				base = d
			case d.JudgedBy == "ratio":
				others++
				switch d.Status {
				case StatusRegressed, StatusImproved:
					moved = append(moved, d.Arm)
				case StatusWithBaseline:
					carried = append(carried, explain.CarriedArm(d.Arm, d.Rate, *d.OpsPerS))
				}
			}
		}
		if base == nil || others == 0 || base.OpsPerS == nil || base.OpsPerS.Verdict != results.VerdictChanged ||
			(base.Work != nil && base.Work.MoreOrLess()) {
			continue
		}
		n := DriftNote{Group: base.GroupTitle(), Baseline: base.Arm, DeltaPct: base.OpsPerS.DeltaPct, P: base.OpsPerS.P,
			Moved: moved}
		n.Sentence = explain.DriftSentence(n.Group, base.Arm, *base.OpsPerS, moved, carried)
		base.Status = StatusDrift
		base.say(explain.DriftBaselineSentence(base.Rate, *base.OpsPerS))
		out = append(out, n)
	}
	return out
}

// Groups splits the arms, in run order, by lab, runtime, parameter and
// work dirs, as the reports group them.
func (rep *DiffReport) Groups() [][]*ArmDiff {
	arms := make([]*ArmDiff, len(rep.Arms))
	for i := range rep.Arms {
		arms[i] = &rep.Arms[i]
	}
	return results.GroupInOrder(arms, (*ArmDiff).GroupTitle)
}

// GroupTitle names the arm's group: "modes lab · go · /tmp · payload
// 400B", with both work dirs when they differ.
func (d *ArmDiff) GroupTitle() string {
	switch d.Kind {
	case results.KindTrace:
		// A trace has no runtime, dir or payload: name what was traced.
		return "trace · " + d.Arm
	case results.KindCompare:
		return "compared commands, per run"
	}
	dirs := d.OldDir
	switch {
	case d.OldDir == "":
		dirs = d.NewDir
	case d.NewDir != "" && d.NewDir != d.OldDir:
		dirs = d.OldDir + " → " + d.NewDir
	}
	return explain.GroupTitle(d.Lab, d.Runtime, dirs, d.ParamTitle())
}
