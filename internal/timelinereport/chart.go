package timelinereport

import (
	"fmt"
	"html"
	"io"
	"strings"
	"time"

	"zkspeaker/speaker"
)

// span is the time the chart covers, from the first line to the last.
type span struct {
	from time.Time
	dur  time.Duration
}

func chartSpan(tl *speaker.Timeline) span {
	first, last := tl.Terms[0].First, tl.Terms[0].Last
	for _, t := range tl.Terms {
		if t.First.Before(first) {
			first = t.First
		}
		if t.Last.After(last) {
			last = t.Last
		}
	}
	return span{from: first, dur: last.Sub(first)}
}

// at maps t to one of n cells.
func (s span) at(t time.Time, n int) int {
	if s.dur <= 0 {
		return 0
	}
	i := int(float64(t.Sub(s.from)) / float64(s.dur) * float64(n))
	return min(max(i, 0), n-1)
}

// WriteChart draws one row per writer across time: '#' where it spoke.
// A handover shows as one row ending where the next begins; two rows with
// '#' in the same column are two writers at once, and nothing else is
// (see layout). When width columns are too few for that, the chart takes
// more and says so.
func WriteChart(w io.Writer, tl *speaker.Timeline, width int) {
	sp := chartSpan(tl)
	label := 0
	for _, name := range tl.Writers {
		label = max(label, len(name))
	}
	stretches := tl.Stretches()
	cols, used := fit(stretches, sp, width)
	fmt.Fprintf(w, "chart: %s to %s, one column is %s", clock(sp.from), clock(sp.from.Add(sp.dur)),
		(sp.dur / time.Duration(used)).Round(time.Millisecond))
	if used > width {
		fmt.Fprintf(w, " (%d columns, not %d: fewer would put terms that follow each other in one column)", used, width)
	}
	fmt.Fprintln(w)
	for _, name := range tl.Writers {
		row := []byte(strings.Repeat(" ", used))
		for k, s := range stretches {
			if s.Name != name {
				continue
			}
			for i := cols[k].lo; i <= cols[k].hi; i++ {
				row[i] = '#'
			}
		}
		fmt.Fprintf(w, "%-*s |%s|\n", label, name, row)
	}
}

// WriteSVG draws the same chart as an SVG picture: a bar per stretch of
// steady speaking, one row per writer, overlaps in red.
func WriteSVG(w io.Writer, tl *speaker.Timeline) {
	const (
		left, plot, row, top = 160, 800, 28, 30
	)
	sp := chartSpan(tl)
	x := func(t time.Time) float64 {
		if sp.dur <= 0 {
			return left
		}
		return left + float64(t.Sub(sp.from))/float64(sp.dur)*plot
	}
	rows := map[string]int{}
	for i, name := range tl.Writers {
		rows[name] = i
	}
	height := top + row*len(tl.Writers) + 30
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="monospace" font-size="13">`+"\n", left+plot+20, height)
	fmt.Fprintf(w, `<text x="%d" y="18">%s to %s UTC, %d terms</text>`+"\n", left, clock(sp.from), clock(sp.from.Add(sp.dur)), len(tl.Terms))
	for i, name := range tl.Writers {
		fmt.Fprintf(w, `<text x="8" y="%d">%s</text>`+"\n", top+row*i+17, html.EscapeString(name))
	}
	for _, s := range tl.Stretches() {
		x0, x1 := x(s.First), x(s.Last)
		fmt.Fprintf(w, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="#3b7dd8"><title>%s %s to %s</title></rect>`+"\n",
			x0, top+row*rows[s.Name]+4, max(x1-x0, 2), row-8, html.EscapeString(s.Name), clock(s.First), clock(s.Last))
	}
	for _, o := range tl.Overlaps() {
		x0, x1 := x(o.From), x(o.To)
		fmt.Fprintf(w, `<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="red" fill-opacity="0.3"><title>%s and %s at once</title></rect>`+"\n",
			x0, top, max(x1-x0, 2), row*len(tl.Writers), html.EscapeString(o.A), html.EscapeString(o.B))
	}
	fmt.Fprintf(w, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>`+"\n", left, height-24, left+plot, height-24)
	fmt.Fprintf(w, `<text x="%d" y="%d">%s</text><text x="%d" y="%d" text-anchor="end">+%s</text>`+"\n",
		left, height-8, clock(sp.from), left+plot, height-8, sp.dur.Round(time.Millisecond))
	fmt.Fprintln(w, "</svg>")
}
