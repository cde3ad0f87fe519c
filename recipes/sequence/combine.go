package sequence

import (
	"context"
	"slices"
	"time"
)

// One process, one writer. Calls of NextN on one Sequence queue up; one of
// them leads, and runs rounds: each round reads the sequence (or trusts its
// last write), takes the queued calls whose IDs fit below the limit, and
// reserves them all in one compare-and-set. A call that arrives while a
// write is on its way waits for the next round, which takes it together
// with every other call that came meanwhile: the busier the process, the
// more IDs each write carries. The leader leads until its own call is
// answered, then hands the lead to the oldest call still waiting.
//
// Without this, every goroutine would send its own compare-and-set on the
// same version, and all but one would lose: a lost compare-and-set is
// still a write that the quorum logs, so more goroutines would bring fewer
// IDs per second.

// call is one NextN waiting for its IDs.
type call struct {
	k      int64
	came   time.Time   // when NextN was called
	giveUp time.Time   // when it stops waiting for room below the limit: came plus the wait
	reply  chan answer // capacity 1; sent to once, under Sequence.mu
	gone   bool        // the caller left before its answer; under Sequence.mu
	waited bool        // it has waited for room at the head of the queue; under Sequence.mu
}

// answer is a call's IDs or error, or the lead.
type answer struct {
	first int64
	err   error
	lead  bool // no answer yet: run the rounds (see lead)
}

// enqueue queues a call for k IDs, giving it the lead if nobody leads.
func (s *Sequence) enqueue(k int64) *call {
	now := time.Now()
	c := &call{k: k, came: now, giveUp: now.Add(s.wait), reply: make(chan answer, 1)}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, c)
	if !s.leading {
		s.leading = true
		c.reply <- answer{lead: true}
	}
	return c
}

// leave takes c out of the queue when its caller's context ends. If its
// answer came meanwhile, leave returns it (the IDs are the caller's); if
// the lead came, leave hands it on. A call that a round took is marked
// gone, and the round skips its IDs if they are written.
func (s *Sequence) leave(c *call) (answer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked(c)
	select {
	case a := <-c.reply:
		if !a.lead {
			return a, true
		}
		s.passLocked()
	default:
	}
	return answer{}, false
}

// dropLocked marks c as left and takes it out of the queue, if it is
// there. s.mu is held.
func (s *Sequence) dropLocked(c *call) {
	c.gone = true
	s.queue = slices.DeleteFunc(s.queue, func(q *call) bool { return q == c })
}

// passLocked hands the lead to the oldest waiting call, or drops it when
// nobody waits. s.mu is held.
func (s *Sequence) passLocked() {
	if len(s.queue) == 0 {
		s.leading = false
		return
	}
	s.queue[0].reply <- answer{lead: true}
}

// lead runs rounds until c, the leader's own call, is answered or ctx
// ends, then hands the lead on.
func (s *Sequence) lead(ctx context.Context, c *call) (int64, error) {
	// Deferred, so that the lead is handed on even if a round panics and
	// the caller recovers: a lead that nobody holds would hang every call.
	defer func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.passLocked()
	}()
	for {
		select {
		case a := <-c.reply:
			return a.first, a.err
		default:
		}
		if ctx.Err() != nil {
			s.mu.Lock()
			s.dropLocked(c)
			s.mu.Unlock()
			return 0, ctx.Err()
		}
		s.round(ctx)
	}
}

// round makes one attempt to answer the calls at the head of the queue.
// It answers them (IDs or an error), or leaves them queued for the next
// round: after a lost compare-and-set (and a backoff), a sequence made
// anew, or the leader's ctx ending.
func (s *Sequence) round(ctx context.Context) {
	if s.head != nil {
		s.countRound(ctx)
		return
	}
	cur, ver, err := s.current(ctx)
	fresh := s.cached == nil // read just now, rather than what our last write left
	if err != nil {
		s.failQueued(ctx, err)
		return
	}
	s.mode.Store(cur.Mode)
	if cur.counter() {
		s.setHead(cur, ver)
		s.countRound(ctx)
		return
	}
	if s.busy(ver, s.oldest()) {
		s.pause(ctx, s.losses)
		return
	}
	room := cur.Limit - cur.Next
	if ver >= rolloverAt { // see rolloverAt: the leader must make the znode anew first
		room = 0
	}
	batch, total := s.take(min(room, MaxCount))
	if batch == nil {
		s.waitForRoom(ctx, cur)
		return
	}
	first, out, err := s.claim(ctx, cur, ver, total)
	switch {
	case err == nil && out == won:
		s.losses, s.agains = 0, 0
		s.deliver(batch, first)
	case err != nil && ctx.Err() == nil:
		s.answerAll(batch, err)
	default: // not written: the calls wait for the next round
		s.putBack(batch)
		switch {
		case err != nil:
		case out == lost && fresh:
			// Lost from a fresh read: another worker is writing. (Lost
			// from what our last write left says only that others wrote
			// since: read and try again at once.)
			s.lostTo(ver)
			s.pause(ctx, s.losses)
		case out == again:
			// The sequence was made anew under us: read and try again,
			// at once the first time. A marker gone while its znode stays
			// (deleted by hand) would repeat this at every round: back off.
			s.agains++
			s.pause(ctx, s.agains-1)
		}
	}
}

// oldest returns when the oldest queued call came (now if none waits).
func (s *Sequence) oldest() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return time.Now()
	}
	return s.queue[0].came
}

// take removes from the head of the queue the calls whose IDs fit in room,
// in order, and returns them with the sum of their counts; nil when even
// the oldest does not fit.
func (s *Sequence) take(room int64) ([]*call, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var total int64
	n := 0
	for n < len(s.queue) && s.queue[n].k <= room-total {
		total += s.queue[n].k
		n++
	}
	if n == 0 {
		return nil, 0
	}
	batch := slices.Clone(s.queue[:n])
	s.queue = slices.Delete(s.queue, 0, n)
	return batch, total
}

// putBack returns a batch whose write did not happen to the head of the
// queue, in its order, without the calls that left meanwhile.
func (s *Sequence) putBack(batch []*call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	batch = slices.DeleteFunc(batch, func(c *call) bool { return c.gone })
	s.queue = append(batch, s.queue...)
}

// deliver hands each call of a written batch its range, from first on, in
// order. A call that left meanwhile gets nothing: its IDs are skipped.
func (s *Sequence) deliver(batch []*call, first int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range batch {
		if c.gone {
			s.skip(first, c.k, "its caller gave up before the write that reserved them came back")
		} else {
			s.handed.Add(c.k)
			c.reply <- answer{first: first}
		}
		first += c.k
	}
}

// answerAll gives every call of batch the error err.
func (s *Sequence) answerAll(batch []*call, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range batch {
		if !c.gone {
			c.reply <- answer{err: err}
		}
	}
}

// failQueued answers every queued call with err, a failure to read the
// sequence that every one of them would meet, unless it is only the
// leader's ctx that ended.
func (s *Sequence) failQueued(ctx context.Context, err error) {
	if ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	batch := s.queue
	s.queue = nil
	s.mu.Unlock()
	s.answerAll(batch, err)
}
