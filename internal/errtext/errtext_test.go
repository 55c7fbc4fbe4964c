package errtext

import (
	"fmt"
	"os"
	"testing"
)

func TestFirstLine(t *testing.T) {
	for in, want := range map[string]string{
		"":                                 "",
		"one":                              "one",
		"worker exit: status 1\nTraceback": "worker exit: status 1",
		"\n  padded\nrest":                 "padded",
	} {
		if got := FirstLine(in); got != want {
			t.Errorf("FirstLine(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReason(t *testing.T) {
	_, err := os.Stat("/nonexistent/x")
	if got := Bare(err); got != "no such file or directory" {
		t.Errorf("Bare(%v) = %q", err, got)
	}
	if got := Bare(fmt.Errorf("wrapped: %w", err)); got != "no such file or directory" {
		t.Errorf("Reason of a wrapped PathError = %q", got)
	}
	if got := Bare(fmt.Errorf("plain")); got != "plain" {
		t.Errorf("Bare(plain) = %q", got)
	}
}
