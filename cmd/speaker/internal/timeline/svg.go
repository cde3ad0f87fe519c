package timeline

import (
	"fmt"
	"io"
	"strings"
	"time"

	"zkspeaker/speaker"
)

// figure is one SVG timeline being drawn: what it shows, and where.
type figure struct {
	b      strings.Builder
	tl     *speaker.Timeline
	events []Event
	st     []speaker.Stretch
	gaps   []silence         // of st, found once
	over   []speaker.Overlap // of tl, found once
	sp     span
	left   float64 // x of the plot's left edge: the names stand left of it
	plot   float64 // the plot's width
	row    map[string]int
	colour map[string]string
	top    float64 // y of the first row
}

// x maps a moment to its place across the plot.
func (f *figure) x(t time.Time) float64 {
	if f.sp.dur <= 0 {
		return f.left
	}
	return f.left + float64(t.Sub(f.sp.from))/float64(f.sp.dur)*f.plot
}

// rowTop is the y of the top of a writer's row.
func (f *figure) rowTop(name string) float64 { return f.top + float64(f.row[name])*rowH }

// bottom is the y under the last row.
func (f *figure) bottom() float64 { return f.top + float64(len(f.tl.Writers))*rowH }

// WriteSVG draws the timeline as a figure that teaches: a bar of its own
// colour for each stretch of a writer, with the epoch over it; every gap,
// in which nobody wrote, hatched and labelled with its length; overlaps
// and counter jumps in red with a note; the events (SIGTERM, SIGKILL, a
// server killed) as dashed lines with what followed each; a time axis
// with a light grid; a legend. name is the out file's, for the title.
// An empty timeline draws nothing.
func WriteSVG(w io.Writer, name string, tl *speaker.Timeline, events []Event) {
	if len(tl.Terms) == 0 {
		return
	}
	st := tl.Stretches()
	f := &figure{tl: tl, events: events, st: st, gaps: silences(st), over: tl.Overlaps(), sp: chartSpan(tl, events),
		row: map[string]int{}, colour: map[string]string{}}
	longest := 0
	for i, n := range tl.Writers {
		f.row[n], f.colour[n] = i, writerColour(i)
		longest = max(longest, len([]rune(cut(n, nameChars))))
	}
	f.left = 16 + textWidth(strings.Repeat("m", max(longest, 6)), fontSize) + 14
	f.plot = figWidth - f.left - 30

	above, below := f.eventLabels(), append(f.gapLabels(), f.anomalyLabels()...)
	eventsTop := f.header(name)
	f.top = eventsTop + float64(stack(above, 8, figWidth-8, true))*laneH + 10
	lanesTop := f.bottom() + 14
	axisY := lanesTop + float64(stack(below, 8, figWidth-8, false))*laneH + 8
	notes := f.notes()
	height := axisY + 56 + float64(len(notes)+len(readingGuide))*18 + 30

	f.grid(eventsTop, axisY)
	f.rowBands()
	f.hatch(lanesTop) // under the bars and their epochs, over the bands
	f.bars()
	f.anomalies()
	f.eventLines(eventsTop, above)
	f.labels(above, eventsTop, false)
	f.labels(below, lanesTop, true)
	f.axis(axisY)
	f.writeNotes(axisY+56, notes)

	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" font-family="%s" font-size="%d">`+"\n", figWidth, height, fontStack, fontSize)
	fmt.Fprintf(w, `<rect class="background" width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">`+
		`<rect width="6" height="6" fill="#F4F4F4"/><line x1="0" y1="0" x2="0" y2="6" stroke="#BBBBBB" stroke-width="2"/></pattern></defs>`+"\n")
	io.WriteString(w, f.b.String())
	fmt.Fprintln(w, "</svg>")
}

// header writes the title, a line of counts and the legend, and returns
// the y below them.
func (f *figure) header(name string) float64 {
	svgText(&f.b, 16, 26, 17, ink, ` font-weight="bold"`, "Who wrote when in "+cut(name, 60))
	gaps := len(f.gaps)
	svgText(&f.b, 16, 46, fontSize, faint, "", fmt.Sprintf("%s, %s, %s, %s; %s to %s UTC, %s",
		Count(len(f.tl.Writers), "writer"), Count(len(f.tl.Terms), "term"), Count(gaps, "gap"), Count(len(f.tl.Anomalies), "anomaly"),
		clock(f.sp.from), clock(f.sp.from.Add(f.sp.dur)), f.sp.from.UTC().Format(time.DateOnly)))
	x, y := 16.0, 70.0
	item := func(swatch, text string) {
		w := 22 + textWidth(text, fontSize) + 24
		if x+w > figWidth-16 {
			x, y = 16, y+20
		}
		fmt.Fprintf(&f.b, `<g class="legend" transform="translate(%.1f %.1f)">%s</g>`+"\n", x, y-10, swatch)
		svgText(&f.b, x+22, y, fontSize, ink, "", text)
		x += w
	}
	box := `<rect width="16" height="11" `
	for _, n := range f.tl.Writers {
		item(box+`fill="`+f.colour[n]+`"/>`, cut(n, nameChars))
	}
	if gaps > 0 {
		item(box+`fill="url(#hatch)" stroke="#999"/>`, "gap: nobody writes")
	}
	if len(f.over) > 0 {
		item(box+`fill="`+red+`" fill-opacity="0.25" stroke="`+red+`" stroke-width="2"/>`, "overlap: two leaders at once")
	}
	if len(f.jumps()) > 0 {
		item(`<path d="M3 0l10 11m0 -11l-10 11" stroke="`+red+`" stroke-width="2.5"/>`, "counter jump: a line lost or repeated")
	}
	if len(f.events) > 0 {
		item(`<path d="M8 -2v15" stroke="`+ink+`" stroke-width="1.5" stroke-dasharray="5 3"/>`, "event: done to the election")
	}
	return y + 14
}

// grid writes the light vertical lines of the time axis.
func (f *figure) grid(top, bottom float64) {
	step := ticks(f.sp.dur)
	for d := time.Duration(0); d <= f.sp.dur; d += step {
		x := f.x(f.sp.from.Add(d))
		fmt.Fprintf(&f.b, `<line class="grid" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", x, top, x, bottom, grid)
	}
}

// axis writes the time axis: a line, a tick and a label every step, and
// what the numbers count from.
func (f *figure) axis(y float64) {
	fmt.Fprintf(&f.b, `<line class="axis" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", f.left, y, f.left+f.plot, y, ink)
	step := ticks(f.sp.dur)
	for d := time.Duration(0); d <= f.sp.dur; d += step {
		x := f.x(f.sp.from.Add(d))
		fmt.Fprintf(&f.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s"/>`+"\n", x, y, x, y+5, ink)
		svgText(&f.b, x, y+19, fontSize, ink, ` class="tick" text-anchor="middle"`, d.String())
	}
	svgText(&f.b, f.left, y+38, fontSize, faint, "", "time since "+clock(f.sp.from)+" UTC")
}

// rowBands writes each writer's name, and a light band under every other
// row.
func (f *figure) rowBands() {
	for i, n := range f.tl.Writers {
		y := f.rowTop(n)
		if i%2 == 0 {
			fmt.Fprintf(&f.b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%d" fill="#FAFAFA"/>`+"\n", f.left, y, f.plot, rowH)
		}
		fmt.Fprintf(&f.b, `<text class="name" x="%.1f" y="%.1f" text-anchor="end" fill="%s"><title>%s</title>%s</text>`+"\n",
			f.left-10, y+rowH-barH/2-8+float64(fontSize)/2, ink, esc(n), esc(cut(n, nameChars)))
	}
}

// bars writes each term's bar on its writer's row, with the epoch over it.
func (f *figure) bars() {
	for _, s := range f.st {
		x0, x1, y := f.x(s.First), f.x(s.Last), f.rowTop(s.Name)+rowH-barH-6
		fmt.Fprintf(&f.b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%d" fill="%s"><title>%s wrote from %s to %s</title></rect>`+"\n",
			x0, y, max(x1-x0, 3), barH, f.colour[s.Name], esc(s.Name), clock(s.First), clock(s.Last))
		if s.Epoch == 0 {
			continue
		}
		text, anchor := fmt.Sprintf("epoch %d", s.Epoch), "start"
		if x0+textWidth(text, 11) > figWidth-8 {
			x0, anchor = max(x1, f.left+textWidth(text, 11)), "end"
		}
		svgText(&f.b, x0, y-4, 11, faint, ` class="epoch" text-anchor="`+anchor+`"`, text)
	}
}
