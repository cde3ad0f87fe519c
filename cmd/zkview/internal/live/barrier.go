package live

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recipes/barrier"
	"zkspeaker/recoverable"
)

// Barrier is a barrier's path: a double barrier's N, who is in and past it
// and who waits, or a simple barrier set, with the sessions waiting for
// its removal.
type Barrier struct {
	Panel
	// Count is the double barrier's N, 0 for a simple barrier.
	Count int `json:"count"`
	// Round is the sequence number of the open round's last member, 0
	// while no round is open.
	Round int64 `json:"round,omitempty"`
	// Members are the member znodes in order; Role is "inside" for a
	// member of the open round, "waiting" for the others.
	Members []Candidate `json:"members"`
	// Waiters are the sessions the servers show watching a simple
	// barrier's znode: `zkbarrier wait`, by session id.
	Waiters []Candidate `json:"waiters"`
}

// followBarrier follows a barrier's path. Who is inside and who waits
// come from the barrier's own rule (barrier.Inspect), so the panel shows
// what the members decide.
func (h *Hub) followBarrier(ctx context.Context, rz *recoverable.RecoverableZookeeper, p Panel, poke func()) {
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		v, wake, err := barrier.Inspect(ctx, rz, p.Path)
		if err != nil {
			return nil, err
		}
		h.update(notified, "barrier "+p.Path, func(pp *parts) { pp.barrier, pp.barrierPanel = &v, p })
		poke()
		return wake, nil
	}, func(err error) {
		h.update(time.Time{}, "barrier "+p.Path, func(pp *parts) {
			pp.barrierPanel = p
			pp.barrierPanel.Err = err.Error()
			if pp.barrier == nil {
				pp.barrier = &barrier.View{Path: p.Path}
			}
		})
	})
}

// drawBarrier draws a barrier: each member inside or waiting, with its
// session as the servers see it and what it watches, and for a simple
// barrier the sessions waiting for it to go.
func drawBarrier(p Panel, v barrier.View, s fourletter.Sightings) *Barrier {
	b := &Barrier{Panel: p, Count: v.Count, Round: v.Round, Members: []Candidate{}, Waiters: []Candidate{}}
	b.Path, b.Exists = v.Path, v.Exists
	for _, m := range v.Members {
		c := candidate(m.Data, m.Owner, 0, s)
		c.Znode, c.Epoch, c.Role = m.Name, m.Czxid, "waiting"
		if m.Inside {
			c.Role = "inside"
		}
		c.Watches = watchesUnder(v.Path, m.Owner, s)
		b.Members = append(b.Members, c)
	}
	if v.Exists && v.Count == 0 && len(v.Members) == 0 {
		for id := range s.Watchers(v.Path) {
			if id != s.Self {
				c := candidate(fmt.Sprintf("0x%x", id), id, 0, s)
				c.Role, c.Watches = "waiting", []string{"*"}
				b.Waiters = append(b.Waiters, c)
			}
		}
		slices.SortFunc(b.Waiters, func(a, b Candidate) int { return strings.Compare(a.Name, b.Name) })
	}
	return b
}

// barrierChanges tells who entered and who left a barrier, each round
// that opened with the count of N it reached, a round's end, and how each
// member's session stands (a member killed inside counts down).
func (h *Hub) barrierChanges(say sayer, old, next *Barrier) {
	if next == nil {
		return
	}
	var before []Candidate
	if old != nil {
		before = old.Members
	}
	waiting, counted := 0, 0 // counted: the waiters told so far, one by one
	for _, c := range next.Members {
		if c.Role == "waiting" {
			waiting++
			if findZnode(before, c.Znode) != nil {
				counted++
			}
		}
	}
	for _, c := range next.Members {
		switch {
		case findZnode(before, c.Znode) != nil:
		case next.Round > 0 && c.Role == "waiting":
			say("join", "%s entered the barrier %s: it waits for the round inside to end", c.Name, next.Path)
		case next.Round > 0:
			say("join", "%s entered the barrier %s", c.Name, next.Path)
		default:
			counted++
			say("join", "%s entered the barrier %s: %d of %d in", c.Name, next.Path, counted, next.Count)
		}
	}
	for _, c := range before {
		if findZnode(next.Members, c.Znode) != nil {
			continue
		}
		if gone(c) {
			say("expired", "%s left the barrier %s: its session expired", c.Name, next.Path)
		} else {
			say("leave", "%s left the barrier %s", c.Name, next.Path)
		}
	}
	h.lives(say, before, next.Members)
	was := old != nil && old.Round > 0
	switch {
	case next.Round > 0 && (!was || old.Round != next.Round):
		say("leader", "the barrier %s opened: %d of %d in at once, all go on", next.Path, len(next.Members)-waiting, next.Count)
	case next.Round == 0 && was:
		say("leader", "the round at %s is over: every member still alive has left", next.Path)
	}
	// A double barrier's znode is made without its count for a moment,
	// as a simple barrier's is: only a removal tells the two apart.
	if old != nil && old.Exists && !next.Exists && old.Count == 0 {
		say("change", "the barrier %s was removed: its %d waiters go on", next.Path, len(old.Waiters))
	}
}

// findZnode is the candidate whose znode is z, or nil.
func findZnode(cs []Candidate, z string) *Candidate {
	i := slices.IndexFunc(cs, func(c Candidate) bool { return c.Znode == z })
	if i < 0 {
		return nil
	}
	return &cs[i]
}
