package live

import (
	"fmt"
	"slices"
	"time"
)

// changes says in words what differs between two Boards, for the event
// log: who joined and who left, who leads now and after how long without
// a leader, which server went down, which key changed.
func (h *Hub) changes(old, next Board) []Event {
	at := millis(h.now())
	var out []Event
	say := func(kind, format string, args ...any) {
		out = append(out, Event{At: at, Kind: kind, Text: fmt.Sprintf(format, args...)})
	}
	h.line(say, "sequential election", old.Election, next.Election)
	h.line(say, "single-file election", old.Single, next.Single)
	h.line(say, "lock", old.Lock, next.Lock)
	if old.Group != nil && next.Group != nil {
		members(say, next.Group.Path, old.Group.Members, next.Group.Members)
	}
	if old.Config != nil && next.Config != nil {
		keys(say, old.Config.Keys, next.Config.Keys)
	}
	if old.Sequences != nil && next.Sequences != nil && old.Sequences.Leader != next.Sequences.Leader && next.Sequences.Leader != "" {
		say("leader", "%s leads the persistence of the sequences now", next.Sequences.Leader)
	}
	servers(say, old.Servers, next.Servers)
	writers(say, old.Out, next.Out)
	return out
}

type sayer func(kind, format string, args ...any)

// line tells the joins, leaves and changes of leader of one line of
// candidates.
func (h *Hub) line(say sayer, what string, old, next *Election) {
	if next == nil {
		return
	}
	var before []Candidate
	if old != nil {
		before = old.Candidates
	}
	for _, c := range next.Candidates {
		if find(before, c.Name) == nil {
			say("join", "%s joined the %s %s", c.Name, what, next.Path)
		}
	}
	for _, c := range before {
		if find(next.Candidates, c.Name) != nil {
			continue
		}
		if c.Seen == "not connected" {
			say("expired", "%s left the %s: its session expired (no server held it)", c.Name, what)
		} else {
			say("leave", "%s left the %s", c.Name, what)
		}
	}
	was, now := leader(before), leader(next.Candidates)
	switch {
	case now == nil && was != nil:
		h.since[what] = h.now()
		say("leader", "nobody leads the %s now", what)
	case now != nil && (was == nil || was.Name != now.Name || was.Epoch != now.Epoch):
		how := ""
		if t, ok := h.since[what]; ok {
			how = fmt.Sprintf(", after %s without one", h.now().Sub(t).Round(time.Millisecond))
		} else if was != nil {
			how = fmt.Sprintf(": took over from %s in one change", was.Name)
		}
		delete(h.since, what)
		say("leader", "%s %s now (epoch %d)%s", now.Name, verb(now.Role), now.Epoch, how)
	}
}

// verb is what a first in line does.
func verb(role string) string {
	if role == "holder" {
		return "holds the lock"
	}
	return "leads"
}

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
