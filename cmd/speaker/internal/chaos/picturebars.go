package chaos

import (
	"bytes"
	"fmt"
	"html"
	"slices"
	"time"

	"zkspeaker/speaker"
)

// bar is a span on a process's lane: green where it did the recipe's work
// (wrote, was listed, agreed with the listing), hatched where the operator
// could not read at all. what names it, as its tooltip says.
type bar struct {
	lane     string
	from, to time.Time
	what     string
	unread   bool
}

// unreadWhat is the tooltip of a hatched bar: a group's lanes say nothing
// there, neither listed nor not.
const unreadWhat = "the operator could not read"

// bar draws b, with a tooltip that says what it shows and when.
func (p *picture) bar(b bar) {
	x1, x2 := p.x(b.from), p.x(b.to)
	title := fmt.Sprintf("%s: %s from %s to %s", b.lane, b.what, clockOf(b.from), clockOf(b.to))
	if b.to.Equal(b.from) {
		title = fmt.Sprintf("%s: %s at %s", b.lane, b.what, clockOf(b.from))
	}
	fill, y, h := "#4C9F70", p.y(b.lane)+8, laneH-12
	if b.unread {
		fill, y, h = "url(#unread)", p.y(b.lane), laneH-4
	}
	fmt.Fprintf(&p.b, `<rect x="%.1f" y="%.0f" width="%.1f" height="%d" fill="%s"><title>%s</title></rect>`+"\n",
		x1, y, max(x2-x1, 1.5), h, fill, html.EscapeString(title))
}

// stretchBars are the out file's writers' stretches of steady writing: a
// speaker's leadership, a holder's CMD at work, a watcher's value, a
// worker's IDs.
func stretchBars(out []byte, words words) []bar {
	tl, err := speaker.ReadTimeline(bytes.NewReader(out))
	if err != nil {
		return nil // the checker reported it already: an unreadable file
	}
	var bars []bar
	for _, st := range tl.Stretches() {
		bars = append(bars, bar{lane: st.Name, from: st.First, to: st.Last, what: words.wrote})
	}
	return bars
}

// groupBars draw a group soak from its readings: each reading holds until
// the next one, or until the operator's reads began to fail. A member's
// lane is green while the readings list it; the watcher's while its last
// report, from its life then, lists exactly who the reading lists; and
// every lane is hatched while the operator could not read, which the
// listing leaving everyone out would otherwise seem to say.
func groupBars(in Input) []bar {
	g := in.Group
	members := memberNames(g.Lives)
	var bars []bar
	add := func(lane string, from, to time.Time, what string) {
		for i := len(bars) - 1; i >= 0; i-- {
			if b := &bars[i]; b.lane == lane && b.what == what && b.to.Equal(from) {
				b.to = to
				return
			}
		}
		bars = append(bars, bar{lane: lane, from: from, to: to, what: what})
	}
	for i, r := range g.Samples {
		until := in.End
		if i+1 < len(g.Samples) {
			until = g.Samples[i+1].At
		}
		for _, u := range g.Unread {
			if u.From.After(r.At) && u.From.Before(until) {
				until = u.From
			}
		}
		for _, m := range members {
			if slices.Contains(r.Members, m) {
				add(m, r.At, until, "listed")
			}
		}
		if watcherAgrees(g, r) {
			add(watcherName, r.At, until, "its last report agrees with the listing")
		}
	}
	for _, u := range g.Unread {
		for _, lane := range append(members, watcherName) {
			bars = append(bars, bar{lane: lane, from: u.From, to: u.To, what: unreadWhat, unread: true})
		}
	}
	return bars
}

// watcherAgrees says whether the watcher runs at the reading r, and its
// last report in this life lists exactly the members r lists.
func watcherAgrees(g *GroupInput, r reading) bool {
	ls := g.Lives[watcherName]
	i := slices.IndexFunc(ls, func(l span) bool { return covers(l, r.At) })
	if i < 0 {
		return false
	}
	w, ok := lastReport(g, r.At)
	return ok && !w.At.Before(ls[i].From) && slices.Equal(w.Members, r.Members)
}
