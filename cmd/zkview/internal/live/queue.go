package live

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/fourletter"
	"zkspeaker/recipes/queue"
	"zkspeaker/recoverable"
)

// Queue is a queue's items in the order of takes, the handles open on it,
// and the item taken last.
type Queue struct {
	Panel
	// Items are the first queueRead items in the order of takes; Total
	// counts them all.
	Items []QueueItem `json:"items"`
	Total int         `json:"total"`
	// names are every item's name: an item is put or gone when it comes
	// into or leaves these, not the first few.
	names []string
	// Handles are the producers and consumers, one per ledger, by the
	// session marking it; a handle's Role is "claims" while its session
	// holds a claim, "handle" otherwise, "gone" when no session marks
	// its ledger (killed, not yet reaped).
	Handles []Candidate `json:"handles"`
	// Last is the item taken last since zkview started, nil before.
	Last *Taken `json:"last,omitempty"`
}

// QueueItem is one item of a queue.
type QueueItem struct {
	Name     string `json:"name"`
	Value    string `json:"value"`
	Priority int    `json:"priority"`
	Seq      int64  `json:"seq"`
	// ClaimedBy is the session holding the item's claim, in hex: an
	// at-least-once consumer that has not acknowledged it. "" for none.
	ClaimedBy string `json:"claimedBy,omitempty"`
}

// Taken is an item that left the queue, or was claimed.
type Taken struct {
	QueueItem
	// How is "taken" (deleted as it was taken: at-most-once), "claimed"
	// (at-least-once, until its Ack) or "acknowledged".
	How string `json:"how"`
	// By is the session that took it, "" when zkview cannot tell.
	By string `json:"by,omitempty"`
	// At is when zkview saw it, in Unix milliseconds.
	At float64 `json:"at"`
}

// queueRead is how many items zkview reads of a queue, from the first:
// the page lists ten, and the claims stand among the first items, as
// consumers take in order. A queue of thousands would cost thousands of
// reads at every change.
const queueRead = 50

// followQueue follows a queue's path. The items' order, the claims and
// which handle wrote last come from the queue's own reading of its
// znodes (queue.Inspect); what was taken last is told by comparing two
// looks.
func (h *Hub) followQueue(ctx context.Context, rz *recoverable.RecoverableZookeeper, p Panel, poke func()) {
	var prev *queue.View
	follow(ctx, func(ctx context.Context, notified time.Time) (<-chan zk.Event, error) {
		v, wake, err := queue.InspectFirst(ctx, rz, p.Path, queueRead)
		if err != nil {
			return nil, err
		}
		at := h.now()
		if !notified.IsZero() {
			at = notified
		}
		last := taken(prev, v, millis(at))
		prev = &v
		h.update(notified, "queue "+p.Path, func(pp *parts) {
			pp.queue, pp.queuePanel = &v, p
			if last != nil {
				pp.queueLast = last
			}
		})
		poke()
		return wake, nil
	}, func(err error) {
		h.update(time.Time{}, "queue "+p.Path, func(pp *parts) {
			pp.queuePanel = p
			pp.queuePanel.Err = err.Error()
			if pp.queue == nil {
				pp.queue = &queue.View{Path: p.Path}
			}
		})
	})
}

// taken is the last item that left the queue or was claimed between two
// looks, nil when none did. An item that left unclaimed was deleted by a
// take, in the multi that moved the taker's ledger (v.Last); one that
// left claimed was acknowledged by its claim's holder.
func taken(prev *queue.View, v queue.View, at float64) *Taken {
	if prev == nil {
		return nil
	}
	var out *Taken
	for _, it := range prev.Items {
		if slices.Contains(v.Names, it.Name) {
			continue // still in the queue, maybe behind the first items
		}
		how, by := "taken", lastWriter(v)
		if it.Claimed {
			how, by = "acknowledged", session(it.ClaimedBy)
		}
		out = &Taken{QueueItem: item(it), How: how, By: by, At: at}
	}
	for _, it := range v.Items {
		i := slices.IndexFunc(prev.Items, func(p queue.Queued) bool { return p.Name == it.Name })
		if it.Claimed && (i < 0 || prev.Items[i].ClaimedBy != it.ClaimedBy) {
			out = &Taken{QueueItem: item(it), How: "claimed", By: session(it.ClaimedBy), At: at}
		}
	}
	return out
}

// lastWriter is the session of the handle that changed the items last.
func lastWriter(v queue.View) string {
	for _, h := range v.Handles {
		if h.Ledger == v.Last && len(h.Sessions) > 0 {
			return session(h.Sessions[len(h.Sessions)-1])
		}
	}
	return ""
}

// session is a session id as the page shows it, "" for none.
func session(id int64) string {
	if id == 0 {
		return ""
	}
	return fmt.Sprintf("0x%x", id)
}

// item is a queued item as the page shows it.
func item(q queue.Queued) QueueItem {
	return QueueItem{Name: q.Name, Value: string(q.Value), Priority: q.Priority, Seq: q.Seq, ClaimedBy: session(q.ClaimedBy)}
}

// drawQueue draws a queue: its items, its handles with their sessions as
// the servers see them, and the item taken last.
func drawQueue(p Panel, v queue.View, last *Taken, s fourletter.Sightings) *Queue {
	q := &Queue{Panel: p, Items: []QueueItem{}, Handles: []Candidate{}, Last: last, Total: len(v.Names), names: v.Names}
	q.Path, q.Exists = v.Path, v.Exists
	claims := map[int64]bool{}
	for _, it := range v.Items {
		q.Items = append(q.Items, item(it))
		claims[it.ClaimedBy] = it.Claimed
	}
	for _, h := range v.Handles {
		if len(h.Sessions) == 0 {
			q.Handles = append(q.Handles, Candidate{Name: h.Ledger, Znode: h.Ledger, Role: "gone", Seen: "not connected", Life: "gone", Watches: []string{}})
			continue
		}
		id := h.Sessions[len(h.Sessions)-1]
		c := candidate(session(id), id, 0, s)
		c.Znode, c.Role, c.Waits = h.Ledger, "handle", waitsFor(v, id, s)
		if claims[id] {
			c.Role = "claims"
		}
		q.Handles = append(q.Handles, c)
	}
	return q
}

// waitsFor is the value of the item whose claim the session id watches,
// by the servers' wchc: an at-least-once consumer that found every item
// claimed waits for the first claim to end. "" when it watches none.
func waitsFor(v queue.View, id int64, s fourletter.Sightings) string {
	paths, _ := s.Session(id)
	for _, it := range v.Items {
		if slices.Contains(paths, v.Path+"/"+it.Name+"/claim") {
			return string(it.Value)
		}
	}
	return ""
}

// queueChanges tells each put, take, claim, Ack and claim ended, and a
// handle's process gone or paused. Handles come and go with every
// `zkqueue put`: the panel shows them, the log does not.
func (h *Hub) queueChanges(say sayer, old, next *Queue) {
	if old == nil || next == nil {
		return
	}
	h.lives(say, old.Handles, next.Handles)
	for _, it := range next.Items {
		i := slices.IndexFunc(old.Items, func(o QueueItem) bool { return o.Name == it.Name })
		was := ""
		if i >= 0 {
			was = old.Items[i].ClaimedBy
		} else if !slices.Contains(old.names, it.Name) {
			say("join", "%s was put into %s (priority %d)", it.Value, next.Path, it.Priority)
		}
		if was != "" && was != it.ClaimedBy {
			say("expired", "the claim of %s on %s ended before its Ack: it is back in %s", was, it.Value, next.Path)
		}
		if it.ClaimedBy != "" && it.ClaimedBy != was {
			say("leader", "%s claimed %s: it stays in the queue until its Ack", it.ClaimedBy, it.Value)
		}
	}
	for _, it := range old.Items {
		if slices.Contains(next.names, it.Name) {
			continue
		}
		by := "a consumer"
		if l := next.Last; l != nil && l.Name == it.Name && l.By != "" {
			by = l.By
		}
		if it.ClaimedBy != "" {
			say("leave", "%s acknowledged %s: it is gone for good", it.ClaimedBy, it.Value)
		} else {
			say("leave", "%s took %s from %s", by, it.Value, next.Path)
		}
	}
}
