package timeline

import (
	"cmp"
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"zkspeaker/speaker"
)

// Sizes of the SVG figure, in pixels. Its text is monospace, so that its
// width is known without a browser: DejaVu Sans Mono, the usual
// monospace of Linux, advances 0.602 em a character.
const (
	figWidth  = 1000
	fontSize  = 13
	rowH      = 44
	barH      = 18
	laneH     = 18
	nameChars = 20 // a longer name is cut with "…"; its tooltip has it whole
	noteChars = 118
	fontStack = "DejaVu Sans Mono, Menlo, Consolas, monospace"
)

// Colours. Writers get the Okabe-Ito colours that colour-blind readers
// can tell apart, without their red: red means an anomaly.
var writerColours = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#8C564B", "#7F7F7F", "#BCBD22"}

// writerColour is the i-th writer's colour: the palette's first, then hues
// a golden angle apart, so that no two writers share one however many
// there are (a soak restarts its speakers under new names).
func writerColour(i int) string {
	if i < len(writerColours) {
		return writerColours[i]
	}
	hue := math.Mod(float64(i-len(writerColours))*137.508+15, 360)
	return fmt.Sprintf("hsl(%.0f, 60%%, %d%%)", hue, 38+(i%3)*8)
}

const (
	red   = "#D62728"
	ink   = "#222222"
	faint = "#666666"
	grid  = "#E4E4E4"
)

// textWidth estimates how wide s is at size px.
func textWidth(s string, size float64) float64 {
	return float64(utf8.RuneCountInString(s)) * 0.602 * size
}

// cut shortens s to n characters, the last one "…".
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// esc makes s safe as SVG text.
func esc(s string) string { return html.EscapeString(s) }

// label is text that names a moment, placed in a band of lanes with a
// line from the moment to it. It starts at its moment and reads to the
// right (unless the edge is too near), in the first lane where it runs
// into no other label.
type label struct {
	at     float64 // the x of the moment it names
	text   string
	class  string
	colour string
	title  string // the tooltip: the whole story
	lane   int    // 0 is the band's top lane
	x      float64
}

// stack gives each label its lane and x, within lo and hi, and returns how
// many lanes they need. Its lines must cross no text: in a band above the
// rows the lines run down from the labels, so the earliest label takes the
// top lane (fromLeft); below the rows they run up, so the latest does.
func stack(ls []label, lo, hi float64, fromLeft bool) int {
	slices.SortStableFunc(ls, func(a, b label) int {
		if fromLeft {
			return cmp.Compare(a.at, b.at)
		}
		return cmp.Compare(b.at, a.at)
	})
	type used struct{ from, to float64 }
	var lanes [][]used
	for i := range ls {
		w := textWidth(ls[i].text, fontSize)
		x := max(min(ls[i].at+3, hi-w), lo)
		lane := 0
		for ; lane < len(lanes); lane++ {
			free := !slices.ContainsFunc(lanes[lane], func(u used) bool { return x < u.to+10 && u.from < x+w+10 })
			if free {
				break
			}
		}
		if lane == len(lanes) {
			lanes = append(lanes, nil)
		}
		lanes[lane] = append(lanes[lane], used{x, x + w})
		ls[i].lane, ls[i].x = lane, x
	}
	return len(lanes)
}

// silence is a span in which nobody wrote: a gap between stretches.
type silence struct{ from, to time.Time }

// silences finds the gaps in the union of the stretches (sorted by start):
// at a handover, the time from one leader's last line to the next one's
// first.
func silences(st []speaker.Stretch) []silence {
	var out []silence
	end := st[0].Last // the latest end so far
	for _, s := range st[1:] {
		if s.First.After(end) {
			out = append(out, silence{from: end, to: s.First})
		}
		end = maxTime(end, s.Last)
	}
	return out
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// ticks picks a step of 1, 2 or 5 times a power of ten, from 1 ms, that
// cuts d into at most 10 parts, so that the axis reads in round numbers.
func ticks(d time.Duration) time.Duration {
	for step := time.Millisecond; ; step *= 10 {
		for _, k := range []time.Duration{1, 2, 5} {
			if d <= 10*k*step {
				return k * step
			}
		}
	}
}

// svgText writes a text element; extra holds any further attributes.
func svgText(b *strings.Builder, x, y float64, size float64, colour, extra, text string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="%g" fill="%s"%s>%s</text>`+"\n", x, y, size, colour, extra, esc(text))
}
