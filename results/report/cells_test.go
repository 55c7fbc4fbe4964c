package report

import (
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// A throughput prints with the half-width of its interval, the larger
// side, or ±∞ without one (the rate half of TestMedianInterval in results).
func TestRateCell(t *testing.T) {
	if got := RateCell(results.Median([]float64{1, 2, 3, 4, 5})); got != "3 ±∞" {
		t.Errorf("rate cell without an interval = %q", got)
	}
	if got := RateCell(results.Estimate{Center: 1000, Lo: 960, Hi: 1030, N: 10}); got != "1000 ±4%" {
		t.Errorf("rate cell = %q, want the larger side, 4%%", got)
	}
}
