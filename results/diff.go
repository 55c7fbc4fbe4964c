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
	StatusOnlyOld   = "only in OLD"
	StatusOnlyNew   = "only in NEW"
	StatusFailed    = "failed"
)

// noSpreadPct is the change that counts as real when a side has a single
// headline batch (or came from a CSV) and so no spread to judge by.
const noSpreadPct = 5.0

// DiffReport is what changed between two runs.
type DiffReport struct {
	Old          string       `json:"old"`
	New          string       `json:"new"`
	Preflight    []FactChange `json:"preflight_differences,omitempty"`
	Arms         []ArmDiff    `json:"arms"`
	ThresholdPct float64      `json:"threshold_pct,omitempty"`
	Gated        []string     `json:"regressed_beyond_threshold,omitempty"`
}

// ArmDiff is one aligned arm: its throughput change and, when the change
// is beyond the run-to-run spread, the decomposition of Δ wall per op.
type ArmDiff struct {
	Lab         string       `json:"lab"`
	Arm         string       `json:"arm"`
	Runtime     string       `json:"runtime"`
	Param       string       `json:"param"`
	SizeBytes   int          `json:"size_bytes,omitempty"`
	OldDir      string       `json:"old_dir,omitempty"`
	NewDir      string       `json:"new_dir,omitempty"`
	Status      string       `json:"status"`
	Unit        string       `json:"unit"`
	Rate        string       `json:"rate"` // "ops/s", or "MB/s" for the buffers lab
	OldOpsPerS  float64      `json:"old_ops_per_s"`
	NewOpsPerS  float64      `json:"new_ops_per_s"`
	OldRange    [2]float64   `json:"old_ops_per_s_min_max"`
	NewRange    [2]float64   `json:"new_ops_per_s_min_max"`
	SpreadKnown bool         `json:"spread_known"`
	ChangePct   float64      `json:"change_pct"`
	OldWall     NsPerOp      `json:"old_wall_ns_per_op"`
	NewWall     NsPerOp      `json:"new_wall_ns_per_op"`
	Terms       []ChangeTerm `json:"terms,omitempty"`
	Extras      []Detail     `json:"extras,omitempty"`
	Sentence    string       `json:"sentence"`
}

// defaultParam is the --payload default; sentences name other payloads.
const defaultParam = "payload=400"

// Label names the arm in a sentence: "mkstemp-fsync (go)",
// "NamedTemporaryFile (python, 16M)".
func (d *ArmDiff) Label() string {
	l := d.Arm + " (" + d.Runtime
	switch {
	case d.SizeBytes > 0:
		l += ", " + Bytes(int64(d.SizeBytes))
	case d.Param != defaultParam:
		l += ", " + strings.Replace(d.Param, "=", " ", 1)
	}
	return l + ")"
}

// Rates gives the figures of the table in the lab's unit: ops/s, or MB/s
// for the buffers lab. Zero when absent.
func (d *ArmDiff) Rates() (oldV float64, oldR [2]float64, newV float64, newR [2]float64) {
	k := 1.0
	if d.SizeBytes > 0 {
		k = float64(d.SizeBytes) / (1 << 20)
	}
	return d.OldOpsPerS * k, [2]float64{d.OldRange[0] * k, d.OldRange[1] * k},
		d.NewOpsPerS * k, [2]float64{d.NewRange[0] * k, d.NewRange[1] * k}
}

// Diff aligns the arms of two runs by lab, arm, runtime, parameter (and
// work dir, when both runs used the same ones) and explains each change.
// thresholdPct > 0 gates: arms that regressed by more are listed in Gated.
func Diff(oldName string, prev *Run, newName string, cur *Run, thresholdPct float64) *DiffReport {
	rep := &DiffReport{Old: oldName, New: newName, ThresholdPct: thresholdPct}
	rep.Preflight = Preflight(prev, cur)
	oldKey, newKey := alignKeys(prev, cur)
	newByKey := map[string]*ArmResult{}
	for i := range cur.Arms {
		if k := newKey(&cur.Arms[i]); newByKey[k] == nil {
			newByKey[k] = &cur.Arms[i]
		}
	}
	matched := map[*ArmResult]bool{}
	for i := range prev.Arms {
		o := &prev.Arms[i]
		n := newByKey[oldKey(o)]
		if n != nil && matched[n] {
			n = nil // a duplicate key in OLD: the NEW arm is taken
		}
		if n != nil {
			matched[n] = true
		}
		rep.Arms = append(rep.Arms, diffArm(o, n))
	}
	for i := range cur.Arms {
		if n := &cur.Arms[i]; !matched[n] {
			rep.Arms = append(rep.Arms, diffArm(nil, n))
		}
	}
	for _, d := range rep.Changed() {
		if thresholdPct > 0 && d.Status == StatusRegressed && -d.ChangePct >= thresholdPct {
			rep.Gated = append(rep.Gated, d.Lab+"/"+d.Label())
		}
	}
	return rep
}

// Changed lists the arms that changed beyond the spread: regressions,
// worst first, then improvements, best first.
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

func diffArm(prev, cur *ArmResult) ArmDiff {
	ref := prev
	if ref == nil {
		ref = cur
	}
	d := ArmDiff{Lab: ref.Lab, Arm: ref.Arm, Runtime: ref.Runtime, Param: ref.Param(), SizeBytes: ref.SizeBytes,
		Unit: "op", Rate: "ops/s"}
	if ref.SizeBytes > 0 {
		d.Unit, d.Rate = "round", "MB/s"
	}
	switch {
	case cur == nil:
		d.OldDir, d.Status = prev.Dir, StatusOnlyOld
	case prev == nil:
		d.NewDir, d.Status = cur.Dir, StatusOnlyNew
	}
	if d.Status != "" {
		d.Sentence = d.Label() + ": " + d.Status
		return d
	}
	d.OldDir, d.NewDir = prev.Dir, cur.Dir
	so, sn := Summarize(prev, ""), Summarize(cur, "")
	if !so.OpsPerS.Known() || !sn.OpsPerS.Known() {
		d.Status = StatusFailed
		d.Sentence = fmt.Sprintf("%s: no throughput to compare (%s)", d.Label(), firstLine(prev.Error+" "+cur.Error))
		return d
	}
	d.OldOpsPerS, d.NewOpsPerS = round1(so.OpsPerS.Center), round1(sn.OpsPerS.Center)
	d.OldRange, d.NewRange = [2]float64{round1(so.OpsPerS.Lo), round1(so.OpsPerS.Hi)}, [2]float64{round1(sn.OpsPerS.Lo), round1(sn.OpsPerS.Hi)}
	d.ChangePct = roundTo((sn.OpsPerS.Center/so.OpsPerS.Center-1)*100, 100)
	d.SpreadKnown = so.OpsPerS.Bounded() && sn.OpsPerS.Bounded()
	real := math.Abs(d.ChangePct) >= noSpreadPct
	if d.SpreadKnown {
		real = sn.OpsPerS.Hi < so.OpsPerS.Lo || sn.OpsPerS.Lo > so.OpsPerS.Hi
	}
	switch {
	case !real:
		d.Status = StatusNoise
	case d.ChangePct < 0:
		d.Status = StatusRegressed
	default:
		d.Status = StatusImproved
	}
	d.OldWall, d.NewWall = NsPerOp(so.WallNsPerOp), NsPerOp(sn.WallNsPerOp)
	head := fmt.Sprintf("%s %s", signedPct(d.ChangePct), d.Rate)
	if !real {
		d.Sentence = fmt.Sprintf("%s: within noise (%s)", d.Label(), head)
		return d
	}
	if so.Traced != nil && sn.Traced != nil {
		d.Terms, d.Extras = DecomposeChange(so, sn)
	}
	d.Sentence = ChangeSentence(d.Label(), head, float64(d.NewWall-d.OldWall), d.Unit, d.Terms, d.Extras)
	return d
}

// headlineBatches counts the batches the headline ops/s comes from.
func headlineBatches(a *ArmResult) int {
	traced, untraced := 0, 0
	for _, b := range a.Batches {
		if b.Traced {
			traced++
		} else {
			untraced++
		}
	}
	if untraced > 0 {
		return untraced
	}
	return traced
}

// ChangeSentence says a change in one sentence: "mkstemp-fsync (go): −63%
// ops/s; +190 µs/op, of which fsync +185 µs (off-CPU waiting for the
// device +180 µs), unlink +4.1 µs, other +0.9 µs".
func ChangeSentence(label, headline string, deltaNs float64, unit string, terms []ChangeTerm, extras []Detail) string {
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
		if i >= 4 || math.Abs(d) < 0.05*sumAbs || math.Abs(d) < 1 {
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
