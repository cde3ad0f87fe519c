package queue

import (
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

// outOfOrder finds the takes that passed over an item before them.
func outOfOrder(in chaos.Input, r Record) chaos.Section {
	s := chaos.Section{What: OutOfOrder, Mark: "out of order"}
	lag := in.Session + in.Slack
	for _, b := range r.Takes {
		if b.Item == "" {
			continue
		}
		began := done(r, b.Name, b.At)
		for _, a := range r.Puts {
			if a.Item == "" || a.Item >= b.Item || !a.At.Before(began.Add(-lag)) || claimedBefore(r, a.Item, b.At) {
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

// done is when name's item before t was done with (acknowledged, its
// claim lost, or its Ack left unknown): its next Take began after that.
// The zero time when there was none.
func done(r Record, name string, t time.Time) time.Time {
	var last time.Time
	for _, es := range [][]Event{r.Acks, r.Lost, r.Unsettled} {
		for _, e := range es {
			if e.Name == name && e.At.Before(t) && e.At.After(last) {
				last = e.At
			}
		}
	}
	return last
}

// claimedBefore says whether a consumer's take of the item may have
// claimed it before t: the take's Take began before t.
func claimedBefore(r Record, item string, t time.Time) bool {
	for _, e := range r.Takes {
		if e.Item == item && done(r, e.Name, e.At).Before(t) {
			return true
		}
	}
	return false
}
