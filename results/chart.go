package results

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart geometry: one panel per lab × dir × parameter (so per size for the
// buffers lab), one horizontal stacked bar per arm × runtime.
const (
	chartWidth     = 9 * vg.Inch
	panelChrome    = 0.95 * vg.Inch // title, axis, tick labels
	barPitch       = 0.3 * vg.Inch
	barWidth       = 0.22 * vg.Inch
	legendFraction = 0.24
	maxSegments    = 8 // syscall classes drawn by name; the rest are "other syscalls"
)

var (
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
// user space, as "svg" or "png".
func WriteChart(w io.Writer, sums []*Summary, format string) (err error) {
	// The plotting library panics on geometry it cannot lay out; a chart
	// is never worth a crash of the run that made the numbers.
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("drawing the chart: %v", r)
		}
	}()
	panels := chartPanels(sums)
	if len(panels) == 0 {
		return fmt.Errorf("no arm has a time per op to chart")
	}
	height := vg.Length(0)
	for _, p := range panels {
		height += p.height()
	}
	var canvas vg.CanvasWriterTo
	switch format {
	case "svg":
		canvas = vgsvg.New(chartWidth, height)
	case "png":
		canvas = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(chartWidth, height), vgimg.UseDPI(110))}
	default:
		return fmt.Errorf("chart format %q: want svg or png", format)
	}
	dc := draw.New(canvas)
	top := dc.Max.Y
	colors := classColors(panels)
	for _, p := range panels {
		area := dc
		area.Min.Y, area.Max.Y = top-p.height(), top
		top -= p.height()
		if err := p.draw(area, colors); err != nil {
			return err
		}
	}
	_, err = canvas.WriteTo(w)
	return err
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
}

func (p *chartPanel) height() vg.Length {
	return panelChrome + vg.Length(len(p.bars))*barPitch
}

func chartPanels(sums []*Summary) []*chartPanel {
	var timed []*Summary
	for _, s := range sums {
		if s.WallNsPerOp > 0 || s.OpsPerS.Known() {
			timed = append(timed, s)
		}
	}
	var out []*chartPanel
	for _, g := range groupInOrder(timed, func(s *Summary) string { return s.Lab + "\x00" + s.Dir + "\x00" + s.Param() }) {
		out = append(out, newPanel(g))
	}
	return out
}

func newPanel(g []*Summary) *chartPanel {
	first := g[0]
	p := &chartPanel{unit: "op"}
	if first.SizeBytes > 0 {
		p.unit = "round"
	}
	p.title = fmt.Sprintf("%s lab · %s · %s — µs per %s, traced rounds pooled", first.Lab, first.Dir, paramTitle(first.ArmResult), p.unit)
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
	classes := sortedKeys(weight)
	sort.SliceStable(classes, func(i, j int) bool { return weight[classes[i]] > weight[classes[j]] })
	named := classes
	if len(named) > maxSegments {
		named = classes[:maxSegments]
	}
	inNamed := map[string]bool{}
	for _, n := range named {
		inNamed[n] = true
	}
	values := map[string][]float64{}
	for i, s := range g {
		label := s.Arm
		if len(runtimes) > 1 {
			label += " (" + s.Runtime + ")"
		}
		p.bars = append(p.bars, label)
		add := func(name string, ns float64) {
			if values[name] == nil {
				values[name] = make([]float64, len(g))
			}
			values[name][i] += math.Max(ns, 0) / 1000
		}
		if s.Traced == nil {
			// Throughput only: the whole op, unattributed.
			add("not traced", 1e9/math.Max(s.OpsPerS.Center, 1e-9))
			continue
		}
		for _, c := range s.Classes {
			switch {
			case !c.IsSyscall():
			case inNamed[c.Class]:
				add(c.Class, c.NsPerOp)
			default:
				add("other syscalls", c.NsPerOp)
			}
		}
		add(userTerm, s.UserNsPerOp)
	}
	for _, name := range append(append(named, "other syscalls", userTerm), "not traced") {
		if v := values[name]; v != nil {
			p.series = append(p.series, chartSeries{name, v})
		}
	}
	return p
}

// classColors gives every class one colour across all panels.
func classColors(panels []*chartPanel) map[string]color.Color {
	out := map[string]color.Color{userTerm: userColor, "other syscalls": otherColor, "not traced": color.RGBA{0xd0, 0xd0, 0xe0, 0xff}}
	n := 0
	for _, p := range panels {
		for _, s := range p.series {
			if _, ok := out[s.name]; !ok {
				out[s.name] = palette[n%len(palette)]
				n++
			}
		}
	}
	return out
}

func (p *chartPanel) draw(area draw.Canvas, colors map[string]color.Color) error {
	pl := plot.New()
	pl.Title.Text = p.title
	pl.Title.TextStyle.Font.Size = vg.Points(10)
	pl.X.Label.Text = "µs per " + p.unit
	pl.X.Min = 0
	var below *plotter.BarChart
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(9)
	legend.Padding = vg.Points(2)
	for _, s := range p.series {
		// Bars run top to bottom in run order.
		vals := make(plotter.Values, len(s.values))
		for i, v := range s.values {
			vals[len(vals)-1-i] = v
		}
		b, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return fmt.Errorf("chart %s: %w", s.name, err)
		}
		b.Horizontal = true
		b.Color = colors[s.name]
		b.LineStyle.Width = 0
		if below != nil {
			b.StackOn(below)
		}
		below = b
		pl.Add(b)
		legend.Add(s.name, b)
	}
	names := make([]string, len(p.bars))
	for i, n := range p.bars {
		names[len(names)-1-i] = n
	}
	pl.NominalY(names...)
	pl.Y.Tick.Label.Font.Size = vg.Points(9)
	area.Max.Y -= vg.Points(6) // air between panels
	plotArea, legendArea := area, area
	split := area.Min.X + vg.Length(1-legendFraction)*(area.Max.X-area.Min.X)
	plotArea.Max.X, legendArea.Min.X = split, split+8
	legendArea.Max.Y -= 0.3 * vg.Inch
	pl.Draw(plotArea)
	legend.Draw(legendArea)
	return nil
}
