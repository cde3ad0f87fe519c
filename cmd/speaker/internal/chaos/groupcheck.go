package chaos

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// GroupInput is what the group soak adds to the checker's input.
type GroupInput struct {
	// Samples are the operator's readings of the group, in time order.
	Samples []reading
	// Reports are the watcher's readings, one per line it printed.
	Reports []reading
	// Lives says when each process ran: every member's, and the watcher's.
	Lives map[string][]span
}

// groupBound is how long after the last change (a fault healed, a member
// started or ended) ZooKeeper's listing and the watcher's report must show
// exactly the live members: a dead member's session must expire (S), the
// servers notice (a tick), a reading come (sampleEvery), and the slack.
func groupBound(in Input) time.Duration {
	return in.Session + in.Tick + sampleEvery + in.Slack
}

// checkGroup holds the group soak to its three rules: once nothing has
// changed for the bound, the listing and the watcher's last report equal
// the live members; no member is listed past the bound after its process
// ended; and the watcher never reports a member joining whose process had
// ended before the bound.
func checkGroup(in Input) (listing, watcher []Finding) {
	g, bound := in.Group, groupBound(in)
	for _, r := range g.Samples {
		if quiet(in, r.At, bound) {
			if live := liveAt(g.Lives, r.At); !slices.Equal(r.Members, live) {
				listing = append(listing, Finding{Time: r.At, Detail: fmt.Sprintf("listed %s, while %s ran", names(r.Members), names(live))})
			}
			if w, ok := watcherAt(g, r.At, bound); ok && !slices.Equal(w.Members, r.Members) {
				watcher = append(watcher, Finding{Time: r.At, Detail: fmt.Sprintf("the watcher's last report (%s) says %s; ZooKeeper lists %s", clockOf(w.At), names(w.Members), names(r.Members))})
			}
		}
		for _, m := range r.Members {
			if ended, late := goneFor(in, g.Lives[m], r.At, bound); late {
				listing = append(listing, Finding{Time: r.At, Detail: fmt.Sprintf("%s still listed, its process ended at %s", m, clockOf(ended))})
			}
		}
	}
	for _, r := range g.Reports {
		if m, ok := strings.CutPrefix(r.Change, "+ "); ok {
			if ended, late := goneFor(in, g.Lives[m], r.At, bound); late {
				watcher = append(watcher, Finding{Time: r.At, Detail: fmt.Sprintf("the watcher reported %s joining; its process ended at %s", m, clockOf(ended))})
			}
		}
	}
	return firstOfRuns(listing), firstOfRuns(watcher)
}

// quiet reports whether nothing changed in the bound before t: no fault
// held, no member started or ended.
func quiet(in Input, t time.Time, bound time.Duration) bool {
	from := t.Add(-bound)
	for _, f := range in.Faults {
		if !f.Start.After(t) && f.End.After(from) {
			return false
		}
	}
	for name, lives := range in.Group.Lives {
		if name == watcherName {
			continue
		}
		for _, l := range lives {
			if within(l.From, from, t) || (!l.To.IsZero() && within(l.To, from, t)) {
				return false
			}
		}
	}
	return !t.Before(in.Start.Add(bound))
}

func within(x, from, to time.Time) bool { return x.After(from) && !x.After(to) }

// liveAt lists the members whose process ran at t, sorted.
func liveAt(lives map[string][]span, t time.Time) []string {
	var out []string
	for name, ls := range lives {
		if name != watcherName && slices.ContainsFunc(ls, func(l span) bool { return covers(l, t) }) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

func covers(l span, t time.Time) bool { return !l.From.After(t) && (l.To.IsZero() || l.To.After(t)) }

// watcherAt returns the watcher's last report at or before t, if its
// process had been running for the bound by then.
func watcherAt(g *GroupInput, t time.Time, bound time.Duration) (reading, bool) {
	if !slices.ContainsFunc(g.Lives[watcherName], func(l span) bool { return covers(l, t.Add(-bound)) && covers(l, t) }) {
		return reading{}, false
	}
	var last reading
	found := false
	for _, r := range g.Reports {
		if r.At.After(t) {
			break
		}
		last, found = r, true
	}
	return last, found
}

// goneFor reports whether a member whose lives are ls had ended more than
// the bound before t, counted from the later of its end and the end of any
// ZooKeeper fault that began before t (servers down expire no session).
func goneFor(in Input, ls []span, t time.Time, bound time.Duration) (ended time.Time, late bool) {
	if len(ls) == 0 {
		return time.Time{}, true
	}
	last := ls[len(ls)-1]
	for _, l := range ls {
		if !l.From.After(t) {
			last = l
		}
	}
	if covers(last, t) || last.To.IsZero() || last.From.After(t) {
		return time.Time{}, false
	}
	from := last.To
	for _, f := range in.Faults {
		if (f.Kind == ServerKill || f.Kind == QuorumLoss) && !f.Start.After(t) && f.End.After(from) {
			from = f.End
		}
	}
	return last.To, t.After(from.Add(bound))
}

// firstOfRuns keeps the first of each run of findings with the same detail
// in a row: one broken state, read every 200 ms, is one finding.
func firstOfRuns(fs []Finding) []Finding {
	var out []Finding
	for i, f := range fs {
		if i > 0 && fs[i-1].Detail == f.Detail {
			continue
		}
		out = append(out, f)
	}
	return out
}

func names(ms []string) string {
	if len(ms) == 0 {
		return "nobody"
	}
	return strings.Join(ms, " ")
}

func clockOf(t time.Time) string { return t.UTC().Format(clock) }

// sortFindings orders findings by time, then by detail: map order is not
// the report's.
func sortFindings(fs []Finding) {
	slices.SortFunc(fs, func(a, b Finding) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Detail, b.Detail)
	})
}
