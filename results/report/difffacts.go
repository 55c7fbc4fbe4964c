package report

import (
	"fmt"
	"strings"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/compare"
	"github.com/tmpprobe/tmpprobe/results/explain"
)

// diffFacts say the differences of the environment. A work dir's move to
// another file system or device says where it moved: the work dirs' own
// line would say it again, so it is said in the move's.
func diffFacts(rep *compare.DiffReport) []DiffFact {
	var dirs *compare.FactChange
	moved := false
	for i := range rep.Preflight {
		switch f := &rep.Preflight[i]; {
		case f.Fact == results.FactWorkDirs:
			dirs = f
		case f.Move != "":
			moved = true
		}
	}
	if !moved {
		dirs = nil
	}
	var out []DiffFact
	for i := range rep.Preflight {
		f := diffFact(&rep.Preflight[i])
		if f.Move && dirs != nil {
			f.Line = "work dirs " + factChange(*dirs) + ": " + f.Line
			f.Said = f.Line
		}
		f.InMove = dirs != nil && f.Fact == dirs
		out = append(out, f)
	}
	return out
}

// diffFact says one difference.
func diffFact(f *compare.FactChange) DiffFact {
	out := DiffFact{Fact: f, Change: factChange(*f), Old: f.Old, New: f.New, Tied: len(f.Explains) > 0,
		Detail: f.Dir && f.Move == "", Move: f.Move != ""}
	if f.Added != nil || f.Removed != nil {
		out.Old, out.New = strings.Join(f.Removed, ","), strings.Join(f.Added, ",")
	}
	for _, e := range f.Explains {
		out.Explains = append(out.Explains, explain.ExplainedText(e))
	}
	out.ExplainsShort = explainsText(out.Explains)
	out.Line = f.Name + ": " + out.Change
	if out.Move {
		out.Phrase, out.Short = explain.MovePhrase(*f), explain.MoveShort(f.Old, f.New)
		out.Line = out.Phrase
	}
	out.Said = out.Line
	if out.Tied && !out.Move { // a move can explain every change
		out.Said += "; explains " + out.ExplainsShort
	}
	for i := range f.StandsFor {
		out.StandsFor = append(out.StandsFor, diffFact(&f.StandsFor[i]))
	}
	return out
}

// explainsText names what a difference explains: two, then how many more.
func explainsText(explains []string) string {
	if len(explains) <= 3 {
		return strings.Join(explains, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(explains[:2], ", "), len(explains)-2)
}

// factChange says what changed: the options added and removed of an
// option list ("+nobarrier −barrier"), else "OLD → NEW".
func factChange(f compare.FactChange) string {
	if f.Added == nil && f.Removed == nil {
		return f.Old + " → " + f.New
	}
	var parts []string
	for _, o := range f.Added {
		parts = append(parts, "+"+o)
	}
	for _, o := range f.Removed {
		parts = append(parts, "−"+o)
	}
	return strings.Join(parts, " ")
}
