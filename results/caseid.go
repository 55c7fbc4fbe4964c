package results

import (
	"reflect"
	"strconv"
	"strings"
)

// CaseID names a case: one arm of a lab, in one runtime and work dir, at
// one payload or size. Every type that names a case embeds it, so its JSON
// fields, and the CSV identity columns derived from them below, are
// spelled here alone. The ops a batch runs are not part of it: calibration
// chooses them.
type CaseID struct {
	Lab          string `json:"lab"`
	Arm          string `json:"arm"`
	Runtime      string `json:"runtime"`
	Dir          string `json:"dir"`
	PayloadBytes int    `json:"payload_bytes,omitempty"`
	SizeBytes    int    `json:"size_bytes,omitempty"`
}

// caseFields are CaseID's fields, in the order of its columns.
var caseFields = reflect.VisibleFields(reflect.TypeFor[CaseID]())

// caseColumn names a field's CSV column as its JSON name: "payload_bytes".
func caseColumn(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return name
}

// CaseColumns are the CSV columns of a case's identity, first in every
// CSV tmpprobe writes.
func CaseColumns() []string {
	out := make([]string, len(caseFields))
	for i, f := range caseFields {
		out[i] = caseColumn(f)
	}
	return out
}

// Cells are the case's identity as CSV cells, in CaseColumns' order.
func (a CaseID) Cells() []string {
	out := make([]string, len(caseFields))
	for i := range caseFields {
		out[i] = a.Cell(i)
	}
	return out
}

// Cell is the case's i-th identity cell, of CaseColumns' i-th column.
func (a CaseID) Cell(i int) string {
	switch fv := reflect.ValueOf(a).FieldByIndex(caseFields[i].Index); fv.Kind() {
	case reflect.String:
		return fv.String()
	default:
		return strconv.FormatInt(fv.Int(), 10)
	}
}

// ReadCase reads a case back from CSV cells: text reads a column as it
// is, count a column of whole bytes (and keeps its own errors).
func ReadCase(text func(column string) string, count func(column string) int64) CaseID {
	var a CaseID
	v := reflect.ValueOf(&a).Elem()
	for _, f := range caseFields {
		switch fv := v.FieldByIndex(f.Index); fv.Kind() {
		case reflect.String:
			fv.SetString(text(caseColumn(f)))
		default:
			fv.SetInt(count(caseColumn(f)))
		}
	}
	return a
}

// Named is the case as a sentence names it: "NamedTemporaryFile
// (python)"; a command or a trace by its name alone, never "(-)".
func (a CaseID) Named() string {
	if a.OfCommand() {
		return a.Arm
	}
	return a.Arm + " (" + a.Runtime + ")"
}
