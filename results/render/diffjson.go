package render

import (
	"io"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/explain"
	"github.com/tmpprobe/tmpprobe/results/report"
)

// DiffJSON is a diff for machines: the judgement's figures (integer ns
// per op) with the document's words where it says something, and every
// sentence the terminal says.
type DiffJSON struct {
	Old          string          `json:"old"`
	New          string          `json:"new"`
	Problems     []string        `json:"problems,omitempty"`
	Preflight    []DiffFactJSON  `json:"preflight_differences,omitempty"`
	Neighbours   []string        `json:"neighbours,omitempty"`
	Drift        []DiffDriftJSON `json:"drift,omitempty"`
	Arms         []DiffArmJSON   `json:"arms"`
	MinEffectPct float64         `json:"min_effect_pct"`
	Alpha        float64         `json:"alpha"`
	// ThresholdPct and Gate are the gate; no threshold when the diff
	// does not gate.
	ThresholdPct *float64 `json:"threshold_pct,omitempty"`
	Gate         string   `json:"gate"`
	BetweenRuns  string   `json:"between_runs,omitempty"`
	LeftOut      string   `json:"left_out,omitempty"`
	Gated        []string `json:"gated,omitempty"`
	// The rest of what the diff says: its failed arms, the head of its
	// changes, the arms too few rounds judge, what arms said alike within
	// noise, and the gate's verdict.
	Failures      []string `json:"failures,omitempty"`
	Changed       string   `json:"changed"`
	TooFew        string   `json:"too_few,omitempty"`
	Tellable      string   `json:"tellable,omitempty"`
	Storage       []string `json:"with_storage,omitempty"`
	WorkToo       []string `json:"work_too,omitempty"`
	RunQueue      []string `json:"run_queue,omitempty"`
	SameDirection string   `json:"same_direction,omitempty"`
	Verdict       string   `json:"verdict,omitempty"`
}

// DiffFactJSON is a difference of the environment.
type DiffFactJSON struct {
	Name      string         `json:"name"`
	Old       string         `json:"old"`
	New       string         `json:"new"`
	Added     []string       `json:"added,omitempty"`
	Removed   []string       `json:"removed,omitempty"`
	Explains  []string       `json:"explains,omitempty"`
	Move      string         `json:"move,omitempty"`
	Phrase    string         `json:"phrase,omitempty"`
	Short     string         `json:"short,omitempty"`
	StandsFor []DiffFactJSON `json:"stands_for,omitempty"`
}

// DiffDriftJSON is a group's drift note.
type DiffDriftJSON struct {
	Group    string   `json:"group"`
	Baseline string   `json:"baseline"`
	DeltaPct float64  `json:"delta_pct"`
	P        float64  `json:"p"`
	Moved    []string `json:"ratio_changed"`
	Sentence string   `json:"sentence"`
}

// DiffArmJSON is an arm of the diff.
type DiffArmJSON struct {
	results.CaseID
	Param     string              `json:"param"`
	Kind      results.RunKind     `json:"kind,omitempty"`
	OldDir    string              `json:"old_dir,omitempty"`
	NewDir    string              `json:"new_dir,omitempty"`
	Baseline  bool                `json:"baseline,omitempty"`
	Status    compare.Status      `json:"status"`
	Lost      bool                `json:"lost,omitempty"`
	WithGroup bool                `json:"with_group,omitempty"`
	Failure   *compare.Failure    `json:"failure_in_new,omitempty"`
	Unit      string              `json:"unit"`
	Rate      string              `json:"rate"`
	OpsPerS   *results.Comparison `json:"ops_per_s,omitempty"`
	Ratio     *results.Comparison `json:"ratio,omitempty"`
	JudgedBy  string              `json:"judged_by,omitempty"`
	ChangePct float64             `json:"change_pct"`
	OldWall   results.NsPerOp     `json:"old_wall_ns_per_op"`
	NewWall   results.NsPerOp     `json:"new_wall_ns_per_op"`
	Terms     []DiffTermJSON      `json:"terms,omitempty"`
	Extras    []explain.Detail    `json:"extras,omitempty"`
	Work      *DiffWorkJSON       `json:"work,omitempty"`
	RunQueue  *DiffRunQueueJSON   `json:"run_queue,omitempty"`
	Sentence  string              `json:"sentence"`
}

// DiffTermJSON is a term of an arm's change, with its culprits named.
type DiffTermJSON struct {
	explain.Term
	Culprits []string `json:"culprits,omitempty"`
}

// DiffWorkJSON is an arm's work per op.
type DiffWorkJSON struct {
	Verdict  string              `json:"verdict"`
	Changed  []explain.WorkCount `json:"changed,omitempty"`
	Headline string              `json:"headline,omitempty"`
	Unit     *explain.UnitTime   `json:"unit_time,omitempty"`
	Culprits []string            `json:"culprits,omitempty"`
}

// DiffRunQueueJSON is an arm's run-queue wait that grew, and with whom.
type DiffRunQueueJSON struct {
	Delta      results.NsPerOp `json:"delta_ns_per_op"`
	Neighbours []string        `json:"neighbours"`
}

// WriteDiffJSON writes the diff for machines.
func WriteDiffJSON(w io.Writer, d *report.DiffDocument) error { return WriteJSON(w, NewDiffJSON(d)) }

// NewDiffJSON lays the document out for machines.
func NewDiffJSON(d *report.DiffDocument) DiffJSON {
	rep := d.Diff
	out := DiffJSON{Old: d.Old, New: d.New, Problems: d.Problems, Arms: []DiffArmJSON{}, MinEffectPct: rep.MinEffectPct, Alpha: rep.Alpha,
		Gate: compare.GateTime, BetweenRuns: d.Between, LeftOut: d.LeftOut, Gated: d.Gated,
		Failures: d.Failures, Changed: d.ChangedHead, TooFew: d.TooFew, Tellable: d.Tellable, Storage: d.Storage, WorkToo: d.WorkToo, RunQueue: d.RunQueue,
		SameDirection: d.SameDirection, Verdict: d.Gate}
	if g := rep.Gate; g != nil {
		pct := g.ThresholdPct
		out.ThresholdPct, out.Gate = &pct, g.On
	}
	for _, f := range d.Facts {
		out.Preflight = append(out.Preflight, factOf(f))
	}
	for _, n := range d.Neighbours {
		out.Neighbours = append(out.Neighbours, n.Text)
	}
	for _, n := range d.Drift {
		out.Drift = append(out.Drift, DiffDriftJSON{Group: n.Group, Baseline: n.Baseline, DeltaPct: n.DeltaPct, P: n.PVal, Moved: n.Moved, Sentence: n.Sentence})
	}
	for _, a := range d.Arms {
		out.Arms = append(out.Arms, armOf(a))
	}
	return out
}

func factOf(f report.DiffFact) DiffFactJSON {
	c := f.Fact
	out := DiffFactJSON{Name: c.Name, Old: c.Old, New: c.New, Added: c.Added, Removed: c.Removed, Explains: f.Explains, Move: c.Move,
		Phrase: f.Phrase, Short: f.Short}
	for _, s := range f.StandsFor {
		out.StandsFor = append(out.StandsFor, factOf(s))
	}
	return out
}

func armOf(da report.DiffArm) DiffArmJSON {
	a := da.Arm
	out := DiffArmJSON{CaseID: a.CaseID, Param: a.Param, Kind: a.Kind, OldDir: a.OldDir, NewDir: a.NewDir, Baseline: a.Baseline,
		Status: a.Status, Lost: a.Lost, WithGroup: a.WithGroup, Failure: a.Failure, Unit: a.Unit, Rate: a.Rate,
		OpsPerS: a.OpsPerS, Ratio: a.Ratio, JudgedBy: a.JudgedBy, ChangePct: a.ChangePct, OldWall: a.OldWall, NewWall: a.NewWall,
		Extras: a.Extras, Sentence: da.Sentence}
	for i, t := range a.Terms {
		out.Terms = append(out.Terms, DiffTermJSON{Term: t, Culprits: da.TermCulprits[i]})
	}
	if w := a.Work; w != nil {
		out.Work = &DiffWorkJSON{Verdict: w.Verdict, Changed: w.Changed, Headline: da.WorkHeadline, Unit: w.Unit, Culprits: da.WorkCulprits}
	}
	if g := a.RunQueue; g != nil {
		out.RunQueue = &DiffRunQueueJSON{Delta: g.Delta, Neighbours: da.RunQueue}
	}
	return out
}
