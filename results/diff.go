package results

import (
	"fmt"
	"math"
	"sort"
	"strings"
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
const DefaultMinEffectPct = 5.0

// DiffReport is what changed between two runs.
type DiffReport struct {
	Old       string       `json:"old"`
	New       string       `json:"new"`
	Problems  []string     `json:"problems,omitempty"` // why the runs compare only in part
	Preflight []FactChange `json:"preflight_differences,omitempty"`
	// Drift is, per group whose baseline arm moved, the sentence that
	// puts the change on the machine or the environment.
	Drift        []DriftNote `json:"drift,omitempty"`
	Arms         []ArmDiff   `json:"arms"`
	MinEffectPct float64     `json:"min_effect_pct"`
	Alpha        float64     `json:"alpha"`
	ThresholdPct float64     `json:"threshold_pct,omitempty"`
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
	Lab       string `json:"lab"`
	Arm       string `json:"arm"`
	Runtime   string `json:"runtime"`
	Param     string `json:"param"`
	SizeBytes int    `json:"size_bytes,omitempty"`
	OldDir    string `json:"old_dir,omitempty"`
	NewDir    string `json:"new_dir,omitempty"`
	Baseline  bool   `json:"baseline,omitempty"` // the lab's baseline arm
	Status    string `json:"status"`
	Lost      bool   `json:"lost,omitempty"` // ran in OLD, failed in NEW
	Unit      string `json:"unit"`
	Rate      string `json:"rate"` // "ops/s", or "MB/s" for the buffers lab
	// OpsPerS compares the headline throughput (in Rate units);
	// Ratio the ratio to the baseline arm, paired per round in each run.
	OpsPerS *Comparison `json:"ops_per_s,omitempty"`
	Ratio   *Comparison `json:"ratio,omitempty"`
	// JudgedBy names the comparison the status comes from: the ratio
	// when the arm has one in both runs (the machine's drift cancels in
	// it), else the throughput.
	JudgedBy  string   `json:"judged_by,omitempty"`
	ChangePct float64  `json:"change_pct"`
	OldWall   NsPerOp  `json:"old_wall_ns_per_op"`
	NewWall   NsPerOp  `json:"new_wall_ns_per_op"`
	Terms     []Term   `json:"terms,omitempty"`
	Extras    []Detail `json:"extras,omitempty"`
	Sentence  string   `json:"sentence"`
}

// defaultParam is the --payload default; sentences name other payloads.
const defaultParam = "payload=400"

// Label names the arm in a sentence: "mkstemp-fsync (go)",
// "NamedTemporaryFile (python, 16M)".
func (d *ArmDiff) Label() string {
	if d.Lab == "trace" {
		return d.Arm
	}
	l := d.Arm + " (" + d.Runtime
	switch {
	case d.SizeBytes > 0:
		l += ", " + Bytes(int64(d.SizeBytes))
	case d.Param != defaultParam:
		l += ", " + strings.Replace(d.Param, "=", " ", 1)
	}
	return l + ")"
}

// Judged is the comparison the arm's status comes from.
func (d *ArmDiff) Judged() *Comparison {
	if d.JudgedBy == "ratio" {
		return d.Ratio
	}
	return d.OpsPerS
}

// Diff aligns the arms of two runs by lab, arm, runtime, parameter (and
// work dir, when both runs used the same ones) and explains each change.
// baseline names each lab's baseline arm. thresholdPct > 0 gates: arms
// that regressed by more, an incomplete NEW and arms NEW lost are listed
// in Gated.
func Diff(oldName string, prev *Run, newName string, cur *Run, baseline map[string]string, minEffectPct, thresholdPct float64) *DiffReport {
	rep := &DiffReport{Old: oldName, New: newName, MinEffectPct: minEffectPct, Alpha: Alpha, ThresholdPct: thresholdPct}
	rep.Preflight = Preflight(prev, cur)
	rep.Problems = comparability(prev, cur)
	so, sn := SummarizeAll(prev, baseline), SummarizeAll(cur, baseline)
	oldKey, newKey := alignKeys(prev, cur)
	newByKey := map[string]*Summary{}
	for _, s := range sn {
		if k := newKey(s.ArmResult); newByKey[k] == nil {
			newByKey[k] = s
		}
	}
	matched := map[*Summary]bool{}
	for _, o := range so {
		n := newByKey[oldKey(o.ArmResult)]
		if n != nil && matched[n] {
			n = nil // a duplicate key in OLD: the NEW arm is taken
		}
		if n != nil {
			matched[n] = true
		}
		rep.Arms = append(rep.Arms, diffArm(o, n, baseline, minEffectPct))
	}
	for _, n := range sn {
		if !matched[n] {
			rep.Arms = append(rep.Arms, diffArm(nil, n, baseline, minEffectPct))
		}
	}
	rep.Drift = drift(rep)
	rep.gate(cur)
	return rep
}

// comparability names what makes two runs compare only in part.
func comparability(prev, cur *Run) []string {
	var out []string
	for _, side := range []struct {
		name string
		run  *Run
	}{{"OLD", prev}, {"NEW", cur}} {
		switch {
		case len(side.run.Arms) == 0:
			out = append(out, side.name+" has no arms: nothing to compare")
		case !side.run.Complete:
			out = append(out, side.name+" is incomplete (interrupted, or saved before it finished): its arms may lack rounds")
		}
	}
	if ol, nl := labsOf(prev), labsOf(cur); len(prev.Arms) > 0 && len(cur.Arms) > 0 && ol != nl {
		out = append(out, fmt.Sprintf("the runs ran different labs (OLD: %s; NEW: %s)", ol, nl))
	}
	return out
}

func labsOf(run *Run) string {
	var labs []string
	seen := map[string]bool{}
	for _, a := range run.Arms {
		if !seen[a.Lab] {
			seen[a.Lab] = true
			labs = append(labs, a.Lab)
		}
	}
	return strings.Join(labs, ", ")
}

// gate lists what fails --threshold.
func (rep *DiffReport) gate(cur *Run) {
	if rep.ThresholdPct <= 0 {
		return
	}
	if !cur.Complete {
		rep.Gated = append(rep.Gated, "NEW is incomplete")
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
		case d.Status == StatusTooFew && d.Unit != "run":
			// A gate that cannot judge must not pass as if it had.
			rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label()+" has too few rounds to judge")
		}
	}
	for _, d := range rep.Changed() {
		if d.Status == StatusRegressed && -d.ChangePct >= rep.ThresholdPct {
			rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label())
		}
	}
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

// rateSamples are the per-round headline figures of an arm in its lab's
// unit (MB/s for the buffers lab).
func rateSamples(s *Summary) []float64 {
	k := 1.0
	if s.SizeBytes > 0 {
		k = float64(s.SizeBytes) / (1 << 20)
	}
	var out []float64
	for _, r := range s.Rounds {
		if v := r.headline(); v > 0 {
			out = append(out, v*k)
		}
	}
	return out
}

func ratioSamples(s *Summary) []float64 {
	var out []float64
	for _, r := range s.Rounds {
		if r.Ratio > 0 {
			out = append(out, r.Ratio)
		}
	}
	return out
}

func diffArm(so, sn *Summary, baseline map[string]string, minEffectPct float64) ArmDiff {
	ref := so
	if ref == nil {
		ref = sn
	}
	d := ArmDiff{Lab: ref.Lab, Arm: ref.Arm, Runtime: ref.Runtime, Param: ref.Param(), SizeBytes: ref.SizeBytes,
		Unit: ref.Unit(), Rate: "ops/s", Baseline: baseline[ref.Lab] == ref.Arm}
	if ref.SizeBytes > 0 {
		d.Rate = "MB/s"
	}
	switch {
	case sn == nil:
		d.OldDir, d.Status = so.Dir, StatusOnlyOld
	case so == nil:
		d.NewDir, d.Status = sn.Dir, StatusOnlyNew
	}
	if d.Status != "" {
		d.Sentence = d.Label() + ": " + d.Status
		return d
	}
	d.OldDir, d.NewDir = so.Dir, sn.Dir
	if !so.OpsPerS.Known() || !sn.OpsPerS.Known() {
		d.Status, d.Lost = StatusFailed, so.OpsPerS.Known()
		d.Sentence = fmt.Sprintf("%s: no throughput to compare (%s)", d.Label(), firstLine(so.Error+" "+sn.Error))
		return d
	}
	rates := Compare(rateSamples(so), rateSamples(sn), minEffectPct)
	d.OpsPerS, d.JudgedBy = &rates, "ops/s"
	if ro, rn := ratioSamples(so), ratioSamples(sn); !d.Baseline && len(ro) > 0 && len(rn) > 0 {
		ratios := Compare(ro, rn, minEffectPct)
		d.Ratio, d.JudgedBy = &ratios, "ratio"
	}
	j := d.Judged()
	d.ChangePct = j.DeltaPct
	switch {
	case j.Verdict == VerdictTooFew || rates.Verdict == VerdictTooFew:
		d.Status = StatusTooFew
	case j.Verdict == VerdictSame:
		d.Status = StatusNoise
	case d.JudgedBy == "ratio" && (rates.Verdict != VerdictChanged || (rates.DeltaPct < 0) != (j.DeltaPct < 0)):
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
	d.OldWall, d.NewWall = NsPerOp(so.WallNsPerOp), NsPerOp(sn.WallNsPerOp)
	what := d.Rate
	if d.JudgedBy == "ratio" {
		what = "ratio to " + baseline[d.Lab]
	}
	head := fmt.Sprintf("%s %s (p=%s)", signedPct(d.ChangePct), what, pValue(j.P))
	switch d.Status {
	case StatusTooFew:
		d.Sentence = fmt.Sprintf("%s: %s %s; too few rounds to judge (%d and %d, need %d a side)", d.Label(),
			signedPct(d.ChangePct), what, j.Old.N, j.New.N, MinRoundsToCompare)
		if d.Unit == "run" {
			d.Sentence = fmt.Sprintf("%s: %s wall time; a whole trace is one sample (compare the regions it marks)",
				d.Label(), signedPct(-d.ChangePct))
		}
		return d
	case StatusNoise:
		d.Sentence = fmt.Sprintf("%s: ~ %s (p=%s)", d.Label(), what, pValue(j.P))
		return d
	case StatusWithBaseline:
		d.Sentence = fmt.Sprintf("%s: %s %s (p=%s), but its own %s %s: its baseline moved", d.Label(),
			signedPct(j.DeltaPct), what, pValue(j.P), d.Rate, comparisonPhrase(rates))
		return d
	}
	if so.Traced != nil && sn.Traced != nil {
		c := Decompose(so, sn, false)
		d.Terms, d.Extras = c.Terms, c.Extras
	}
	d.Sentence = ChangeSentence(d.Label(), head, float64(d.NewWall-d.OldWall), d.Unit, d.Terms, d.Extras)
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
	for _, g := range diffGroups(rep) {
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
					carried = append(carried, fmt.Sprintf("%s (%s %s)", d.Arm, signedPct(d.OpsPerS.DeltaPct), d.Rate))
				}
			}
		}
		if base == nil || others == 0 || base.OpsPerS == nil || base.OpsPerS.Verdict != VerdictChanged {
			continue
		}
		n := DriftNote{Group: groupTitle(base), Baseline: base.Arm, DeltaPct: base.OpsPerS.DeltaPct, P: base.OpsPerS.P,
			Moved: moved}
		way := "faster"
		if n.DeltaPct < 0 {
			way = "slower"
		}
		pct := strings.TrimLeft(signedPct(n.DeltaPct), "+−")
		var parts []string
		switch {
		case len(moved) == 0 && len(carried) == 0:
			parts = append(parts, fmt.Sprintf("everything got %s %s (the machine or the environment: %s %s, p=%s); relative to %s nothing changed",
				pct, way, base.Arm, signedPct(n.DeltaPct), pValue(n.P), base.Arm))
		case len(carried) > 0:
			parts = append(parts, fmt.Sprintf("%s itself got %s %s (p=%s), and the ratios of %s moved with it, not with their own throughput",
				base.Arm, pct, way, pValue(n.P), strings.Join(carried, ", ")))
		default:
			parts = append(parts, fmt.Sprintf("%s itself got %s %s (p=%s), the machine or the environment", base.Arm, pct, way, pValue(n.P)))
		}
		if len(moved) > 0 {
			parts = append(parts, strings.Join(moved, ", ")+" changed on its own")
		}
		n.Sentence = n.Group + ": " + strings.Join(parts, "; ") + "."
		base.Status = StatusDrift
		base.Sentence = fmt.Sprintf("%s: %s %s (p=%s), with its group: see the drift note", base.Label(),
			signedPct(n.DeltaPct), base.Rate, pValue(n.P))
		out = append(out, n)
	}
	return out
}

// comparisonPhrase says how a comparison came out: "~ (p=0.432)" or
// "+3.1% (p=0.002)".
func comparisonPhrase(c Comparison) string {
	if c.Verdict == VerdictChanged {
		return fmt.Sprintf("%s (p=%s)", signedPct(c.DeltaPct), pValue(c.P))
	}
	return fmt.Sprintf("%s, ~ (p=%s)", signedPct(c.DeltaPct), pValue(c.P))
}

// pValue prints a p-value as benchstat does, to three places.
func pValue(p float64) string {
	return fmt.Sprintf("%.3f", p)
}

// ChangeSentence says a change in one sentence: "mkstemp-fsync (go): −63%
// ratio to TemporaryFile (p=0.002); +190 µs/op, of which fsync +185 µs
// (off-CPU waiting for the device +180 µs), unlink +4.1 µs, other +0.9 µs".
func ChangeSentence(label, headline string, deltaNs float64, unit string, terms []Term, extras []Detail) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", label, headline)
	if len(terms) == 0 {
		return b.String()
	}
	fmt.Fprintf(&b, "; %s µs/%s", signedMicros(deltaNs), unit)
	var sumAbs float64
	for _, t := range terms {
		sumAbs += math.Abs(float64(t.Delta))
	}
	var parts []string
	var rest float64
	for i, t := range terms {
		d := float64(t.Delta)
		if i >= 4 || t.Noise || math.Abs(d) < 0.05*sumAbs || math.Abs(d) < 1 {
			rest += d
			continue
		}
		p := t.Name + " " + signedMicros(d) + " µs"
		if det := detailText(t.Details, d); det != "" {
			p += " (" + det + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) > 0 {
		if math.Abs(rest) >= 0.05*sumAbs && math.Abs(rest) >= 1 {
			parts = append(parts, "other "+signedMicros(rest)+" µs")
		}
		b.WriteString(", of which " + strings.Join(parts, ", "))
	}
	if ex := detailText(extras, 0); ex != "" {
		b.WriteString("; also " + ex)
	}
	return b.String()
}

// detailText lists the details that moved: times that are a tenth or more
// of the term's change, and counts that changed by 5% or more.
func detailText(ds []Detail, termNs float64) string {
	var parts []string
	for _, d := range ds {
		if len(parts) == 3 {
			break
		}
		delta := d.Delta()
		if d.Unit == "ns" {
			if math.Abs(delta) >= math.Max(0.1*math.Abs(termNs), 100) {
				parts = append(parts, d.Name+" "+signedMicros(delta)+" µs")
			}
			continue
		}
		if math.Abs(delta) >= 0.01 && math.Abs(delta) >= 0.05*math.Max(math.Abs(d.Old), math.Abs(d.New)) {
			parts = append(parts, fmt.Sprintf("%s/op %s → %s", d.Name, perOp(d.Old), perOp(d.New)))
		}
	}
	return strings.Join(parts, "; ")
}

func perOp(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

// signedMicros renders ns as µs with an explicit sign (− is U+2212, as in
// prose).
func signedMicros(ns float64) string {
	if ns < 0 {
		return "−" + Micros(-ns)
	}
	return "+" + Micros(ns)
}

func signedPct(p float64) string {
	sign := "+"
	if math.Round(p*10) == 0 {
		p = 0 // not "+-0.0%"
	}
	if p < 0 {
		sign, p = "−", -p
	}
	if p >= 10 {
		return fmt.Sprintf("%s%.0f%%", sign, p)
	}
	return fmt.Sprintf("%s%.1f%%", sign, p)
}
