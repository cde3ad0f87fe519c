package chaos

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
	"time"

	"zkspeaker/speaker"
)

// The soak's picture: one lane per speaker with a bar where it wrote, its
// faults drawn over it in the colour of their kind, a lane for the faults
// of ZooKeeper and of the operator, and a lane for what the checker found.
// A minute holds a hundred faults, so nothing is labelled in the plot: the
// legend names the colours, and faults.log says the rest.
const (
	picWidth = 1200
	picLeft  = 110
	laneH    = 26
)

// kindColours gives every kind a colour of its own.
var kindColours = [numKinds]string{
	Kill: "#D62728", Term: "#FF9896", StopShort: "#9467BD", StopLong: "#5B2C8F", Reset: "#17BECF",
	HoleShort: "#7F7F7F", HoleLong: "#333333", LostCreate: "#BCBD22", ServerKill: "#8C564B",
	QuorumLoss: "#E377C2", DeleteLeader: "#FF7F0E", DeletePath: "#B35806", Storm: "#1F77B4",
}

// picture draws the soak. from and to are the span shown.
type picture struct {
	b        strings.Builder
	from, to time.Time
	plot     float64
}

func (p *picture) x(t time.Time) float64 {
	d := p.to.Sub(p.from)
	if d <= 0 {
		return picLeft
	}
	return picLeft + float64(t.Sub(p.from))/float64(d)*p.plot
}

// writePicture draws the soak's SVG: title is its one-line description,
// green says what a lane's green bar means for the recipe.
func writePicture(w io.Writer, title, green string, tl *speaker.Timeline, faults []Fault, rep Report, from, to time.Time) {
	p := &picture{from: from, to: to, plot: picWidth - picLeft - 20}
	names := slices.Clone(tl.Writers)
	for _, f := range faults {
		if f.Kind.hitsAProcess() && !slices.Contains(names, f.Target) {
			names = append(names, f.Target) // a process that writes no line
		}
	}
	slices.Sort(names)
	lanes := append(names, "zookeeper", "checker")
	top := 100.0
	y := func(lane string) float64 { return top + float64(slices.Index(lanes, lane))*laneH }
	verdict, colour := "PASS", "#2CA02C"
	if !rep.Pass() {
		verdict, colour = "FAIL: "+strings.Join(rep.Failures(), ", "), "#D62728"
	}
	text(&p.b, 16, 24, 16, "#222", ` font-weight="bold"`, title)
	text(&p.b, 16, 44, 13, colour, ` font-weight="bold"`, verdict)
	p.legend(64, faults)
	for i, lane := range lanes {
		fmt.Fprintf(&p.b, `<rect x="%d" y="%.0f" width="%.0f" height="%d" fill="%s"/>`+"\n", picLeft, y(lane), p.plot, laneH-4, []string{"#F7F7F7", "#EFEFEF"}[i%2])
		text(&p.b, 16, y(lane)+16, 13, "#222", "", lane)
	}
	for _, st := range tl.Stretches() {
		x1, x2 := p.x(st.First), p.x(st.Last)
		fmt.Fprintf(&p.b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%d" fill="#4C9F70"/>`+"\n", x1, y(st.Name)+8, max(x2-x1, 1.5), laneH-12)
	}
	for _, f := range faults {
		lane := f.Target
		if !slices.Contains(names, lane) {
			lane = "zookeeper" // a server, or the operator's delete
		}
		x1, x2 := p.x(f.Start), p.x(f.End)
		fmt.Fprintf(&p.b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%d" fill="%s" fill-opacity="0.75"><title>%s</title></rect>`+"\n",
			x1, y(lane), max(x2-x1, 3), 6, kindColours[f.Kind], html.EscapeString(f.Kind.String()+" "+f.Target+" "+f.Note))
	}
	for _, o := range rep.Overlaps {
		c := "#FF9896"
		if !o.Explained() {
			c = "#D62728"
		}
		p.mark(y("checker"), o.From, o.To, c, "overlap "+o.A+" and "+o.B+" "+string(o.Window))
	}
	for _, s := range rep.Stalls {
		p.mark(y("checker"), s.From, s.To, "#D62728", "stall")
	}
	axisY := y("checker") + laneH + 6
	fmt.Fprintf(&p.b, `<line x1="%d" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#222"/>`+"\n", picLeft, axisY, picLeft+p.plot, axisY)
	step := 10 * time.Second
	if to.Sub(from) > 3*time.Minute {
		step = time.Minute
	}
	for d := time.Duration(0); d <= to.Sub(from); d += step {
		x := p.x(from.Add(d))
		fmt.Fprintf(&p.b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#222"/>`+"\n", x, axisY, x, axisY+5)
		text(&p.b, x-8, axisY+19, 12, "#444", "", fmt.Sprintf("%gs", d.Seconds()))
	}
	text(&p.b, picLeft, axisY+40, 12, "#444", "", "seconds since the first fault. Green: "+green+". Coloured strips: the faults, on their target's lane. Checker: overlaps (red: unexplained) and stalls.")
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%.0f" font-family="DejaVu Sans, Arial, sans-serif">`+"\n", picWidth, axisY+56)
	fmt.Fprintln(w, `<rect width="100%" height="100%" fill="white"/>`)
	io.WriteString(w, p.b.String())
	fmt.Fprintln(w, "</svg>")
}

// legend names the colour of every kind that happened, with its count.
func (p *picture) legend(y float64, faults []Fault) {
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
		label := fmt.Sprintf("%s ×%d", k, n)
		w := 18 + 7.2*float64(len([]rune(label))) + 14
		if x+w > picWidth-16 {
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
		x1, y+4, max(x2-x1, 3), laneH-12, colour, html.EscapeString(title))
}

func text(b *strings.Builder, x, y float64, size int, colour, extra, s string) {
	fmt.Fprintf(b, `<text x="%.1f" y="%.1f" font-size="%d" fill="%s"%s>%s</text>`+"\n", x, y, size, colour, extra, html.EscapeString(s))
}
