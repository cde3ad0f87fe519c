package chaos

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
	"time"
)

// The soak's picture: one lane per process with a bar where it did the
// recipe's work (a speaker writing, or what the recipe draws), its faults drawn
// over it in the colour of their kind, a lane for the faults of ZooKeeper
// and of the operator, and a lane for what the checker found. A minute
// holds a hundred faults, so nothing is labelled in the plot: the legend
// names the colours, every bar and strip says what it is on hover, and
// faults.log says the rest.
//
// PicWidth is the picture's width, PicLeft where its plot begins and
// LaneH each lane's height, for a test that reads a picture back.
const (
	PicWidth = 1200
	PicLeft  = 110
	LaneH    = 26
)

// kindColours gives every kind a colour of its own.
var kindColours = [numKinds]string{
	Kill: "#D62728", Term: "#FF9896", StopShort: "#9467BD", StopLong: "#5B2C8F", Reset: "#17BECF",
	HoleShort: "#7F7F7F", HoleLong: "#333333", LostCreate: "#BCBD22", ServerKill: "#8C564B",
	QuorumLoss: "#E377C2", DeleteLeader: "#FF7F0E", DeletePath: "#B35806", Storm: "#1F77B4", DataLoss: "#000000",
}

// picture draws the soak. from and to are the span shown.
type picture struct {
	b        strings.Builder
	from, to time.Time
	plot     float64
	lanes    []string
}

func (p *picture) x(t time.Time) float64 {
	d := p.to.Sub(p.from)
	if d <= 0 {
		return PicLeft
	}
	return PicLeft + float64(t.Sub(p.from))/float64(d)*p.plot
}

func (p *picture) y(lane string) float64 { return 100 + float64(slices.Index(p.lanes, lane))*LaneH }

// WritePicture draws the soak's SVG from what the checker judged, in the
// words of its recipe: title is its one-line description.
func WritePicture(w io.Writer, title string, in Input, rep Report) {
	rc := recipeNamed(in.Recipe)
	words, own := rc.Words, rc.Picture
	if own == nil {
		own = &Picture{}
	}
	p := &picture{from: in.Start, to: in.End, plot: PicWidth - PicLeft - 20}
	bars := stretchBars(in.Out, words)
	if own.Bars != nil {
		bars = own.Bars(in)
	}
	p.lanes = append(laneNames(in, bars, own), "zookeeper", "checker")
	verdict, colour := "PASS", "#2CA02C"
	if !rep.Pass() {
		verdict, colour = "FAIL: "+strings.Join(rep.Failures(), ", "), "#D62728"
	}
	text(&p.b, 16, 24, 16, "#222", ` font-weight="bold"`, title)
	text(&p.b, 16, 44, 13, colour, ` font-weight="bold"`, verdict)
	p.legend(64, words, in.Faults)
	for i, lane := range p.lanes {
		fmt.Fprintf(&p.b, `<rect x="%d" y="%.0f" width="%.0f" height="%d" fill="%s"/>`+"\n", PicLeft, p.y(lane), p.plot, LaneH-4, []string{"#F7F7F7", "#EFEFEF"}[i%2])
		text(&p.b, 16, p.y(lane)+16, 13, "#222", "", lane)
	}
	for _, b := range bars {
		p.bar(b)
	}
	for _, f := range in.Faults {
		lane := laneOf(f, own)
		if lane == "" {
			lane = "zookeeper" // a server, or the operator's delete of an election's znode
		}
		x1, x2 := p.x(f.Start), p.x(f.End)
		fmt.Fprintf(&p.b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%d" fill="%s" fill-opacity="0.75"><title>%s</title></rect>`+"\n",
			x1, p.y(lane), max(x2-x1, 3), 6, kindColours[f.Kind], html.EscapeString(words.kindName(f.Kind)+" "+f.Target+" "+f.Note))
	}
	p.findings(rep)
	p.axis(words, own.Key)
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" font-family="DejaVu Sans, Arial, sans-serif">`+"\n", PicWidth, p.y("checker")+LaneH+94)
	fmt.Fprintln(w, `<defs><pattern id="unread" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)"><rect width="2.5" height="6" fill="#8C8C8C"/></pattern></defs>`)
	fmt.Fprintln(w, `<rect width="100%" height="100%" fill="white"/>`)
	io.WriteString(w, p.b.String())
	fmt.Fprintln(w, "</svg>")
}

// laneNames are the processes' lanes, sorted: every one with a bar, every
// one a fault hit, and those the recipe draws always.
func laneNames(in Input, bars []Bar, own *Picture) []string {
	var names []string
	add := func(n string) {
		if n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	for _, b := range bars {
		add(b.Lane)
	}
	for _, f := range in.Faults {
		add(laneOf(f, own)) // a process that writes no line: its faults on the ZooKeeper lane would read as the servers'
	}
	if own.Lanes != nil {
		for _, l := range own.Lanes(in) {
			add(l)
		}
	}
	slices.Sort(names)
	return names
}

// laneOf is the process lane a fault is drawn on: its target's, or for an
// operator's delete of one process's znode, the lane the recipe says;
// "" for the servers' faults and an election's znodes.
func laneOf(f Fault, own *Picture) string {
	switch {
	case f.Kind.HitsAProcess():
		return f.Target
	case f.Kind != DeleteLeader || own.LaneOf == nil:
		return ""
	}
	return own.LaneOf(f)
}

// findings marks on the checker's lane every finding that has a moment:
// overlaps, stalls, and each recipe's own.
func (p *picture) findings(rep Report) {
	y := p.y("checker")
	for _, o := range rep.Overlaps {
		c := "#FF9896"
		if !o.Explained() {
			c = "#D62728"
		}
		p.mark(y, o.From, o.To, c, "overlap "+o.A+" and "+o.B+" "+string(o.Window))
	}
	for _, s := range rep.Stalls {
		p.mark(y, s.From, s.To, "#D62728", "stall")
	}
	marks := []Section{{Mark: "counter jump", Found: rep.CounterJumps}, {Mark: "epoch drop", Found: rep.EpochDrops}}
	for _, c := range append(marks, rep.Own...) {
		for _, f := range c.Found {
			if !f.Time.IsZero() && c.Mark != "" {
				p.mark(y, f.Time, f.Time, "#D62728", c.Mark+": "+f.Detail)
			}
		}
	}
}

// axis draws the time axis and, under it, what the colours mean.
func (p *picture) axis(words Words, extra string) {
	axisY := p.y("checker") + LaneH + 6
	fmt.Fprintf(&p.b, `<line x1="%d" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#222"/>`+"\n", PicLeft, axisY, PicLeft+p.plot, axisY)
	step := 10 * time.Second
	if p.to.Sub(p.from) > 3*time.Minute {
		step = time.Minute
	}
	for d := time.Duration(0); d <= p.to.Sub(p.from); d += step {
		x := p.x(p.from.Add(d))
		fmt.Fprintf(&p.b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#222"/>`+"\n", x, axisY, x, axisY+5)
		text(&p.b, x-8, axisY+19, 12, "#444", "", fmt.Sprintf("%gs", d.Seconds()))
	}
	key := []string{"Seconds since the first fault. Green: " + words.Green + "."}
	if extra != "" {
		key = append(key, extra)
	}
	key = append(key, "Coloured strips: the faults, on their target's lane. Checker: "+words.Checker+".")
	for i, k := range key {
		text(&p.b, PicLeft, axisY+40+float64(i)*16, 12, "#444", "", k)
	}
}

// legend names the colour of every kind that happened, with its count.
func (p *picture) legend(y float64, words Words, faults []Fault) {
	x := 16.0
	for _, k := range Kinds() {
		n := 0
		for _, f := range faults {
			if f.Kind == k {
				n++
			}
		}
		if n == 0 {
			continue
		}
		label := fmt.Sprintf("%s ×%d", words.kindName(k), n)
		w := 18 + 7.2*float64(len([]rune(label))) + 14
		if x+w > PicWidth-16 {
			x, y = 16, y+16 // a second row
		}
		fmt.Fprintf(&p.b, `<rect x="%.1f" y="%.0f" width="12" height="10" fill="%s"/>`+"\n", x, y-9, kindColours[k])
		text(&p.b, x+16, y, 12, "#222", "", label)
		x += w
	}
}

// mark draws a checker's finding on its lane.
func (p *picture) mark(y float64, from, to time.Time, colour, title string) {
	x1, x2 := p.x(from), p.x(to)
	fmt.Fprintf(&p.b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`+"\n",
		x1, y+4, max(x2-x1, 3), LaneH-12, colour, html.EscapeString(title))
}

func text(b *strings.Builder, x, y float64, size int, colour, extra, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="%d" fill="%s"%s>%s</text>`+"\n", x, y, size, colour, extra, html.EscapeString(s))
}
