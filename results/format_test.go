package results_test

import (
	"math"
	"testing"

	"github.com/tmpprobe/tmpprobe/results"
)

// A count reads as a person reads one (#31): whole counts whole, one
// decimal from 1 up ("803.9", never "803.900"), two significant digits
// below; a size in KiB/MiB.
func TestCountAndSize(t *testing.T) {
	counts := map[float64]string{1: "1", 0: "0", math.Copysign(0, -1): "0", 0.001: "0.001", 0.0523: "0.052", 0.00999: "0.01",
		0.996: "1.0", 0.00004: "<0.0001", 1.0375: "1.0", 3.188: "3.2", 803.9: "803.9", 12.5: "12.5", 3e15: "3000000000000000.0"}
	for v, want := range counts {
		if got := results.Count(v); got != want {
			t.Errorf("Count(%v) = %q, want %q", v, got, want)
		}
	}
	sizes := map[float64]string{400: "400 B", 256 << 10: "256 KiB", 1 << 20: "1 MiB", 4.1e6: "3.91 MiB", 1000: "1000 B", 1023.9 * 1024: "1024 KiB"}
	for v, want := range sizes {
		if got := results.Size(v); got != want {
			t.Errorf("Size(%v) = %q, want %q", v, got, want)
		}
	}
}

// Each kind of number prints by one rule wherever it appears: a count in
// a sentence reads as the table's column does.
func TestFormatKinds(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, c := range []struct{ got, want string }{
		{results.Share(-0.001), "0%"},
		{results.SignedMicros(185_000), "+185.0"},
		{results.SignedMicros(-4_100), "−4.10"},
		{results.SignedPct(-57.2), "−57%"},
		{results.SignedPct(3.14), "+3.1%"},
		{results.SignedPct(-0.04), "+0.0%"},
		{results.Share(0.72), "72%"},
		{results.Share(-0.12), "−12%"},
		{results.Times(1.644), "1.64×"},
		{results.Ratio(0.61), "0.61"},
		{results.Ratio(0.1), "0.10"},
		{results.Ratio(0.0537), "0.05"},
		{results.Ratio(0.0095), "0.0095"},
		{results.Ratio(0.00243), "0.0024"},
		{results.RatioText(results.Estimate{Center: 0.00243, Lo: 0.0019, Hi: 0.0031, N: 10}), "0.0024 [0.0019–0.0031]"},
		// One width whatever the interval: the bounds in the center's
		// decimals (#31: "0.02 [0.0060–0.04]" made its row 81 columns).
		{results.RatioText(results.Estimate{Center: 0.02, Lo: 0.006, Hi: 0.04, N: 10}), "0.02 [0.01–0.04]"},
		{results.RatioText(results.Estimate{Center: 13.65, Lo: 8.04, Hi: 17.8, N: 10}), "13.7 [8.0–17.8]"},
		{results.TimesText(results.Estimate{Center: 0.55, Lo: 0.53, Hi: 0.57, N: 10}), "0.55× [0.53–0.57]"},
		{results.TimesText(results.Estimate{Center: 0.55, Lo: -inf, Hi: inf, N: 3}), "0.55× ±∞"},
		{results.TimesText(results.Estimate{Center: 0.55, Lo: nan, Hi: nan, N: 3}), "0.55×"},
		{results.RatioText(results.Estimate{Center: 1, Lo: 1, Hi: 1, N: 10}), "1.00"},
		{results.RatioText(results.Estimate{}), "-"},
		{results.Rate(11674.6), "11675"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}
