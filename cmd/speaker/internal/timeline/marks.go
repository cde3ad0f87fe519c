package timeline

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"zkspeaker/speaker"
)

// gapLabels names each gap with its length: the lesson of the figure, the
// time in which no leader wrote.
func (f *figure) gapLabels() []label {
	var out []label
	for _, g := range f.gaps {
		out = append(out, label{at: f.x(g.from), text: "gap " + duration(g.to.Sub(g.from)), class: "gap-label", colour: ink,
			title: fmt.Sprintf("nobody wrote from %s to %s", clock(g.from), clock(g.to))})
	}
	return out
}

// jumps are the counter jumps, which a chart can place: they have a time.
func (f *figure) jumps() []speaker.Anomaly {
	var out []speaker.Anomaly
	for _, a := range f.tl.Anomalies {
		if a.Kind == speaker.AnomalyCounterJump && !a.Time.IsZero() {
			out = append(out, a)
		}
	}
	return out
}

// anomalyLabels names the overlaps and counter jumps, in red.
func (f *figure) anomalyLabels() []label {
	var out []label
	for _, o := range f.over {
		out = append(out, label{at: f.x(o.From), text: "overlap " + duration(o.To.Sub(o.From)) + ": two leaders", class: "overlap-label", colour: red,
			title: fmt.Sprintf("%s and %s both wrote from %s to %s", o.A, o.B, clock(o.From), clock(o.To))})
	}
	for _, a := range f.jumps() {
		out = append(out, label{at: f.x(a.Time), text: "counter jump", class: "jump-label", colour: red, title: a.Detail})
	}
	return out
}

// eventLabels names each event over the rows.
func (f *figure) eventLabels() []label {
	var out []label
	for _, e := range f.events {
		out = append(out, label{at: f.x(e.Time), text: e.Label(), class: "event-label", colour: ink,
			title: e.Note + ": " + outcome(f.st, e)})
	}
	return out
}

// hatch hatches each gap across the rows and spans it with a bracket under
// them, where its label hangs.
func (f *figure) hatch(lanesTop float64) {
	for _, g := range f.gaps {
		x0, x1 := f.x(g.from), f.x(g.to)
		w := max(x1-x0, 2)
		fmt.Fprintf(&f.b, `<rect class="gap" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="url(#hatch)"><title>nobody wrote for %s</title></rect>`+"\n",
			x0, f.top, w, lanesTop-f.top-4, duration(g.to.Sub(g.from)))
		y := lanesTop - 4
		fmt.Fprintf(&f.b, `<path class="bracket" d="M%.1f %.1fv-5M%.1f %.1fv-5M%.1f %.1fh%.1f" stroke="%s" fill="none"/>`+"\n",
			x0, y, x0+w, y, x0, y, w, ink)
	}
}

// anomalies shades each overlap red across the rows and crosses out each
// counter jump on its writer's row.
func (f *figure) anomalies() {
	for _, o := range f.over {
		x0, x1 := f.x(o.From), f.x(o.To)
		fmt.Fprintf(&f.b, `<rect class="overlap" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.25" stroke="%s" stroke-width="2"><title>%s and %s both wrote</title></rect>`+"\n",
			x0, f.top, max(x1-x0, 3), f.bottom()-f.top, red, red, esc(o.A), esc(o.B))
	}
	for _, a := range f.jumps() {
		x, y := f.x(a.Time), f.rowTop(a.Name)+rowH-barH/2-6
		fmt.Fprintf(&f.b, `<path class="jump" d="M%.1f %.1fl12 12m0 -12l-12 12" stroke="%s" stroke-width="3"><title>%s</title></path>`+"\n",
			x-6, y-6, red, esc(a.Detail))
	}
}

// eventLines draws a dashed line down from each event's label through the
// rows.
func (f *figure) eventLines(top float64, ls []label) {
	for _, l := range ls {
		fmt.Fprintf(&f.b, `<line class="event" x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="5 3"/>`+"\n",
			l.at, top+float64(l.lane)*laneH+2, l.at, f.bottom(), ink)
	}
}

// labels writes a band of labels whose lanes start at top; below the rows
// (up), each hangs from its moment on a thin line.
func (f *figure) labels(ls []label, top float64, up bool) {
	for _, l := range ls {
		y := top + float64(l.lane)*laneH + 13
		if up {
			fmt.Fprintf(&f.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="0.8"/>`+"\n", l.at, top-4, l.at, y-11, l.colour)
		}
		fmt.Fprintf(&f.b, `<text class="%s" x="%.1f" y="%.1f" fill="%s" font-weight="bold"><title>%s</title>%s</text>`+"\n",
			l.class, l.x, y, l.colour, esc(l.title), esc(l.text))
	}
}

// note is a line under the figure: an event and what followed it, or an
// anomaly.
type note struct{ text, colour string }

// notes tells, under the axis, what happened at each event and what is
// wrong in the file, a line of the figure each, or more for a long one;
// the most anomalies it lists is 10.
func (f *figure) notes() []note {
	var out []note
	for _, e := range f.events {
		text := fmt.Sprintf("at %-9s %s", duration(e.Time.Sub(f.sp.from)), e.Label())
		if e.Note != "" {
			text += " (" + e.Note + ")"
		}
		out = append(out, note{text + ": " + outcome(f.st, e), ink})
	}
	for i, a := range f.tl.Anomalies {
		if i == 10 {
			out = append(out, note{fmt.Sprintf("and %d more anomalies: see the text report", len(f.tl.Anomalies)-i), red})
			break
		}
		where := ""
		if a.Line > 0 {
			where = fmt.Sprintf("line %d: ", a.Line)
		}
		out = append(out, note{where + a.Kind.String() + ": " + a.Detail, red})
	}
	var lines []note
	for _, n := range out {
		for _, l := range wrap(n.text, noteChars) {
			lines = append(lines, note{l, n.colour})
		}
	}
	return lines
}

// readingGuide closes the figure: how to read it, for one who never has.
var readingGuide = []string{
	"A bar is a leader writing. A hatched gap is time in which no leader wrote: a handover, or a leader paused.",
	"Two bars over each other would be two leaders (red). An epoch (the leader znode's czxid) numbers a leadership.",
}

// writeNotes writes the notes from y down, and the reading guide.
func (f *figure) writeNotes(y float64, notes []note) {
	if len(notes) > 0 {
		svgText(&f.b, 16, y, fontSize, ink, ` font-weight="bold"`, "What happened")
	}
	for i, n := range notes {
		svgText(&f.b, 16, y+18*float64(i+1), fontSize, n.colour, ` class="note" style="white-space:pre"`, n.text)
	}
	for i, l := range readingGuide {
		svgText(&f.b, 16, y+18*float64(len(notes)+i+1)+14, fontSize, faint, ` class="guide"`, l)
	}
}

// wrap breaks text into lines of at most n characters at its spaces; the
// lines after the first are indented. A word too long for a line is cut.
func wrap(text string, n int) []string {
	var lines []string
	for indent := ""; ; indent = "    " {
		text = indent + text
		if utf8.RuneCountInString(text) <= n {
			return append(lines, text)
		}
		r := []rune(text)
		at := strings.LastIndex(string(r[:n]), " ")
		if at <= len(indent) {
			return append(lines, cut(text, n))
		}
		lines = append(lines, text[:at])
		text = text[at+1:]
	}
}
