package chaostest

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// Drawing is an SVG picture read back: its lanes' tops, and every
// rectangle that has a title.
type Drawing struct {
	SVG      string
	from, to time.Time
	Lanes    map[string]float64
	rects    []titled
}

type titled struct {
	x1, x2, y float64
	title     string
}

var (
	laneLabel  = regexp.MustCompile(`<text x="16.0" y="([\d.]+)" font-size="13" fill="#222">([^<]+)</text>`)
	titledRect = regexp.MustCompile(`<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)"[^>]*><title>([^<]*)</title></rect>`)
)

// ReadDrawing reads back the picture svg of a soak from from to to.
func ReadDrawing(t *testing.T, svg string, from, to time.Time) Drawing {
	t.Helper()
	d := Drawing{SVG: svg, from: from, to: to, Lanes: map[string]float64{}}
	for _, m := range laneLabel.FindAllStringSubmatch(svg, -1) {
		y, _ := strconv.ParseFloat(m[1], 64)
		d.Lanes[m[2]] = y - 16
	}
	for _, m := range titledRect.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		w, _ := strconv.ParseFloat(m[3], 64)
		d.rects = append(d.rects, titled{x1: x, x2: x + w, y: y, title: m[4]})
	}
	if len(d.Lanes) == 0 {
		t.Fatalf("no lanes in the picture:\n%s", svg)
	}
	return d
}

// x is where the picture draws the moment at into the soak.
func (d Drawing) x(at time.Duration) float64 {
	return chaos.PicLeft + float64(at)/float64(d.to.Sub(d.from))*(chaos.PicWidth-chaos.PicLeft-20)
}

// On lists the rectangles on lane whose title has what.
func (d Drawing) On(lane, what string) []titled {
	top, ok := d.Lanes[lane]
	var out []titled
	for _, r := range d.rects {
		if ok && r.y >= top && r.y < top+chaos.LaneH && strings.Contains(r.title, what) {
			out = append(out, r)
		}
	}
	return out
}

// Covered says whether one rectangle of the kind covers from to to.
func (d Drawing) Covered(lane, what string, from, to time.Duration) bool {
	return slices.ContainsFunc(d.On(lane, what), func(r titled) bool { return r.x1 <= d.x(from)+0.5 && r.x2 >= d.x(to)-0.5 })
}

// Touched says whether a rectangle of the kind shares a moment with from
// to to.
func (d Drawing) Touched(lane, what string, from, to time.Duration) bool {
	return slices.ContainsFunc(d.On(lane, what), func(r titled) bool { return r.x1 <= d.x(to)+0.5 && r.x2 >= d.x(from)-0.5 })
}

// Titles lists the titles of the rectangles on lane, a line each.
func (d Drawing) Titles(lane string) string {
	var b strings.Builder
	for _, r := range d.On(lane, "") {
		b.WriteString(r.title + "\n")
	}
	return b.String()
}
