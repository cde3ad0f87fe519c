package live

import (
	"context"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recipes/lock"
	"zkspeaker/recoverable"
)

// followLock follows a lock's path: a read-write line, readers and
// writers in one line, or a semaphore's leases and its gate. Who holds and
// whom each waiter waits for come from the lock's own rules
// (lock.Standing), so the panel shows what the contenders decide.
func (h *Hub) followLock(ctx context.Context, rz *recoverable.RecoverableZookeeper, p Panel, poke func()) {
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		v, wake, err := lock.Inspect(ctx, rz, p.Path)
		if err != nil {
			return nil, err
		}
		var standing []string
		for _, l := range []struct {
			at string
			cs []lock.Contender
		}{{lineOf(v), v.Line}, {v.Path + "/gate", v.Gate}} {
			for _, c := range l.cs {
				standing = append(standing, l.at+"/"+c.Name)
			}
		}
		var made map[string]float64
		if notified.IsZero() {
			made = madeAt(ctx, rz, standing)
		}
		h.update(notified, "lock "+p.Path, func(pp *parts) {
			pp.lock, pp.lockPanel = &v, p
			keepMade(pp, p.Path, standing, made)
		})
		poke()
		return wake, nil
	}, func(err error) {
		h.update(time.Time{}, "lock "+p.Path, func(pp *parts) {
			pp.lockPanel = p
			pp.lockPanel.Err = err.Error()
			if pp.lock == nil {
				pp.lock = &lock.View{Path: p.Path}
			}
		})
	})
}

// lineOf is where the znodes of v's line stand: the lock's path, or a
// semaphore's leases under it.
func lineOf(v lock.View) string {
	if v.Leases > 0 {
		return v.Path + "/leases"
	}
	return v.Path
}

// drawLock draws a lock: its line, readers and writers or a semaphore's
// leases, each holder and each waiter with the one it waits for, and a
// semaphore's N and its gate.
func drawLock(p Panel, v lock.View, s fourletter.Sightings, made map[string]float64) *Election {
	e := &Election{Panel: p, Kind: "lock", Leases: v.Leases}
	e.Path, e.Exists = v.Path, v.Exists
	e.Candidates = contenders(e, lineOf(v), v.Line, s, made)
	if v.Leases > 0 {
		e.Gate = contenders(e, v.Path+"/gate", v.Gate, s, made)
	}
	return e
}

// contenders draws the contenders of one line of a lock, whose znodes
// stand under at.
func contenders(e *Election, at string, cs []lock.Contender, s fourletter.Sightings, made map[string]float64) []Candidate {
	out := []Candidate{}
	for _, c := range cs {
		k := candidate(c.Data, c.Owner, made[at+"/"+c.Name], s)
		k.Znode, k.Epoch, k.Mode, k.Waits, k.Role = c.Name, c.Czxid, c.Mode(), c.Waits, "waiting"
		if c.Holds {
			k.Role = "holder"
		}
		if c.Revoke {
			k.Revoke = &Revoke{By: c.RevokeBy}
		}
		k.Watches = watchesUnder(at, c.Owner, s)
		if !c.Holds && k.Seen == "connected" && len(k.Watches) == 0 {
			k.Watches = []string{"*"} // see line
		}
		if len(k.Watches) == 1 && k.Watches[0] == "*" {
			e.Herd = true
		}
		out = append(out, k)
	}
	return out
}

// holders tells who came to hold a lock and when nobody holds it any
// more: several hold at once, readers or leases, so it is told holder by
// holder rather than as a change of the first in line. The time without
// a holder is told as an election's time without a leader.
func (h *Hub) holders(say sayer, told time.Time, old, next *Election) {
	var before []Candidate
	if old != nil {
		before = old.Candidates
	}
	was, now := 0, 0
	for _, c := range before {
		if c.Role == "holder" {
			was++
		}
	}
	const what = "lock"
	for _, c := range next.Candidates {
		if c.Role != "holder" {
			continue
		}
		now++
		if b := find(before, c.Name); b != nil && b.Role == "holder" && b.Epoch == c.Epoch {
			continue
		}
		how := ""
		if old == nil {
			how = ", as zkview found it"
		} else if ho, ok := h.vacant[what]; ok {
			how = ", after " + ms(millis(told)-ho.At) + " without a holder"
			delete(h.vacant, what)
		}
		if next.Leases > 0 {
			say("leader", "%s holds a lease now (epoch %s)%s", c.Name, epoch(c.Epoch), how)
		} else {
			say("leader", "%s holds the lock now (%s, epoch %s)%s", c.Name, c.Mode, epoch(c.Epoch), how)
		}
	}
	if now == 0 && was > 0 {
		h.vacant[what] = handover{At: millis(told)}
		say("leader", "nobody holds the %s now", lockKind(next))
	}
	for _, c := range next.Candidates {
		if b := find(before, c.Name); c.Revoke != nil && (b == nil || b.Revoke == nil) {
			by := ""
			if c.Revoke.By != "" {
				by = " by " + c.Revoke.By
			}
			say("revoke", "%s was asked%s to let go of the %s (a revoke mark on its znode)", c.Name, by, lockKind(next))
		}
	}
	if next.Leases > 0 && now != was && old != nil {
		say("change", "leases in use: %d of %d", now, next.Leases)
	}
}

// lockKind is what the log calls the lock: a semaphore, or a lock.
func lockKind(e *Election) string {
	if e.Leases > 0 {
		return "semaphore"
	}
	return "lock"
}

// withGate is a semaphore's lock with its gate's contenders in its line,
// so that one who joins at the gate is told then, not when it holds.
func withGate(e *Election) *Election {
	if e == nil || len(e.Gate) == 0 {
		return e
	}
	all := *e
	all.Candidates = append(slices.Clone(e.Gate), e.Candidates...)
	return &all
}
