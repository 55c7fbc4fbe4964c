package render

import "strings"

// wrap breaks s at spaces into lines of at most width runes, indenting
// continuation lines. A unit ("µs") stays on the line of its number.
func wrap(s string, width int, indent string) string {
	words := strings.Split(s, " ")
	var b strings.Builder
	line := 0
	for i, word := range words {
		n := len([]rune(word))
		need := n
		if i+1 < len(words) && strings.HasPrefix(words[i+1], "µs") {
			need += 1 + len([]rune(words[i+1]))
		}
		unit := strings.HasPrefix(word, "µs")
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

// mdCell keeps a value from breaking a markdown table.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
