package results

import (
	"fmt"
	"strconv"
)

// Bytes renders a byte count the way the labs name sizes: 400, 64K, 1M.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "M"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + "K"
	}
	return strconv.FormatInt(n, 10)
}

// Micros renders ns as µs with a precision that suits its size.
func Micros(ns float64) string {
	us := ns / 1000
	switch {
	case us == 0:
		return "0"
	case us < 0.01 && us > -0.01:
		return fmt.Sprintf("%.3f", us)
	case us < 10 && us > -10:
		return fmt.Sprintf("%.2f", us)
	case us < 1000 && us > -1000:
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.0f", us)
}
