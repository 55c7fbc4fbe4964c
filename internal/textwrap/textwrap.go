// Package textwrap lays prose out in columns as the terminal report
// does: words wrapped at a width, a unit kept on the line of its number,
// and the bullet a WHY sentence starts with. One layout, so a report that
// must fit a number of lines (a WHY bullet: four at 80 columns) can count
// them as the writer will print them.
package textwrap

import "strings"

// Wrap breaks s at spaces into lines of at most width runes, indenting
// continuation lines. A unit ("µs", "ms/run") stays on the line of its
// number.
func Wrap(s string, width int, indent string) string {
	return wrap(strings.Split(s, " "), 0, width, indent)
}

// At wraps text that starts at column col (a flag's help beside its
// name, a term's meaning under it) into lines of at most width runes,
// each continuation indented to col.
func At(text string, col, width int) string {
	return wrap(strings.Fields(text), col, width, strings.Repeat(" ", col))
}

// wrap lays words out from column start, as Wrap says.
func wrap(words []string, start, width int, indent string) string {
	var b strings.Builder
	line := start
	for i, word := range words {
		n := len([]rune(word))
		need := n
		if i+1 < len(words) && isUnit(words[i+1]) {
			need += 1 + len([]rune(words[i+1]))
		}
		unit := isUnit(word)
		switch {
		case i == 0:
		case !unit && line+1+need > width && line > len(indent):
			b.WriteString("\n" + indent)
			line = len(indent)
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}

// isUnit says a word is a time unit, alone or per op ("µs", "ms/run",
// "s"), which reads wrong at the start of a line.
func isUnit(word string) bool {
	u, _, _ := strings.Cut(word, "/")
	u = strings.TrimRight(u, ",.;:)")
	return u == "µs" || u == "ms" || u == "s"
}

// Bullet is text as a bulleted paragraph under width columns: "• " after
// indent, continuation lines under the text.
func Bullet(indent, text string, width int) string {
	return Wrap(indent+"• "+text, width-2, indent+"  ")
}

// Lines is how many lines s takes.
func Lines(s string) int { return strings.Count(s, "\n") + 1 }

// Middle shortens s to n runes by cutting its middle ("/usr/bin/pyt…
// tf.py #2"): a command's name says what it runs at its start and which
// script, or which copy, at its end.
func Middle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 3 {
		return s
	}
	head := (n - 1) / 3
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}
