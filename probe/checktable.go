//go:build linux

package probe

import (
	"fmt"
	"io"
	"strings"
)

// WriteTable prints the report: facts, hook types, functions (one column a
// hook kind), backends, and auto's pick. A function cell that fails for a
// reason of its own, not its hook type's, gets a note below the table.
func (r *CheckReport) WriteTable(w io.Writer) {
	section := func(title string, rows []checkRow) {
		fmt.Fprintf(w, "\n%-14s %-4s %s\n", title, "OK", "WHY")
		for _, row := range rows {
			fmt.Fprintf(w, "%-14s %-4s %s\n", row.Name, yesNo(row), why(row))
		}
	}
	section("ENVIRONMENT", r.env)
	if len(r.older) > 0 {
		fmt.Fprintf(w, "\n%-18s %s\n", "OLDER FORM", "READS")
		for _, o := range r.older {
			hook, what, _ := strings.Cut(o, ": ")
			fmt.Fprintf(w, "%-18s %s\n", hook, what)
		}
	}
	section("HOOK TYPE", r.types)

	types := map[string]checkRow{}
	for _, t := range r.types {
		types[t.Name] = t
	}
	fmt.Fprintf(w, "\n%-26s", "FUNCTION")
	for _, k := range funcKinds {
		fmt.Fprintf(w, " %-9s", strings.ToUpper(k))
	}
	fmt.Fprintln(w, " TIMES")
	var notes []string
	for _, f := range r.funcs {
		fmt.Fprintf(w, "%-26s", f.Func)
		missing := ""
		for _, k := range funcKinds {
			c := f.Kinds[k]
			fmt.Fprintf(w, " %-9s", cell(c))
			switch {
			case c.Verdict == VerdictMissing:
				missing = c.Why
			case !c.ok() && c.Why != types[k].Why:
				notes = append(notes, fmt.Sprintf("%s %s: %s", k, f.Func, why(c)))
			}
		}
		fmt.Fprintln(w, " "+f.Role)
		if missing != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", f.Func, missing))
		}
	}
	for _, n := range notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}

	section("BACKEND", r.backends)
	if r.Auto == "" {
		why := ""
		for _, e := range r.env {
			if e.Name == "kernel" && !e.ok() {
				why = ": " + e.Why // the one reason for every backend's no
			}
		}
		fmt.Fprintf(w, "\n--attach auto: no backend works here%s\n", why)
		return
	}
	fmt.Fprintf(w, "\n--attach auto takes: %s\n", r.Auto)
}

func yesNo(r checkRow) string {
	if r.ok() {
		return "yes"
	}
	return "no"
}

// why is the detail of a yes, or the verdict and reason of a no.
func why(r checkRow) string {
	if r.ok() || r.Why == "" {
		return r.Why
	}
	return string(r.Verdict) + ": " + r.Why
}

// cell is a function table entry: yes, or the short verdict of a no.
func cell(r checkRow) string {
	switch r.Verdict {
	case VerdictYes:
		return "yes"
	case VerdictNotSupported:
		return "no:unsup"
	case VerdictPermission:
		return "no:perm"
	case VerdictMissing:
		return "missing"
	}
	return "no:other"
}
