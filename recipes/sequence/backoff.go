package sequence

import (
	"context"
	"math/rand/v2"
	"time"
)

// Default backoff after a lost compare-and-set; `seqid bench --backoff`
// compares choices, and docs/bench.md shows the figures behind these.
const (
	DefaultBackoffBase = 5 * time.Millisecond
	DefaultBackoffMax  = 200 * time.Millisecond
)

// backoff is how long a writer waits after losing compare-and-sets in a
// row, before it reads the sequence again and retries.
//
// The article retries at once. But a lost compare-and-set is not free: the
// server refuses it only after the quorum has logged it, like any write.
// Writers that retry at once collide again, and the more of them there
// are, the more of the quorum's writes are refusals: the IDs per second
// fall as workers are added. A writer that lost waits instead, longer with
// each loss in a row (base, 2×base, 4×base, … up to max), and by a random
// amount between half and all of that, so that the losers do not return
// together. The winner keeps writing meanwhile, from the state its own
// write left, without a read.
type backoff struct {
	base, max time.Duration
}

// after returns the wait after losses compare-and-sets lost in a row: 0
// when there is no backoff (base 0, the article's way).
func (b backoff) after(losses int) time.Duration {
	if b.base <= 0 || losses <= 0 {
		return 0
	}
	d := b.max
	if shift := losses - 1; shift < 30 && b.base<<shift < b.max {
		d = b.base << shift
	}
	return d/2 + rand.N(d/2+1)
}

// deferFor bounds how long a call may wait for a calm moment: once the
// oldest waiting call has waited this long, the worker writes after every
// backoff, busy or not. Without the bound, a worker that lost once could
// wait for seconds on end while workers that never lost, and never wait,
// keep the sequence busy.
const deferFor = time.Second

// patience is how many times in a row a worker that lost finds the
// sequence busy and waits again, before it writes all the same: a worker
// that waits for a quiet moment waits boundedly, and one that loses again
// gets a fresh patience.
const patience = 16

// busy reports whether, after a lost compare-and-set, the sequence is
// being written too often for our write to stand a chance: more than once
// per two of our round trips, on average, since we last looked. Our
// compare-and-set would then most likely lose, and cost the quorum a
// logged write for nothing, while a read is nearly free (our own server
// answers it, and nothing is logged): so the worker waits again, longer,
// and writes once the sequence calms down, or its patience runs out. This
// is test-and-test-and-set, the way spin locks keep from hammering a
// contended cache line. A worker that writes a streak, each write from the
// state its last one left, is ahead of any worker that must read first:
// the losers leave it alone instead of fighting it.
func (s *Sequence) busy(ver int32, oldest time.Time) bool {
	now := time.Now()
	moved, since := int64(ver)-int64(s.seen), now.Sub(s.seenAt)
	if s.losses == 0 || s.waited >= patience || now.Sub(oldest) >= deferFor || s.backoff.base <= 0 || moved <= 0 || since > time.Duration(moved)*2*s.rtt {
		s.waited = 0 // and write: the next loss gets a fresh patience
		return false
	}
	s.seen, s.seenAt = ver, now
	s.losses++
	s.waited++
	return true
}

// lostTo notes a compare-and-set at version ver that lost: another write
// made version ver+1 just now.
func (s *Sequence) lostTo(ver int32) {
	s.losses++
	s.seen, s.seenAt = ver+1, time.Now()
}

// timed notes how long one of our compare-and-sets took, for busy.
func (s *Sequence) timed(d time.Duration) {
	if s.rtt == 0 {
		s.rtt = d
		return
	}
	s.rtt += (d - s.rtt) / 8
}

// pause waits out the backoff after n failures in a row, or until ctx
// ends.
func (s *Sequence) pause(ctx context.Context, n int) {
	d := s.backoff.after(n)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
