package render

import (
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/textwrap"
)

// wrap breaks s at spaces into lines of at most width runes (see
// textwrap.Wrap).
func wrap(s string, width int, indent string) string { return textwrap.Wrap(s, width, indent) }

// mdCell keeps a value from breaking a markdown table, and from being
// HTML: a command's name ("<img src=x onerror=…>") is shown, not run by
// the renderer.
func mdCell(s string) string { return mdEscaper.Replace(s) }

// A tag or an entity needs "<" or "&": "fsync > dev_flush" stays as it
// reads.
var mdEscaper = strings.NewReplacer("|", `\|`, "\n", " ", "&", "&amp;", "<", "&lt;")

// mdCode is s as a markdown code span, whose fence is one backtick more
// than the longest run of them in s (CommonMark), so a name with
// backticks in it cannot end the span and be read as markdown or HTML.
func mdCode(s string) string {
	fence, run := 1, 0
	for _, r := range s {
		if r == '`' {
			run++
			fence = max(fence, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", fence)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return f + " " + strings.ReplaceAll(s, "\n", " ") + " " + f
	}
	return f + strings.ReplaceAll(s, "\n", " ") + f
}
