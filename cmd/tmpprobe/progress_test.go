//go:build linux

package main

import (
	"strings"
	"testing"
)

// The progress line drops whole fields that do not fit, never cutting one
// mid-number (at 80 columns 255 of 304 updates read "· 10s, ~4").
func TestProgressLineKeepsWholeFields(t *testing.T) {
	fields := []string{"round 12/40", "31s, ~74s left", "batch 17/36", "python modes/NamedTemporaryFile-keep payload 400 B"}
	full := strings.Join(fields, " · ")
	for width := 1; width <= len([]rune(full))+1; width++ {
		line := fitFields(fields, width)
		if n := len([]rune(line)); n > width {
			t.Fatalf("width %d: %d columns: %q", width, n, line)
		}
		if width >= len([]rune(fields[0])) && !strings.HasPrefix(full, line) || width >= len(fields[0]) &&
			line != full && !strings.HasPrefix(full, line+" · ") {
			t.Errorf("width %d: %q is not whole fields of %q", width, line, full)
		}
	}
}
