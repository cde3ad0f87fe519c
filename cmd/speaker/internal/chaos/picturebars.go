package chaos

import (
	"bytes"
	"fmt"
	"html"
	"time"

	"zkspeaker/speaker"
)

// Bar is a span on a process's lane: green where it did the recipe's
// work (wrote, was listed), hatched (Unread) where the operator could not
// read at all. What names it, as its tooltip says.
type Bar struct {
	Lane     string
	From, To time.Time
	What     string
	Unread   bool
}

// bar draws b, with a tooltip that says what it shows and when.
func (p *picture) bar(b Bar) {
	x1, x2 := p.x(b.From), p.x(b.To)
	title := fmt.Sprintf("%s: %s from %s to %s", b.Lane, b.What, at(b.From), at(b.To))
	if b.To.Equal(b.From) {
		title = fmt.Sprintf("%s: %s at %s", b.Lane, b.What, at(b.From))
	}
	fill, y, h := "#4C9F70", p.y(b.Lane)+8, LaneH-12
	if b.Unread {
		fill, y, h = "url(#unread)", p.y(b.Lane), LaneH-4
	}
	fmt.Fprintf(&p.b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`+"\n",
		x1, y, max(x2-x1, 1.5), h, fill, html.EscapeString(title))
}

// stretchBars are the out file's writers' stretches of steady writing: a
// speaker's leadership, or whatever lines the recipe's processes write.
func stretchBars(out []byte, words Words) []Bar {
	tl, err := speaker.ReadTimeline(bytes.NewReader(out))
	if err != nil {
		return nil // the checker reported it already: an unreadable file
	}
	var bars []Bar
	for _, st := range tl.Stretches() {
		bars = append(bars, Bar{Lane: st.Name, From: st.First, To: st.Last, What: words.Wrote})
	}
	return bars
}
