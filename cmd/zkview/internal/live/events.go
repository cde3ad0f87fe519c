package live

import (
	"fmt"
	"slices"
	"time"
)

// changes says in words what differs between two Boards, for the event
// log: who joined and who left, who leads now and after how long without
// a leader, which server went down, which key changed. told is when the
// ZooKeeper notification behind the change arrived (or now, when none
// did): a handover starts then. What the first look at a panel finds
// carries its own time, where ZooKeeper or the file gives one: a znode's
// creation, a line's time.
func (h *Hub) changes(old, next Board, told time.Time) []Event {
	var out []Event
	sayAt := func(at float64, kind, format string, args ...any) {
		out = append(out, Event{At: at, Kind: kind, Text: fmt.Sprintf(format, args...)})
	}
	now := millis(h.now())
	say := func(kind, format string, args ...any) { sayAt(now, kind, format, args...) }
	h.line(sayAt, told, "sequential election", old.Election, next.Election)
	h.line(sayAt, told, "single-file election", old.Single, next.Single)
	if next.Lock != nil {
		h.comings(sayAt, lockKind(next.Lock), withGate(old.Lock), withGate(next.Lock))
		// Read the clock as it tells: after comings, whose joins and
		// leaves come first at the same moment.
		h.holders(func(kind, format string, args ...any) { sayAt(millis(h.now()), kind, format, args...) }, told, old.Lock, next.Lock)
	}
	if old.Group != nil && next.Group != nil {
		members(say, next.Group.Path, old.Group.Members, next.Group.Members)
	}
	if old.Config != nil && next.Config != nil {
		keys(say, old.Config.Keys, next.Config.Keys)
	}
	if old.Sequences != nil && next.Sequences != nil && old.Sequences.Leader != next.Sequences.Leader && next.Sequences.Leader != "" {
		say("leader", "%s leads the persistence of the sequences now", next.Sequences.Leader)
	}
	h.barrierChanges(say, old.Barrier, next.Barrier)
	h.queueChanges(say, old.Queue, next.Queue)
	servers(say, old.Servers, next.Servers)
	h.writers(sayAt, old.Out, next.Out)
	return out
}

type (
	sayer   func(kind, format string, args ...any)
	sayerAt func(at float64, kind, format string, args ...any)
)

// line tells the joins, leaves (comings) and changes of leader of an
// election. When the leader found at zkview's first look began to lead,
// ZooKeeper does not keep (the out file's history may tell), so it is told
// as found, at that look.
func (h *Hub) line(sayAt sayerAt, told time.Time, what string, old, next *Election) {
	if next == nil {
		return
	}
	before := h.comings(sayAt, what, old, next)
	now := millis(h.now()) // after comings: the joins and leaves of this change come first
	say := func(kind, format string, args ...any) { sayAt(now, kind, format, args...) }
	was, is := leader(before), leader(next.Candidates)
	switch {
	case is == nil && was != nil:
		h.vacant[what] = handover{At: millis(told), From: was.Name}
		say("leader", "nobody leads the %s now", what)
	case is != nil && old == nil:
		say("leader", "%s leads (epoch %s), as zkview found it", is.Name, epoch(is.Epoch))
	case is != nil && (was == nil || was.Name != is.Name || was.Epoch != is.Epoch):
		how := ""
		ho, ok := h.vacant[what]
		if ok {
			how = fmt.Sprintf(", after %s without one", ms(millis(told)-ho.At))
		} else if was != nil {
			how = fmt.Sprintf(": took over from %s in one change", was.Name)
			ho = handover{At: millis(told), From: was.Name}
		}
		delete(h.vacant, what)
		if ho.From != "" {
			ho.To = is.Name
			h.parts.handovers = append(h.parts.handovers[max(0, len(h.parts.handovers)-shownSpans):], ho)
		}
		say("leader", "%s leads now (epoch %s)%s", is.Name, epoch(is.Epoch), how)
	}
}

// comings tells who joined and who left a line, and the life of each
// one's session, and returns the line before. A candidate found in line
// at zkview's first look joined when its znode was made.
func (h *Hub) comings(sayAt sayerAt, what string, old, next *Election) (before []Candidate) {
	now := millis(h.now())
	say := func(kind, format string, args ...any) { sayAt(now, kind, format, args...) }
	if old != nil {
		before = old.Candidates
	}
	for _, c := range next.Candidates {
		if find(before, c.Name) == nil {
			sayAt(first(c.Since, now), "join", "%s joined the %s %s", c.Name, what, next.Path)
		}
	}
	for _, c := range before {
		if find(next.Candidates, c.Name) != nil {
			continue
		}
		if gone(c) {
			say("expired", "%s left the %s: its session expired", c.Name, what)
		} else {
			say("leave", "%s left the %s", c.Name, what)
		}
	}
	h.lives(say, before, next.Candidates)
	return before
}

// first is at when it is known (not 0), otherwise or.
func first(at, or float64) float64 {
	if at > 0 {
		return at
	}
	return or
}

// epoch is a leader's epoch, the zxid that created its znode, as the page
// shows it: ZooKeeper's own epoch and the transaction's counter in it
// (4294967299 is 1:3). Its lines carry the whole number.
func epoch(zxid int64) string { return fmt.Sprintf("%d:%d", zxid>>32, zxid&0xffffffff) }

// leader is the first in line, if it leads.
func leader(cs []Candidate) *Candidate {
	if len(cs) == 0 || cs[0].Role == "waiting" {
		return nil
	}
	return &cs[0]
}

// find is the candidate named name, or nil.
func find(cs []Candidate, name string) *Candidate {
	i := slices.IndexFunc(cs, func(c Candidate) bool { return c.Name == name })
	if i < 0 {
		return nil
	}
	return &cs[i]
}

// members tells who joined and who left a group.
func members(say sayer, path string, old, next []string) {
	for _, m := range next {
		if !slices.Contains(old, m) {
			say("join", "%s joined the group %s", m, path)
		}
	}
	for _, m := range old {
		if !slices.Contains(next, m) {
			say("leave", "%s left the group %s", m, path)
		}
	}
}

// keys tells which configuration keys changed, came or went.
func keys(say sayer, old, next []Key) {
	for _, k := range next {
		i := slices.IndexFunc(old, func(o Key) bool { return o.Name == k.Name })
		switch {
		case i < 0:
			say("change", "key %s = %q (version %d)", k.Name, k.Value, k.Version)
		case old[i].Version != k.Version:
			say("change", "key %s = %q (version %d)", k.Name, k.Value, k.Version)
		}
	}
	for _, k := range old {
		if !slices.ContainsFunc(next, func(n Key) bool { return n.Name == k.Name }) {
			say("change", "key %s was deleted", k.Name)
		}
	}
}

// servers tells each change of a server's mode.
func servers(say sayer, old, next []Server) {
	for _, s := range next {
		i := slices.IndexFunc(old, func(o Server) bool { return o.Addr == s.Addr })
		switch {
		case i < 0 && s.Mode == "down":
			say("server", "server %s is down", s.Addr)
		case i >= 0 && old[i].Mode != s.Mode && s.Mode == "down":
			say("server", "server %s is down", s.Addr)
		case i >= 0 && old[i].Mode != s.Mode:
			say("server", "server %s is %s now", s.Addr, s.Mode)
		}
	}
}
