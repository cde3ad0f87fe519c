package timeline_test

import (
	"encoding/xml"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"zkspeaker/cmd/speaker/internal/timeline"
	"zkspeaker/speaker"
)

// script builds an out file line by line: who wrote at which offset.
type script struct {
	t0    time.Time
	b     strings.Builder
	count map[string]int
}

func newScript() *script {
	return &script{t0: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), count: map[string]int{}}
}

// speak writes n lines by name, one every step from offset, with an epoch.
func (s *script) speak(name string, epoch int64, offset time.Duration, n int, step time.Duration) *script {
	for i := 0; i < n; i++ {
		s.count[name]++
		l := speaker.Line{Time: s.t0.Add(offset + time.Duration(i)*step), Name: name, Counter: uint64(s.count[name]), Epoch: epoch}
		s.b.WriteString(l.String() + "\n")
	}
	return s
}

func (s *script) timeline(t *testing.T) *speaker.Timeline {
	t.Helper()
	tl, err := speaker.ReadTimeline(strings.NewReader(s.b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// raw adds a line as it is, such as a torn one.
func (s *script) raw(line string) *script { s.b.WriteString(line + "\n"); return s }

// node is any element of an SVG, with its attributes, text and children.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Nodes   []node     `xml:",any"`
}

func (n node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func (n node) num(name string) float64 {
	f, _ := strconv.ParseFloat(n.attr(name), 64)
	return f
}

// title is the tooltip of an element.
func (n node) title() string {
	for _, c := range n.Nodes {
		if c.XMLName.Local == "title" {
			return c.Text
		}
	}
	return ""
}

// picture is a drawn SVG, read back.
type picture struct {
	root node
	src  string
}

// draw writes the SVG of tl and events and parses it.
func draw(t *testing.T, tl *speaker.Timeline, events []timeline.Event) picture {
	t.Helper()
	var b strings.Builder
	timeline.WriteSVG(&b, "out/demo/out.txt", tl, events)
	var p picture
	if err := xml.Unmarshal([]byte(b.String()), &p.root); err != nil {
		t.Fatalf("the SVG is not well-formed: %v\n%s", err, b.String())
	}
	p.src = b.String()
	return p
}

// class lists the elements of a class, in document order.
func (p picture) class(c string) []node {
	var out []node
	var walk func(n node)
	walk = func(n node) {
		if n.attr("class") == c {
			out = append(out, n)
		}
		for _, k := range n.Nodes {
			walk(k)
		}
	}
	walk(p.root)
	return out
}

// texts lists the text of the elements of a class, sorted.
func (p picture) texts(c string) []string {
	var out []string
	for _, n := range p.class(c) {
		out = append(out, strings.TrimSpace(n.Text))
	}
	slices.Sort(out)
	return out
}
