package group

import (
	"slices"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// unreadWhat is the tooltip of a hatched bar: a group's lanes say nothing
// there, neither listed nor not.
const unreadWhat = "the operator could not read"

// picture draws a group soak's lanes from its readings.
var picture = &chaos.Picture{
	Bars:   groupBars,
	Lanes:  func(in chaos.Input) []string { return append(memberNames(rec(in).Lives), watcherName) },
	LaneOf: memberHit,
	Key:    "Hatched: the operator could not read the group (a server killed, or the quorum lost); empty: read, and not listed.",
}

// groupBars draw a group soak from its readings: each reading holds until
// the next one, or until the operator's reads began to fail. A member's
// lane is green while the readings list it; the watcher's while its last
// report, from its life then, lists exactly who the reading lists; and
// every lane is hatched while the operator could not read, which the
// listing leaving everyone out would otherwise seem to say.
func groupBars(in chaos.Input) []chaos.Bar {
	g := rec(in)
	members := memberNames(g.Lives)
	var bars []chaos.Bar
	add := func(lane string, from, to time.Time, what string) {
		for i := len(bars) - 1; i >= 0; i-- {
			if b := &bars[i]; b.Lane == lane && b.What == what && b.To.Equal(from) {
				b.To = to
				return
			}
		}
		bars = append(bars, chaos.Bar{Lane: lane, From: from, To: to, What: what})
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
			bars = append(bars, chaos.Bar{Lane: lane, From: u.From, To: u.To, What: unreadWhat, Unread: true})
		}
	}
	return bars
}

// watcherAgrees says whether the watcher runs at the reading r, and its
// last report in this life lists exactly the members r lists.
func watcherAgrees(g *Record, r reading) bool {
	ls := g.Lives[watcherName]
	i := slices.IndexFunc(ls, func(l chaos.Span) bool { return covers(l, r.At) })
	if i < 0 {
		return false
	}
	w, ok := lastReport(g, r.At)
	return ok && !w.At.Before(ls[i].From) && slices.Equal(w.Members, r.Members)
}
