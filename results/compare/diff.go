package compare

import (
	"slices"
	"sort"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// Status is how an arm came out of a diff.
type Status string

// Arm statuses in a diff.
const (
	StatusRegressed Status = "regressed"
	StatusImproved  Status = "improved"
	StatusNoise     Status = "within noise"
	StatusTooFew    Status = "too few samples"
	StatusDrift     Status = "moved with the machine" // a baseline arm that moved, judged with its group
	// StatusWithBaseline is an arm whose ratio moved only because its
	// baseline did: its own throughput did not change with it.
	StatusWithBaseline Status = "moved with the baseline"
	// StatusWithStorage is an arm that did the same work in the same
	// setting, whose change is mostly one time per request of the
	// storage (a device's, ext4's inode allocation, a journal commit)
	// that moved alike in every arm making those requests, with no
	// neighbour named: a shared disk's speed and a file system's state
	// move between runs on their own (#43), and counts say the workload
	// did not.
	StatusWithStorage Status = "moved with the storage"
	StatusOnlyOld     Status = "only in OLD"
	StatusOnlyNew     Status = "only in NEW"
	StatusFailed      Status = "failed"
)

// DefaultMinEffectPct is the smallest change a diff reports, besides
// being significant: benchstat's significance alone flags a real but
// negligible 1%.
const DefaultMinEffectPct = results.MinEffectPct

// DiffReport is what a diff of two runs found: judgement only, in types.
// What it says is results/report's DiffDocument, made from it once.
type DiffReport struct {
	// Old and New name the runs, as the user named them.
	Old, New string
	// Kind is the kind of the runs compared (NEW's).
	Kind results.RunKind
	// Problems are why the runs compare only in part.
	Problems []explain.Problem
	// Preflight lists every difference of the environment: the work
	// dirs first, then those the mechanism ties to a changed term
	// (Explains), then the rest.
	Preflight []FactChange
	// Neighbours are the other tasks that appeared, grew or vanished
	// between the runs, over all traced batches.
	Neighbours []explain.NeighbourChange
	// Drift is, per group whose baseline arm moved, what the move means.
	Drift        []DriftNote
	Arms         []ArmDiff
	MinEffectPct float64
	Alpha        float64
	// Gate is what fails the diff; nil when it does not gate.
	Gate *Gate
	// Between is where the spread between runs the tests count came
	// from; nil when none did.
	Between *Between
	// LeftOut are the runs beside NEW that were not taken for
	// replicates, and why.
	LeftOut []results.LeftOut
	// Gated are why the gate fails: nil when it passes.
	Gated []GateReason
}

// ArmDiff is one aligned arm: its throughput and its ratio to the lab's
// baseline in both runs, each compared round by round, and, when the arm
// changed, the decomposition of Δ wall per op.
type ArmDiff struct {
	// CaseID is the arm's case, as OLD ran it (as NEW did when only NEW
	// ran it): its payload and size are what sentences compare, never
	// Param.
	results.CaseID
	Param string // as benchmark names spell it
	// Kind is the kind of the runs compared: a command's arm is named by
	// its command alone.
	Kind           results.RunKind
	OldDir, NewDir string
	Baseline       bool   // the lab's baseline arm
	BaselineArm    string // the lab's baseline arm, what its ratio is to
	Status         Status
	Lost           bool // ran in OLD, failed in NEW
	// WithGroup: it moved with its group when the environment changed,
	// its ratio to the baseline unchanged; the group's note says it.
	WithGroup bool
	// Failure is what NEW's arm lost though it has figures: its worker
	// failed after some rounds, or its command exited non-zero in runs
	// where OLD's did not; nil when nothing.
	Failure *Failure
	// OldError and NewError are why an arm failed (StatusFailed): each
	// run's error, "" for the run whose arm has figures.
	OldError, NewError string
	Unit               string
	Rate               string // "ops/s", or "MiB/s" for the buffers lab
	// OpsPerS compares the headline throughput (in Rate units);
	// Ratio the ratio to the baseline arm, paired per round in each run;
	// OwnRate the throughput by the arm's generations alone, without the
	// spread between runs (what says a ratio moved with its baseline).
	OpsPerS, Ratio, OwnRate *results.Comparison
	// JudgedBy names the comparison the status comes from: the ratio
	// when the arm has one in both runs (the machine's drift cancels in
	// it), else the throughput.
	JudgedBy         string
	ChangePct        float64
	OldWall, NewWall results.NsPerOp
	Terms            []explain.Term
	Extras           []explain.Detail
	// Work is the arm's work per op in the two runs: more, less, or the
	// same (and then what got slower per unit of it); nil where a run
	// traced nothing of the arm.
	Work *explain.Work
	// RunQueue is the arm's run-queue wait, when it grew, with the CPU
	// neighbours that appeared in the run.
	RunQueue *explain.RunQueueGrowth
}

// Judged is the comparison the arm's status comes from.
func (d *ArmDiff) Judged() *results.Comparison {
	if d.JudgedBy == "ratio" {
		return d.Ratio
	}
	return d.OpsPerS
}

// Changed reports whether the arm regressed or improved.
func (d *ArmDiff) Changed() bool { return d.Status == StatusRegressed || d.Status == StatusImproved }

// WorkMoved reports whether the arm's work per op changed.
func (d *ArmDiff) WorkMoved() bool { return d.Work != nil && d.Work.MoreOrLess() }

// Between is where the spread between runs a diff's tests count came
// from: NEW's intervals, OLD's, or measured as a run saved beside NEW
// would have (Side), over Runs.
type Between struct {
	Side BetweenSide
	Runs *results.BetweenRuns
}

// BetweenSide says whose spread between runs a diff counts.
type BetweenSide uint8

const (
	BetweenNew BetweenSide = iota + 1
	BetweenOld
	BetweenBeside
)

// betweenSource is where the spread between runs the tests count comes
// from; nil when there is none.
func betweenSource(prev, cur *results.Run, measured *results.BetweenRuns) *Between {
	switch {
	case cur.Derived.Between.Measured():
		return &Between{BetweenNew, cur.Derived.Between}
	case prev.Derived.Between.Measured():
		return &Between{BetweenOld, prev.Derived.Between}
	case measured.Measured():
		return &Between{BetweenBeside, measured}
	}
	return nil
}

// Diff aligns the arms of two runs by lab, arm, runtime, parameter (and
// work dir, when both runs used the same ones) and judges each change.
// baseline names each lab's baseline arm; gate (nil: none) fails it.
func Diff(oldName string, prev *results.Run, newName string, cur *results.Run, baseline map[string]string, minEffectPct float64, gate *Gate) *DiffReport {
	return DiffWith(oldName, prev, newName, cur, baseline, Options{MinEffectPct: minEffectPct, Gate: gate})
}

// Options are how a diff judges two runs.
type Options struct {
	MinEffectPct float64
	// Gate fails the diff; nil: it does not gate.
	Gate *Gate
	// History are saved runs like NEW, for the spread between runs of
	// the cases neither run recorded one for (see Between): those
	// that started after NEW, and NEW itself, are left out.
	History     []results.EarlierRun
	HistoryFrom string
	// LeftOut are the runs beside NEW that are not replicates of it.
	LeftOut []results.LeftOut
}

// DiffWith is Diff with every option.
func DiffWith(oldName string, prev *results.Run, newName string, cur *results.Run, baseline map[string]string, opt Options) *DiffReport {
	minEffectPct := opt.MinEffectPct
	rep := &DiffReport{Old: oldName, New: newName, Kind: cur.Kind, MinEffectPct: minEffectPct, Alpha: results.Alpha, Gate: opt.Gate,
		LeftOut: opt.LeftOut}
	rep.Preflight = factChanges(prev, cur)
	rep.Problems = comparability(prev, cur)
	baseline = results.CommandBaseline(cur, baseline) // a comparison names its own
	so, sn := results.SummarizeAll(prev, baseline), results.SummarizeAll(cur, baseline)
	spread, from := spreadsOf(prev, cur, sn, baseline, opt)
	rep.Between = from
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
	rep.Neighbours = explain.NeighbourChanges(wholeRun(so), wholeRun(sn))
	for i := range pairs { // rep.Arms is complete: its arms stay put
		pairs[i].d = &rep.Arms[pairs[i].i]
	}
	judgeWorkOf(pairs, rep.Preflight, rep.Neighbours, cur, minEffectPct)
	rep.Drift = withoutStorageMoves(rep.Drift)
	rep.Gated = rep.gate(cur)
	// The work dirs stay first (they say where each run ran); then the
	// differences that explain a change, then the rest.
	rank := func(f FactChange) int {
		switch {
		case f.Fact == results.FactWorkDirs:
			return 0
		case len(f.Explains) > 0:
			return 1
		}
		return 2
	}
	sort.SliceStable(rep.Preflight, func(i, j int) bool { return rank(rep.Preflight[i]) < rank(rep.Preflight[j]) })
	return rep
}

// comparability finds what makes two runs compare only in part.
func comparability(prev, cur *results.Run) []explain.Problem {
	var out []explain.Problem
	for side, run := range []*results.Run{prev, cur} {
		switch {
		case len(run.Arms) == 0:
			out = append(out, explain.Problem{Kind: explain.ProblemNoArms, Side: side})
		case !run.Complete:
			out = append(out, explain.Problem{Kind: explain.ProblemIncomplete, Side: side})
		}
	}
	if ol, nl := labsOf(prev), labsOf(cur); len(prev.Arms) > 0 && len(cur.Arms) > 0 && ol != nl {
		out = append(out, explain.Problem{Kind: explain.ProblemLabs, OldLabs: ol, NewLabs: nl})
	}
	return out
}

func labsOf(run *results.Run) string {
	return strings.Join(inOrder(run, func(a *results.ArmResult) string { return a.Lab }), ", ")
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
		if rep.Arms[i].Changed() {
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

// Groups splits the arms, in run order, by lab, runtime, parameter and
// work dirs, as the reports group them.
func (rep *DiffReport) Groups() [][]*ArmDiff {
	arms := make([]*ArmDiff, len(rep.Arms))
	for i := range rep.Arms {
		arms[i] = &rep.Arms[i]
	}
	return results.GroupInOrder(arms, (*ArmDiff).group)
}

// groupKey is what an arm's group is: a trace's command; the compared
// commands, together; else the lab, runtime, work dirs and parameter.
type groupKey struct {
	kind         results.RunKind
	arm          string
	lab, runtime string
	oldDir       string
	newDir       string
	payload      int
	size         int
}

func (d *ArmDiff) group() groupKey {
	switch d.Kind {
	case results.KindTrace:
		return groupKey{kind: d.Kind, arm: d.Arm}
	case results.KindCompare:
		return groupKey{kind: d.Kind}
	}
	k := groupKey{kind: d.Kind, lab: d.Lab, runtime: d.Runtime, oldDir: d.OldDir, payload: d.PayloadBytes, size: d.SizeBytes}
	switch {
	case d.OldDir == "":
		k.oldDir = d.NewDir
	case d.NewDir != "" && d.NewDir != d.OldDir:
		k.newDir = d.NewDir
	}
	if k.lab == results.LabCompare {
		k.payload, k.size = 0, 0
	}
	return k
}

// DriftOf is the drift note of a group, nil when none.
func (rep *DiffReport) DriftOf(g []*ArmDiff) *DriftNote {
	for i := range rep.Drift {
		if slices.Contains(g, rep.Drift[i].Baseline) {
			return &rep.Drift[i]
		}
	}
	return nil
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

func spreadsOf(prev, cur *results.Run, sn []*results.Summary, baseline map[string]string, opt Options) (sp spreads, from *Between) {
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
				return c.OpsSpread(), c.RatioSpread()
			}
		}
		return results.Spread{}, results.Spread{}
	}, from
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
	d := ArmDiff{CaseID: ref.CaseID, Param: ref.Param(), Kind: kind, Unit: ref.Unit(), Rate: "ops/s",
		Baseline: baseline[ref.Lab] == ref.Arm, BaselineArm: baseline[ref.Lab]}
	if ref.SizeBytes > 0 {
		d.Rate = "MiB/s"
	}
	switch {
	case sn == nil:
		d.OldDir, d.Status = so.Dir, StatusOnlyOld
		return d
	case so == nil:
		d.NewDir, d.Status = sn.Dir, StatusOnlyNew
		return d
	}
	d.OldDir, d.NewDir = so.Dir, sn.Dir
	if !so.OpsPerS.Known() || !sn.OpsPerS.Known() {
		d.Status, d.Lost = StatusFailed, so.OpsPerS.Known()
		d.OldError, d.NewError = so.Error, sn.Error
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
	byRatio := !slices.ContainsFunc(env, movesNumbers) && !d.WorkMoved()
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
	d.OwnRate = &ownRate
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
	// Counts are exact where timings are not: an arm whose work per op
	// changed has its terms and their culprits tied even when its time
	// is within noise (nobarrier takes fsync's flushes 2 → 0 whether or
	// not the shared disk let the gain show).
	if so.Traced != nil && sn.Traced != nil && (d.WorkMoved() || (d.Status != StatusTooFew && d.Status != StatusNoise && d.Status != StatusWithBaseline)) {
		c := explain.Decompose(so, sn, false)
		d.Terms, d.Extras = c.Terms, c.Extras
		explain.TieCulprits(explain.Explained{Kind: kind, Arm: d.CaseID}, d.Terms, env, so, sn)
	}
	return d
}
