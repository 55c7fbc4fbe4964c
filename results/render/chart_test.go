package render

import (
	"bytes"
	"image"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"github.com/tmpprobe/tmpprobe/results"
	"github.com/tmpprobe/tmpprobe/results/resultstest"
)

// chartFixture has two runtimes in the modes panel, so every label carries
// its runtime and the longest is "NamedTemporaryFile-keep (python)".
func chartFixture() []*results.Summary {
	run := resultstest.FixtureRun(true)
	keep := run.Arms[1]
	keep.Arm, keep.Runtime = "NamedTemporaryFile-keep", "python"
	run.Arms = append(run.Arms, keep)
	return resultstest.Sums(run)
}

// The SVG names fonts every reader has (generic sans-serif last) and
// nothing else: no bare "Liberation Serif" to fall back from.
func TestChartSVGFonts(t *testing.T) {
	svg := string(resultstest.Render(t, func(w io.Writer) error { return WriteChart(w, chartFixture(), "svg") }))
	if n, m := strings.Count(svg, "font-family:"), strings.Count(svg, svgFonts); n == 0 || n != m {
		t.Errorf("%d of %d texts name %s", m, n, svgFonts)
	}
	if !strings.Contains(svgFonts, ",sans-serif;") {
		t.Errorf("%s: no generic family to fall back to", svgFonts)
	}
}

// chart.svg drawn by a renderer that has none of the fonts it was measured
// with (nor their metric twins) keeps every text whole and inside its
// room: arm labels end before the bars, values before the legend, legend
// and titles inside the canvas; the canvas is opaque to its corners; the
// fsync segment's off-CPU part is hatched.
func TestChartRasterizedWithoutLiberation(t *testing.T) {
	rsvg, err := exec.LookPath("rsvg-convert")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no rsvg-convert: apt-get install -y librsvg2-bin")
		}
		t.Skip("no rsvg-convert (Debian: apt-get install -y librsvg2-bin); CI fails here instead")
	}
	dir := t.TempDir()
	env := withoutLiberation(t, dir)

	sums := chartFixture()
	svgPath := filepath.Join(dir, "chart.svg")
	os.WriteFile(svgPath, resultstest.Render(t, func(w io.Writer) error { return WriteChart(w, sums, "svg") }), 0o644)
	pngPath := filepath.Join(dir, "chart.png")
	cmd := exec.Command(rsvg, "--dpi-x", "144", "--dpi-y", "144", "-o", pngPath, svgPath)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rsvg-convert: %v\n%s", err, out)
	}
	f, err := os.Open(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("TMPPROBE_CHART_KEEP") != "" {
		b, _ := os.ReadFile(pngPath)
		os.WriteFile(os.Getenv("TMPPROBE_CHART_KEEP"), b, 0o644)
	}

	l := layoutChart(chartPanels(sums))
	scale := float64(img.Bounds().Dx()) / l.Width.Points()
	px := func(v vg.Length) int { return int(v.Points() * scale) }
	check := chartPixels{t: t, img: img}

	for _, p := range []image.Point{{0, 0}, {img.Bounds().Dx() - 1, 0}, {0, img.Bounds().Dy() - 1}, {img.Bounds().Dx() - 1, img.Bounds().Dy() - 1}} {
		if r, g, b, a := img.At(p.X, p.Y).RGBA(); a != 0xffff || r != 0xffff || g != 0xffff || b != 0xffff {
			t.Errorf("pixel %v is %v: want opaque white, the background under the whole canvas", p, img.At(p.X, p.Y))
		}
	}
	face, titleFace := chartFace(textSize), chartFace(titleSize)
	asc := titleFace.Extents().Ascent
	longest := ""
	for _, p := range l.Panels {
		check.ink(p.Title, image.Rect(0, px(p.TitleBase-asc), img.Bounds().Dx(), px(p.TitleBase)), px(l.LabelX), img.Bounds().Dx()-px(chartPad)/2)
		for _, b := range p.Bars {
			if len(b.Label) > len(longest) {
				longest = b.Label
			}
			// Everything left of the bars is the label: it must end a
			// gap's width before them, and be about as wide as measured
			// (a cut label is narrower).
			band := image.Rect(0, px(b.Top), px(l.PlotX0)-2, px(b.Bottom))
			lo, hi := check.ink(b.Label, band, px(l.LabelX)-1, px(l.PlotX0-labelGap/2))
			if w, want := float64(hi-lo), 0.8*face.Width(b.Label).Points()*scale; w < want {
				t.Errorf("label %q is %.0f px wide: want ≥ %.0f, the whole label", b.Label, w, want)
			}
			t.Logf("%-34q %3d px in the fallback font, %3.0f measured in Liberation Sans", b.Label, hi-lo, face.Width(b.Label).Points()*scale)
			// After the bar, up to the legend, only its value.
			last := b.Segments[len(b.Segments)-1]
			check.ink(b.Value, image.Rect(px(last.X1)+2, px(b.Top), px(l.LegendX), px(b.Bottom)), px(b.ValueX)-1, px(l.LegendX-6))
		}
		for _, e := range p.Legend {
			check.ink(e.Name, image.Rect(px(l.LegendTextX)-1, px(e.Top), img.Bounds().Dx(), px(e.Top+swatchSize)), px(l.LegendTextX)-1, img.Bounds().Dx()-px(chartPad)/2)
		}
	}
	if longest != "NamedTemporaryFile-keep (python)" {
		t.Errorf("longest label %q: the fixture lost its runtime suffixes", longest)
	}

	checkFsyncHatched(t, img, l, sums, px)
}

type chartPixels struct {
	t   *testing.T
	img image.Image
}

// ink finds the dark pixels (text) in r and requires them to lie within
// [from, to) in x; it returns their extent.
func (c chartPixels) ink(what string, r image.Rectangle, from, to int) (lo, hi int) {
	c.t.Helper()
	lo, hi = -1, -1
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if rr, g, b, _ := c.img.At(x, y).RGBA(); max(rr, g, b) < 0x9000 {
				if lo < 0 || x < lo {
					lo = x
				}
				hi = max(hi, x+1)
			}
		}
	}
	switch {
	case lo < 0:
		c.t.Errorf("%q: no text drawn in %v", what, r)
	case lo < from || hi > to:
		c.t.Errorf("%q: drawn at x %d–%d px, outside its room %d–%d", what, lo, hi, from, to)
	}
	return lo, hi
}

func near(c interface{ RGBA() (r, g, b, a uint32) }, want interface{ RGBA() (r, g, b, a uint32) }) bool {
	r, g, b, _ := c.RGBA()
	wr, wg, wb, _ := want.RGBA()
	d := func(a, b uint32) bool { return a/256 <= b/256+24 && b/256 <= a/256+24 }
	return d(r, wr) && d(g, wg) && d(b, wb)
}

// A class has one colour in every chart, whatever else the chart shows
// (fsync was orange in one and blue in another, #21).
func TestChartClassColoursStable(t *testing.T) {
	one := classColors([]*chartPanel{{series: []chartSeries{{name: "fsync"}}}})
	two := classColors([]*chartPanel{{series: []chartSeries{{name: "openat[create]"}, {name: "write"}, {name: "unlink"}, {name: "fsync"}}}})
	if one["fsync"] != two["fsync"] {
		t.Errorf("fsync is %v in one chart and %v in another", one["fsync"], two["fsync"])
	}
	if classColor("some_syscall") != classColor("some_syscall") {
		t.Error("a class outside the labs' changes colour")
	}
}

// withoutLiberation is an environment whose fontconfig refuses the fonts
// the chart is measured in and their metric-compatible twins, as on a box
// that never had them.
func withoutLiberation(t *testing.T, dir string) []string {
	t.Helper()
	conf := filepath.Join(dir, "fonts.conf")
	rejected := []string{"Liberation Sans", "Liberation Serif", "Arimo", "Arial", "Helvetica"}
	var rules strings.Builder
	for _, f := range rejected {
		rules.WriteString("<pattern><patelt name=\"family\"><string>" + f + "</string></patelt></pattern>\n")
	}
	os.WriteFile(conf, []byte(`<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
<include ignore_missing="yes">/etc/fonts/fonts.conf</include>
<cachedir>`+filepath.Join(dir, "cache")+`</cachedir>
<selectfont><rejectfont>
<glob>*Liberation*</glob>
`+rules.String()+`</rejectfont></selectfont>
</fontconfig>
`), 0o644)
	env := append(os.Environ(), "FONTCONFIG_FILE="+conf)
	if fcMatch, err := exec.LookPath("fc-match"); err == nil {
		for _, f := range []string{"Liberation Sans", "sans-serif"} {
			cmd := exec.Command(fcMatch, f)
			cmd.Env = env
			out, _ := cmd.Output()
			t.Logf("fc-match %q: %s", f, bytes.TrimSpace(out))
			for _, r := range rejected {
				if bytes.Contains(out, []byte(r)) {
					t.Fatalf("fontconfig still gives %s for %q: the test would not show a fallback", r, f)
				}
			}
		}
	}

	return env
}

// checkFsyncHatched wants the off-CPU part of mkstemp-fsync's fsync
// segment drawn as stripes of the class colour on its tint.
func checkFsyncHatched(t *testing.T, img image.Image, l *chartLayout, sums []*results.Summary, px func(vg.Length) int) {
	t.Helper()
	var fsync *segmentLayout
	var bar barLayout
	for _, b := range l.Panels[0].Bars {
		for i, s := range b.Segments {
			if s.Name == "fsync" && strings.HasPrefix(b.Label, "mkstemp-fsync") {
				fsync, bar = &b.Segments[i], b
			}
		}
	}
	if fsync == nil || fsync.X1-fsync.XOff < (fsync.X1-fsync.X0)/2 {
		t.Fatalf("fsync segment %+v: want one, mostly off the CPU", fsync)
	}
	clr := classColors(chartPanels(sums))["fsync"]
	stripes, tinted := 0, 0
	y := px((bar.Top + bar.Bottom) / 2)
	for x := px(fsync.XOff) + 2; x < px(fsync.X1)-2; x++ {
		switch c := img.At(x, y).(interface{ RGBA() (r, g, b, a uint32) }); {
		case near(c, clr):
			stripes++
		case near(c, tint(clr, 0.6)):
			tinted++
		}
	}
	if n := px(fsync.X1) - px(fsync.XOff) - 4; stripes < n/10 || tinted < n/4 {
		t.Errorf("off-CPU part of fsync: %d stripe and %d tint pixels of %d: want hatching", stripes, tinted, n)
	}
}
