package results

import (
	"encoding/json"
	"errors"
	"strings"
)

// Derived is what tmpprobe concludes from a run beyond what it measured:
// computed outside the record (for a live run by cmd, from the summaries
// and the earlier runs), kept beside it in Run.Derived, and saved in
// run.json under the names its readers (jq) know.
type Derived struct {
	// Between is the spread of each case between this run and earlier
	// runs like it, which its intervals include; nil when none were read
	// (run.json: between_runs).
	Between *BetweenRuns
	// Warnings say what changes what the numbers mean: the host's facts
	// (preflight) and a state that moved a group's ratios across the run
	// (run.json: meta.warnings).
	Warnings []Warning
	// Figures are the arms' headline figures, in the order of Run.Arms,
	// nil where not known (run.json: arms[].figures). tmpprobe writes
	// them for readers and recomputes them from the batches, except for
	// a run rebuilt from a syscalls.csv: its one round stands in for the
	// batches, and the file's figures describe the run it came from.
	Figures []*Figures
	// Neighbours sums the arms' for readers (run.json: neighbours);
	// tmpprobe recomputes them from the batches.
	Neighbours []Neighbour
}

// FiguresOf is the recorded figures of the i-th arm, or nil.
func (d *Derived) FiguresOf(i int) *Figures {
	if i < len(d.Figures) {
		return d.Figures[i]
	}
	return nil
}

// runJSON is run.json: the run's own fields as they are, and the derived
// ones where readers find them: each arm's figures last in the arm, the
// warnings last in meta, the neighbours summed before the arms, the
// spread between runs last. encoding/json writes a struct's fields in
// the order of their index, an embedded struct's in place of it, and a
// field named again outside wins: so Run's fields from Meta on are named
// again here, in Run's order.
type runJSON struct {
	runFields
	Meta       metaJSON          `json:"meta"`
	Drops      map[string]uint64 `json:"drops,omitempty"`
	Neighbours []Neighbour       `json:"neighbours,omitempty"`
	Arms       []armJSON         `json:"arms"`
	Between    *BetweenRuns      `json:"between_runs,omitempty"`
}

// runFields is Run without its methods (no recursion into MarshalJSON).
type runFields Run

// metaJSON is Meta with the warnings, last as they always were.
type metaJSON struct {
	Meta
	Warnings []Warning `json:"warnings,omitempty"`
}

// armJSON is an arm with its figures, last as they always were.
type armJSON struct {
	ArmResult
	Figures *Figures `json:"figures,omitempty"`
}

// MarshalJSON writes the run as run.json, with what was derived from it.
func (r Run) MarshalJSON() ([]byte, error) {
	d := &r.Derived
	out := runJSON{runFields: runFields(r), Meta: metaJSON{r.Meta, d.Warnings}, Drops: r.Drops,
		Neighbours: d.Neighbours, Arms: make([]armJSON, len(r.Arms)), Between: d.Between}
	for i, a := range r.Arms {
		out.Arms[i] = armJSON{a, d.FiguresOf(i)}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads a run.json. Of what was derived, it keeps what a
// report of the run prints as the run printed it (the spread between
// runs its intervals include, the warnings) and leaves the figures and
// neighbours, which tmpprobe recomputes from the batches. A run saved
// before kinds were recorded gets its kind from its arms.
func (r *Run) UnmarshalJSON(b []byte) error {
	var in runJSON
	if err := json.Unmarshal(b, &in); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			// Name the field as run.json has it, not through the
			// structs that put the derived fields back in place.
			te.Field = strings.NewReplacer("runFields.", "", "ArmResult.", "", "Meta.", "").Replace(te.Field)
		}
		return err
	}
	*r = Run(in.runFields)
	r.Meta, r.Drops, r.Arms = in.Meta.Meta, in.Drops, make([]ArmResult, len(in.Arms))
	for i, a := range in.Arms {
		r.Arms[i] = a.ArmResult
	}
	r.Derived = Derived{Between: in.Between, Warnings: in.Meta.Warnings}
	if r.Kind == KindLabs {
		r.Kind = KindOf(r.Arms)
	}
	return nil
}
