// Package escape makes text from outside tmpprobe (a traced command's
// name and arguments, a worker's stderr, a name read from a saved run)
// safe to print: what a terminal would act on rather than print comes out
// as a Go escape, so it cannot move the cursor, recolour or reorder what
// is printed after it.
package escape

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s with C0 and C1 controls, DEL, invisible runes and invalid
// UTF-8 replaced by Go escapes (\n, \x1b, \u202e, \xff): one line, safe
// to print.
func Line(s string) string { return text(s, false) }

// Sprintf is fmt.Sprintf with every string, error and Stringer argument
// escaped as Line escapes it first: a message that quotes what the user
// typed (a path with a newline or an escape in it) stays one line, and
// prints as what they typed.
func Sprintf(format string, a ...any) string {
	args := make([]any, len(a))
	for i, v := range a {
		switch v := v.(type) {
		case string:
			args[i] = Line(v)
		case error:
			args[i] = Line(v.Error())
		case fmt.Stringer:
			args[i] = Line(v.String())
		default:
			args[i] = v
		}
	}
	return fmt.Sprintf(format, args...)
}

// Strings escapes, in place, every string reachable from p, a pointer:
// struct fields (exported ones), slices, arrays, map keys and values.
// Strings are escaped as Line escapes them, but a struct field whose name
// is one of keepLines keeps its newlines and tabs: a worker's output,
// shown as lines.
func Strings(p any, keepLines ...string) {
	walk(reflect.ValueOf(p), false, keepLines)
}

func walk(v reflect.Value, lines bool, keepLines []string) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(text(v.String(), lines))
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walk(v.Elem(), lines, keepLines)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() {
				walk(v.Field(i), slices.Contains(keepLines, f.Name), keepLines)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walk(v.Index(i), lines, keepLines)
		}
	case reflect.Map:
		if v.IsNil() || !v.CanSet() {
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(it.Key())
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(it.Value())
			walk(k, lines, keepLines)
			walk(e, lines, keepLines)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	}
}

// invisible: a rune a terminal prints as nothing or acts on, besides the
// controls: bidirectional overrides, format characters (a zero-width
// space made two --dir names look the same) and line or paragraph
// separators.
func invisible(r rune) bool {
	return unicode.Is(unicode.Bidi_Control, r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

func text(s string, keepLines bool) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || (r >= 0x7f && r <= 0x9f) || invisible(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case unicode.IsControl(r) || invisible(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}
