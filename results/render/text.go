package render

import (
	"strings"

	"github.com/tmpprobe/tmpprobe/internal/textwrap"
)

// wrap breaks s at spaces into lines of at most width runes (see
// textwrap.Wrap).
func wrap(s string, width int, indent string) string { return textwrap.Wrap(s, width, indent) }

// mdCell keeps a value from breaking a markdown table.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}
