package sequence

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/reason"
)

// Waiting for room: a call whose IDs do not fit below the limit waits for
// the persistence leader to raise it, each call for its own wait at most,
// then fails with ErrNoRoom.

// waitForRoom waits for room for the oldest call, until its own wait
// runs out, and then answers ErrNoRoom to it and to any other call whose
// wait ran out: the calls behind it wait on, each its own wait. A cached
// state is dropped first: the limit may have been raised since our write.
func (s *Sequence) waitForRoom(ctx context.Context, cur state) {
	if s.cached != nil {
		s.cached = nil
		return
	}
	s.waitFor(ctx, func(ctx context.Context, giveUp time.Time) error {
		return s.awaitRoom(ctx, s.oldestCount(), giveUp)
	}, "next", cur.Next, "limit", cur.Limit)
}

// oldestCount is how many IDs the oldest queued call asks for.
func (s *Sequence) oldestCount() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return 1
	}
	return s.queue[0].k
}

// waitFor runs await until the oldest call's wait runs out, and then
// answers ErrNoRoom to it and to any other call whose wait ran out: the
// calls behind it wait on, each its own wait. where says where the
// sequence stands, for the log.
func (s *Sequence) waitFor(ctx context.Context, await func(context.Context, time.Time) error, where ...any) {
	s.mu.Lock()
	if len(s.queue) == 0 {
		s.mu.Unlock()
		return
	}
	head := s.queue[0]
	first := !head.waited
	head.waited = true
	s.mu.Unlock()
	if first {
		s.waits.Add(1)
		s.log.Debug("no room below the limit; waiting for the persistence leader to raise it", append(where, "count", head.k)...)
	}
	err := await(ctx, head.giveUp)
	switch {
	case err == nil || ctx.Err() != nil:
	case errors.Is(err, ErrNoRoom):
		s.expire(err)
	default:
		s.failQueued(ctx, err) // ErrNotFound, or ZooKeeper out of reach
	}
}

// expire answers err to the queued calls whose wait for room ran out.
func (s *Sequence) expire(err error) {
	now := time.Now()
	s.mu.Lock()
	var late []*call
	s.queue = slices.DeleteFunc(s.queue, func(c *call) bool {
		if now.Before(c.giveUp) {
			return false
		}
		late = append(late, c)
		return true
	})
	s.mu.Unlock()
	s.answerAll(late, err)
}

// awaitRoom waits until the sequence has room for k IDs below its limit,
// or gives up at giveUp.
func (s *Sequence) awaitRoom(ctx context.Context, k int64, giveUp time.Time) error {
	return s.await(ctx, giveUp, func(data []byte, stat *zk.Stat) bool {
		st, err := decodeState(data)
		return err == nil && k <= st.Limit-st.Next && stat.Version < rolloverAt
	})
}

// await reads the sequence's znode with a watch, and returns when ready
// says so of what it read, or when the znode changes; ErrNoRoom when
// neither came by giveUp.
func (s *Sequence) await(ctx context.Context, giveUp time.Time, ready func([]byte, *zk.Stat) bool) error {
	ctx, cancel := context.WithDeadline(ctx, giveUp)
	defer cancel()
	data, stat, wake, err := s.rz.GetW(ctx, s.path)
	if errors.Is(err, zk.ErrNoNode) {
		return reason.New(ErrNotFound, "name", "%q", s.name)
	}
	if err == nil {
		if ready(data, stat) {
			return nil
		}
		select {
		case <-wake:
			return nil
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if errors.Is(err, context.DeadlineExceeded) && !time.Now().Before(giveUp) {
		return reason.New(ErrNoRoom, "", "%q stayed at its limit for %s: is a persistence process (seqid persist) running?", s.name, s.wait)
	}
	return err
}
