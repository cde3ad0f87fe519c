package queue

import (
	"slices"
	"sort"
	"time"

	"zkspeaker/cmd/speaker/internal/chaos"
)

// The queue's order is its items' names sorted: the highest priority
// first, then the order of the puts (ZooKeeper's sequence numbers, one
// count for every priority). A consumer's Take lists the items and takes
// the first it can claim; so when it took an item b, every item a before
// b in that order that was in its listing was, at the moment it tried a,
// claimed by another consumer or gone already.
//
// What the logs can judge exactly: the Take that returned b began after
// the consumer's last Ack, claim lost or unsettled Ack before it (its
// previous item was done), and its listing after that. An item a whose
// put was acknowledged a session before that moment (a follower may
// answer a little behind the leader) was in the listing, unless taken. So
// b's take breaks the order if a comes before b and:
//
//   - no consumer's take of a can have claimed it before b was taken:
//     a claim comes after its consumer's previous item was done, and
//     before its take is logged. A redelivered item (its claimant's
//     session ended) is such a take too: it was held until then, and may
//     be taken after items behind it;
//   - and no consumer was killed, frozen or cut off from a session before
//     the Take began until b was taken: it may have claimed a and died
//     or stopped before it logged the take, its claim standing until its
//     session expired.
//
// Items whose put the producer never heard of (it was killed, or the put
// left unsettled) are required of nobody, and a put's reply settled by the
// ledger names no item: neither is an a. Both may still be a b.

// outOfOrder finds the takes that passed over an item before them. The
// moments are worked out once (ordering), so that a ten-minute soak's
// thousands of takes and puts are judged in a take-by-put pass.
func outOfOrder(in chaos.Input, r Record) chaos.Section {
	s := chaos.Section{What: OutOfOrder, Mark: "out of order"}
	lag := in.Session + in.Slack
	o := newOrdering(r)
	for _, b := range r.Takes {
		if b.Item == "" {
			continue
		}
		began := o.done(b.Name, b.At)
		for _, a := range r.Puts {
			if a.Item == "" || a.Item >= b.Item || !a.At.Before(began.Add(-lag)) || o.claimedBefore(a.Item, b.At) {
				continue
			}
			if anyHit(in, began.Add(-(2*in.Session + 2*in.Tick + in.Slack)), b.At.Add(in.Slack)) {
				continue
			}
			s.Found = append(s.Found, finding(b.At, "%s took %s (%s) while %s (%s), put at %s and before it in the queue's order, was there for the taking",
				b.Name, b.Value, b.Item, a.Value, a.Item, chaos.Clock(a.At)))
			break // one finding a take
		}
	}
	return s
}

// ordering holds, for each consumer, the moments its items were done with
// (acknowledged, their claim lost, or their Ack left unknown), in time
// order, and for each item the earliest moment a take of it may have
// claimed it.
type ordering struct {
	doneAt  map[string][]time.Time
	claimed map[string]time.Time
}

func newOrdering(r Record) *ordering {
	o := &ordering{doneAt: map[string][]time.Time{}, claimed: map[string]time.Time{}}
	for _, es := range [][]Event{r.Acks, r.Lost, r.Unsettled} {
		for _, e := range es {
			o.doneAt[e.Name] = append(o.doneAt[e.Name], e.At)
		}
	}
	for _, ts := range o.doneAt {
		slices.SortFunc(ts, time.Time.Compare)
	}
	for _, e := range r.Takes {
		began := o.done(e.Name, e.At)
		if c, ok := o.claimed[e.Item]; !ok || began.Before(c) {
			o.claimed[e.Item] = began
		}
	}
	return o
}

// done is when name's item before t was done with: its next Take began
// after that. The zero time when there was none.
func (o *ordering) done(name string, t time.Time) time.Time {
	ts := o.doneAt[name]
	i := sort.Search(len(ts), func(i int) bool { return !ts[i].Before(t) })
	if i == 0 {
		return time.Time{}
	}
	return ts[i-1]
}

// claimedBefore says whether a consumer's take of the item may have
// claimed it before t: the take's Take began before t.
func (o *ordering) claimedBefore(item string, t time.Time) bool {
	c, ok := o.claimed[item]
	return ok && c.Before(t)
}
