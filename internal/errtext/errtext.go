// Package errtext turns errors into the one line tmpprobe prints: in a
// message to the user, a report's FAILED row, a CSV cell.
package errtext

import (
	"errors"
	"os"
	"strings"
)

// FirstLine is the first line of s, trimmed: a worker's stderr or a
// wrapped multi-line error prints as one line.
func FirstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// Bare is err's text without the operation and path of an *os.PathError,
// for a message that names the path itself.
func Bare(err error) string { return Cause(err).Error() }

// Cause is err without the operation and path of an *os.PathError, still
// an error, so that a message wrapping it keeps errors.Is.
func Cause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
