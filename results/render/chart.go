package render

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image/color"
	"io"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/tmpprobe/tmpprobe/results"
)

// The chart is drawn on gonum's vg canvases rather than with its plot
// layout, because an SVG is read with whatever fonts the reader has: text
// is measured here in Liberation Sans (metric-compatible with Arial and
// Helvetica, named first in the SVG), but a box without them draws it in
// its own sans-serif, DejaVu Sans being ~10% wider. So every text sits in
// room widthSlack larger than measured, anchored at its left edge (SVG
// text cannot be right-aligned through vg), and nothing is drawn over it.
// One panel per lab × dir × parameter (so per size for the buffers lab),
// one horizontal stacked bar per arm × runtime.
const (
	chartMinWidth = 9 * vg.Inch
	chartPad      = vg.Length(10) // canvas edge to any text
	barPitch      = 0.3 * vg.Inch
	barHeight     = 0.22 * vg.Inch
	labelGap      = vg.Length(8) // label column to the plot
	legendPitch   = vg.Length(13)
	swatchSize    = vg.Length(9)
	minPlotWidth  = 4 * vg.Inch
	panelGap      = vg.Length(14)
	titleSize     = vg.Length(10)
	textSize      = vg.Length(9)
	hatchStep     = vg.Length(3.5)
	widthSlack    = 1.25
	// The canvas is a whole number of quarter inches, so whole pixels at
	// 72, 96, 144 or 300 dpi: no half-covered, half-transparent edge.
	canvasQuantum = vg.Inch / 4
	maxSegments   = 8 // syscall classes drawn by name; the rest are "other syscalls"
	otherSyscalls = "other syscalls"
	notTraced     = "not traced"
)

// svgFonts replaces the family vgsvg names. Liberation Sans, Arimo, Arial
// and Helvetica share metrics, so where one is installed the text is as
// wide as measured; sans-serif is the fallback every browser has.
const (
	vgsvgFamily = "Liberation Sans" // what vgsvg writes for chartFont
	svgFonts    = `font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;`
)

var (
	chartFont  = font.Font{Typeface: "Liberation", Variant: "Sans"}
	textColor  = color.RGBA{0x22, 0x22, 0x22, 0xff}
	gridColor  = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
	axisColor  = color.RGBA{0x55, 0x55, 0x55, 0xff}
	userColor  = color.RGBA{0xb0, 0xb0, 0xb0, 0xff}
	otherColor = color.RGBA{0x70, 0x70, 0x70, 0xff}
	// Tableau 20, less its greys: a class keeps one colour in every panel
	// of a full run without two classes sharing one.
	palette = []color.RGBA{
		{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff},
		{0x76, 0xb7, 0xb2, 0xff}, {0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff},
		{0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff}, {0x9c, 0x75, 0x5f, 0xff},
		{0xa0, 0xcb, 0xe8, 0xff}, {0xff, 0xbe, 0x7d, 0xff}, {0x8c, 0xd1, 0x7d, 0xff},
		{0xb6, 0x99, 0x2d, 0xff}, {0x49, 0x98, 0x94, 0xff}, {0x86, 0xbc, 0xb6, 0xff},
		{0xd3, 0x72, 0x95, 0xff}, {0xfa, 0xbf, 0xd2, 0xff}, {0xd4, 0xa6, 0xc8, 0xff},
	}
)

// WriteChart draws µs per op of every arm, stacked by syscall class plus
// user space, the off-CPU part of each hatched, as "svg" or "png".
func WriteChart(w io.Writer, sums []*results.Summary, format string) (err error) {
	// The drawing library panics on what it cannot draw; a chart is never
	// worth a crash of the run that made the numbers.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing the chart: %v", r)
		}
	}()
	panels := chartPanels(sums)
	if len(panels) == 0 {
		return fmt.Errorf("no arm has a time per op to chart")
	}
	l := layoutChart(panels)
	switch format {
	case "svg":
		c := vgsvg.New(l.Width, l.Height)
		l.draw(c)
		var b bytes.Buffer
		if _, err := c.WriteTo(&b); err != nil {
			return err
		}
		_, err = w.Write(bytes.ReplaceAll(b.Bytes(), []byte("font-family:"+vgsvgFamily+";"), []byte(svgFonts)))
		return err
	case "png":
		c := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(l.Width, l.Height), vgimg.UseDPI(110))}
		l.draw(c)
		_, err = c.WriteTo(w)
		return err
	}
	return fmt.Errorf("chart format %q: want svg or png", format)
}

// chartPanel is one stacked-bar plot.
type chartPanel struct {
	title  string
	unit   string
	bars   []string
	series []chartSeries // stacked left to right
}

type chartSeries struct {
	name   string
	values []float64 // µs per op, one per bar
	off    []float64 // of which off the CPU
}

// Chartable reports whether WriteChart has anything to draw: an arm with a
// time per op.
func Chartable(sums []*results.Summary) bool { return len(chartPanels(sums)) > 0 }

func chartPanels(sums []*results.Summary) []*chartPanel {
	var timed []*results.Summary
	for _, s := range sums {
		if s.WallNsPerOp > 0 || s.OpsPerS.Known() {
			timed = append(timed, s)
		}
	}
	var out []*chartPanel
	for _, g := range results.GroupInOrder(timed, func(s *results.Summary) string { return s.Lab + "\x00" + s.Dir + "\x00" + s.Param() }) {
		out = append(out, newPanel(g))
	}
	return out
}

func newPanel(g []*results.Summary) *chartPanel {
	first := g[0]
	p := &chartPanel{unit: "op"}
	if first.SizeBytes > 0 {
		p.unit = "round"
	}
	p.title = fmt.Sprintf("%s lab · %s · %s — µs per %s, traced rounds pooled", first.Lab, first.Dir, first.ParamTitle(), p.unit)
	runtimes := map[string]bool{}
	for _, s := range g {
		runtimes[s.Runtime] = true
	}
	// Name the classes that weigh most in some bar (rename is most of
	// atomic-replace and nothing elsewhere); the rest share a segment.
	weight := map[string]float64{}
	for _, s := range g {
		for _, c := range s.Classes {
			if c.IsSyscall() {
				weight[c.Class] = math.Max(weight[c.Class], c.NsPerOp/math.Max(s.WallNsPerOp, 1))
			}
		}
	}
	classes := slices.Sorted(maps.Keys(weight))
	sort.SliceStable(classes, func(i, j int) bool { return weight[classes[i]] > weight[classes[j]] })
	named := classes
	if len(named) > maxSegments {
		named = classes[:maxSegments]
	}
	inNamed := map[string]bool{}
	for _, n := range named {
		inNamed[n] = true
	}
	values := map[string]*chartSeries{}
	for i, s := range g {
		label := s.Arm
		if len(runtimes) > 1 {
			label += " (" + s.Runtime + ")"
		}
		p.bars = append(p.bars, label)
		add := func(name string, ns, offNs float64) {
			v := values[name]
			if v == nil {
				v = &chartSeries{name: name, values: make([]float64, len(g)), off: make([]float64, len(g))}
				values[name] = v
			}
			v.values[i] += math.Max(ns, 0) / 1000
			v.off[i] += math.Max(offNs, 0) / 1000
		}
		if s.Traced == nil {
			// Throughput only: the whole op, unattributed.
			add(notTraced, 1e9/math.Max(s.OpsPerS.Center, 1e-9), 0)
			continue
		}
		userOff := 0.0
		for _, c := range s.Classes {
			switch {
			case c.Class == results.ClassUser && c.Stage == "":
				userOff = c.OffNsPerOp // preempted or blocked between syscalls
			case !c.IsSyscall():
			case inNamed[c.Class]:
				add(c.Class, c.NsPerOp, c.OffNsPerOp)
			default:
				add(otherSyscalls, c.NsPerOp, c.OffNsPerOp)
			}
		}
		if s.UserMeasured {
			// Measured, user space is on-CPU time: its bar adds the time
			// off the CPU between calls, hatched as off-CPU.
			add(results.UserTerm, s.UserNsPerOp+s.BetweenNsPerOp, s.BetweenNsPerOp)
			continue
		}
		add(results.UserTerm, s.UserNsPerOp, math.Min(userOff, s.UserNsPerOp))
	}
	for _, name := range append(append(named, otherSyscalls, results.UserTerm), notTraced) {
		if v := values[name]; v != nil {
			p.series = append(p.series, *v)
		}
	}
	return p
}

// chartClasses are the syscall classes the labs make, each with its own
// palette colour in every chart (fsync was orange in one chart and blue
// in the next when colours went in order of appearance).
var chartClasses = []string{
	results.ClassOpenatTmpfile, results.ClassOpenatCreate, results.ClassWrite, "close", "unlink", "fsync",
	"fdatasync", "linkat", "rename", "read", "lseek", "openat", "getpid", "ioctl", "newfstatat", "unlinkat",
	"renameat2", "mmap",
}

// classColors gives every class one colour, the same in every chart: the
// labs' classes their own, any other one picked by its name.
func classColors(panels []*chartPanel) map[string]color.RGBA {
	out := map[string]color.RGBA{results.UserTerm: userColor, otherSyscalls: otherColor, notTraced: {0xd0, 0xd0, 0xe0, 0xff}}
	for _, p := range panels {
		for _, s := range p.series {
			if _, ok := out[s.name]; !ok {
				out[s.name] = classColor(s.name)
			}
		}
	}
	return out
}

func classColor(class string) color.RGBA {
	if i := slices.Index(chartClasses, class); i >= 0 {
		return palette[i%len(palette)]
	}
	h := fnv.New32a()
	h.Write([]byte(class))
	return palette[h.Sum32()%uint32(len(palette))]
}

func chartFace(size vg.Length) font.Face { return font.DefaultCache.Lookup(chartFont, size) }

// roomFor is the width a text needs in any reader's sans-serif.
func roomFor(face font.Face, s string) vg.Length {
	return vg.Length(widthSlack) * face.Width(s)
}

// The layout, in points from the canvas's top-left corner (as an SVG
// renderer's pixels run), so that a test can find every text and bar in a
// rasterized chart.
type chartLayout struct {
	Width, Height   vg.Length
	LabelX          vg.Length // left edge of the arm labels
	PlotX0, PlotX1  vg.Length // the bars' zero and the right end of the data area
	LegendX         vg.Length // left edge of the legend swatches
	LegendTextX     vg.Length
	Panels          []panelLayout
	colors          map[string]color.RGBA
	face, titleFace font.Face
}

type panelLayout struct {
	Title     string
	TitleBase vg.Length // baseline
	Bars      []barLayout
	AxisY     vg.Length // the x axis line
	TickBase  vg.Length
	AxisLabel string
	AxisBase  vg.Length
	Ticks     []plot.Tick
	Legend    []legendLayout
	Bottom    vg.Length
	scale     float64 // points per µs
}

type barLayout struct {
	Label     string
	LabelBase vg.Length
	Top       vg.Length
	Bottom    vg.Length
	Segments  []segmentLayout
	Value     string // total µs, after the bar
	ValueX    vg.Length
}

// segmentLayout is one class in one bar: on the CPU from X0 to XOff, off
// it (hatched) from XOff to X1.
type segmentLayout struct {
	Name         string
	X0, XOff, X1 vg.Length
}

type legendLayout struct {
	Name    string
	Hatched bool // the off-CPU key
	Top     vg.Length
	Base    vg.Length
}

const offCPUKey = "off the CPU (hatched)"

func layoutChart(panels []*chartPanel) *chartLayout {
	l := &chartLayout{colors: classColors(panels), face: chartFace(textSize), titleFace: chartFace(titleSize)}
	// One label column and one legend column for every panel, so bars of
	// all panels start at the same x.
	var labelW, legendW, valueW, titleW vg.Length
	for _, p := range panels {
		for _, b := range p.bars {
			labelW = max(labelW, roomFor(l.face, b))
		}
		for _, s := range p.series {
			legendW = max(legendW, roomFor(l.face, s.name))
		}
		legendW = max(legendW, roomFor(l.face, offCPUKey))
		for i := range p.bars {
			valueW = max(valueW, roomFor(l.face, results.Micros(1000*p.total(i))))
		}
		titleW = max(titleW, roomFor(l.titleFace, p.title))
	}
	l.LabelX = chartPad
	l.PlotX0 = l.LabelX + labelW + labelGap
	legendCol := swatchSize + 4 + legendW
	l.Width = roundUp(max(chartMinWidth, l.PlotX0+minPlotWidth+valueW+12+legendCol+chartPad, titleW+2*chartPad), canvasQuantum)
	l.LegendX = l.Width - chartPad - legendCol
	l.LegendTextX = l.LegendX + swatchSize + 4
	l.PlotX1 = l.LegendX - 12 - valueW

	ext := l.face.Extents()
	y := chartPad
	for _, p := range panels {
		pl := panelLayout{Title: p.title, AxisLabel: "µs per " + p.unit}
		pl.TitleBase = y + l.titleFace.Extents().Ascent
		top := pl.TitleBase + l.titleFace.Extents().Descent + 6
		xmax := 0.0
		for i := range p.bars {
			xmax = math.Max(xmax, p.total(i))
		}
		if xmax <= 0 {
			xmax = 1
		}
		pl.scale = float64(l.PlotX1-l.PlotX0) / xmax
		for _, t := range (plot.DefaultTicks{}).Ticks(0, xmax) {
			if t.Value >= 0 && t.Value <= xmax*(1+1e-9) {
				if t.Label != "" {
					// DefaultTicks writes 2500 as "2500.00".
					v, _ := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'g', 6, 64), 64)
					t.Label = strconv.FormatFloat(v, 'f', -1, 64)
				}
				pl.Ticks = append(pl.Ticks, t)
			}
		}
		for i, name := range p.bars {
			mid := top + vg.Length(i)*barPitch + barPitch/2
			b := barLayout{Label: name, Top: mid - barHeight/2, Bottom: mid + barHeight/2,
				LabelBase: mid + (ext.Ascent-ext.Descent)/2}
			x := l.PlotX0
			for _, s := range p.series {
				v := s.values[i]
				if v <= 0 {
					continue
				}
				w := vg.Length(v * pl.scale)
				b.Segments = append(b.Segments, segmentLayout{Name: s.name, X0: x, XOff: x + vg.Length(math.Max(v-s.off[i], 0)*pl.scale), X1: x + w})
				x += w
			}
			b.Value, b.ValueX = results.Micros(1000*p.total(i)), x+4
			pl.Bars = append(pl.Bars, b)
		}
		bottom := top + vg.Length(len(p.bars))*barPitch
		ly := top + 2
		hatched := false
		for _, s := range p.series {
			pl.Legend = append(pl.Legend, legendLayout{Name: s.name, Top: ly, Base: ly + swatchSize/2 + (ext.Ascent-ext.Descent)/2})
			ly += legendPitch
			for _, o := range s.off {
				hatched = hatched || o > 0
			}
		}
		if hatched {
			pl.Legend = append(pl.Legend, legendLayout{Name: offCPUKey, Hatched: true, Top: ly, Base: ly + swatchSize/2 + (ext.Ascent-ext.Descent)/2})
			ly += legendPitch
		}
		pl.AxisY = bottom + 2
		pl.TickBase = pl.AxisY + 4 + ext.Ascent
		pl.AxisBase = pl.TickBase + ext.Height + 2
		pl.Bottom = max(pl.AxisBase+ext.Descent, ly)
		y = pl.Bottom + panelGap
		l.Panels = append(l.Panels, pl)
	}
	l.Height = roundUp(y-panelGap+chartPad, canvasQuantum)
	return l
}

func roundUp(v, q vg.Length) vg.Length { return vg.Length(math.Ceil(float64(v/q))) * q }

// total is a bar's length in µs.
func (p *chartPanel) total(i int) float64 {
	t := 0.0
	for _, s := range p.series {
		t += s.values[i]
	}
	return t
}

func (l *chartLayout) draw(c vg.Canvas) {
	// vg's y runs up from the bottom; the layout's runs down from the top.
	pt := func(x, y vg.Length) vg.Point { return vg.Point{X: x, Y: l.Height - y} }
	rect := func(x0, y0, x1, y1 vg.Length, clr color.Color) {
		var p vg.Path
		p.Move(pt(x0, y0))
		p.Line(pt(x1, y0))
		p.Line(pt(x1, y1))
		p.Line(pt(x0, y1))
		p.Close()
		c.SetColor(clr)
		c.Fill(p)
	}
	line := func(x0, y0, x1, y1, width vg.Length, clr color.Color) {
		var p vg.Path
		p.Move(pt(x0, y0))
		p.Line(pt(x1, y1))
		c.SetLineWidth(width)
		c.SetColor(clr)
		c.Stroke(p)
	}
	text := func(face font.Face, x, base vg.Length, s string) {
		c.SetColor(textColor)
		c.FillString(face, pt(x, base), s)
	}
	// Hatching: 45° lines on a lighter tint, on one grid for the whole
	// canvas so that adjacent segments' stripes line up.
	hatch := func(x0, y0, x1, y1 vg.Length, clr color.RGBA) {
		rect(x0, y0, x1, y1, tint(clr, 0.6))
		for d := vg.Length(math.Floor(float64((x0-y1)/hatchStep))) * hatchStep; d < x1-y0; d += hatchStep {
			// The line x − y = d inside the rectangle.
			lo, hi := max(x0, y0+d), min(x1, y1+d)
			if lo < hi {
				line(lo, lo-d, hi, hi-d, 0.9, clr)
			}
		}
	}

	// The whole canvas, so that nothing is drawn on a dark page's colour.
	rect(0, 0, l.Width, l.Height, color.White)
	for _, p := range l.Panels {
		text(l.titleFace, l.LabelX, p.TitleBase, p.Title)
		top := p.AxisY
		if len(p.Bars) > 0 {
			top = p.Bars[0].Top - 3
		}
		for _, t := range p.Ticks {
			x := l.PlotX0 + vg.Length(t.Value*p.scale)
			if t.Label == "" {
				line(x, p.AxisY, x, p.AxisY+2, 0.5, axisColor)
				continue
			}
			line(x, top, x, p.AxisY, 0.5, gridColor)
			line(x, p.AxisY, x, p.AxisY+3, 0.5, axisColor)
			text(l.face, x-l.face.Width(t.Label)/2, p.TickBase, t.Label)
		}
		line(l.PlotX0, p.AxisY, l.PlotX1, p.AxisY, 0.7, axisColor)
		line(l.PlotX0, top, l.PlotX0, p.AxisY, 0.7, axisColor)
		text(l.face, l.PlotX0+(l.PlotX1-l.PlotX0)/2-l.face.Width(p.AxisLabel)/2, p.AxisBase, p.AxisLabel)
		for _, b := range p.Bars {
			text(l.face, l.LabelX, b.LabelBase, b.Label)
			for _, s := range b.Segments {
				clr := l.colors[s.Name]
				if s.XOff > s.X0 {
					rect(s.X0, b.Top, s.XOff, b.Bottom, clr)
				}
				if s.X1 > s.XOff {
					hatch(s.XOff, b.Top, s.X1, b.Bottom, clr)
				}
			}
			text(l.face, b.ValueX, b.LabelBase, b.Value)
		}
		for _, e := range p.Legend {
			if e.Hatched {
				hatch(l.LegendX, e.Top, l.LegendX+swatchSize, e.Top+swatchSize, otherColor)
			} else {
				rect(l.LegendX, e.Top, l.LegendX+swatchSize, e.Top+swatchSize, l.colors[e.Name])
			}
			text(l.face, l.LegendTextX, e.Base, e.Name)
		}
	}
}

// tint mixes clr with white: f = 0 is clr, 1 is white.
func tint(clr color.RGBA, f float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v) + f*(255-float64(v))) }
	return color.RGBA{mix(clr.R), mix(clr.G), mix(clr.B), 0xff}
}
