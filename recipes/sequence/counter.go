package sequence

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/reason"
	"zkspeaker/recoverable"
)

// A sequence in ModeCounter takes its IDs from a znode's version, which
// ZooKeeper keeps without any compare-and-set: a set with version -1
// always succeeds, and the leader gives it the next version in one total
// order, whoever sends it. Workers then never conflict with each other.
//
// The counter is the incarnation's marker, the child named after the
// incarnation, with no data; the sequence's own znode holds the base, the
// limit and the incarnation, and no worker writes it. So a blind write of
// the counter cannot touch them. Each round is one multi:
//
//   - a check of the sequence's znode at the version the worker read, so
//     that the write is refused if the limit, the base or the incarnation
//     changed since (a raise, a rollover, a restore);
//   - k sets of the counter with version -1: one transaction, so its k
//     versions are consecutive, and the Stat of the last one says which.
//
// Version v is ID base+v-1. An ID at or past the limit the worker read is
// burnt: never handed out, and the worker waits for the limit to be
// raised. A write whose answer was lost used versions nobody hands out;
// skipping IDs is allowed, so it needs no token and no settling, and its
// retry, if it succeeds, is ours alone.

// MaxCounterCount is the most IDs one NextN may take from a ModeCounter
// sequence: they are that many sets in one multi, whose request ZooKeeper
// must take in one packet (1 MB by default).
const MaxCounterCount = 1000

// countOps is a counter round's multi: the check of the sequence's znode
// at version ver, and k blind sets of its counter.
func (s state) countOps(path string, ver int32, k int64) []any {
	ops := make([]any, 0, k+1)
	ops = append(ops, &zk.CheckVersionRequest{Path: path, Version: ver})
	for range k {
		ops = append(ops, &zk.SetDataRequest{Path: s.marker(path), Version: -1})
	}
	return ops
}

// setHead keeps the sequence's znode as read, at version ver, for counter
// rounds. What we knew of the counter's version holds as long as the
// incarnation does.
func (s *Sequence) setHead(st state, ver int32) {
	if st.Incarnation != s.cinc {
		s.cinc, s.cver = st.Incarnation, 0
	}
	s.head, s.headVer = &st, ver
}

// countRound is a round of a ModeCounter sequence (see round): it takes
// the queued calls whose IDs fit below the limit, as far as we know the
// counter, and writes them in one multi.
func (s *Sequence) countRound(ctx context.Context) {
	h := *s.head
	if s.refuseLarge() {
		return
	}
	room := h.Limit - h.nextAt(s.cver)
	if s.cver >= rolloverAt || s.cver < 0 {
		room = 0 // the leader must make the counter anew first (see rollover)
	}
	batch, total := s.take(min(room, MaxCounterCount))
	if batch == nil {
		s.waitFor(ctx, s.awaitChange, "base", h.Base, "counter", s.cver, "limit", h.Limit)
		return
	}
	res, err := s.rz.Multi(ctx, h.countOps(s.path, s.headVer, total)...)
	retried := errors.Is(err, recoverable.ErrRetried)
	n := int(total) + 1
	switch {
	case err == nil:
		s.writes.Add(1)
		s.agains = 0
		s.deliverVersions(batch, h, res[n-1].Stat.Version, total)
	case len(res) == n && errors.Is(res[0].Error, zk.ErrBadVersion):
		// The limit was raised, or the sequence made anew, since we read
		// it: read again and write at once. (Retried, our first attempt
		// may have landed before the change: its versions are burnt.)
		s.conflicts.Add(1)
		s.head = nil
		s.putBack(batch)
	case len(res) == n && errors.Is(res[0].Error, zk.ErrNoNode):
		s.head = nil // deleted: the next read says so
		s.putBack(batch)
	case len(res) == n && errors.Is(res[1].Error, zk.ErrNoNode):
		// The counter is gone under an unchanged znode: deleted by hand,
		// or the read raced a new incarnation. Read again, backing off
		// if it repeats.
		s.head = nil
		s.putBack(batch)
		s.agains++
		s.pause(ctx, s.agains-1)
	case len(res) == n && !retried:
		s.answerAll(batch, err) // refused as a whole (an ACL, say): nothing written
	case ctx.Err() != nil:
		s.skipUnknown(total, "the call that sent the write gave up before its answer came")
		s.putBack(batch)
	default:
		s.skipUnknown(total, "the answer to our write never came")
		s.answerAll(batch, fmt.Errorf("%w: %w", ErrUnknownOutcome, err))
	}
}

// deliverVersions hands each call of a written batch its IDs, from the
// versions last-total+1 .. last, in order. A call whose IDs are not all
// below the limit, or whose versions are not all below rolloverAt, gets
// nothing: its IDs are burnt, and it waits for the next round.
func (s *Sequence) deliverVersions(batch []*call, h state, last int32, total int64) {
	s.cver = last
	v := int64(last) - total + 1
	var burnt []*call
	s.mu.Lock()
	for _, c := range batch {
		first, end := h.Base+v-1, v+c.k-1 // end: the call's last version
		switch {
		case v < 1 || end >= int64(rolloverAt) || first+c.k > h.Limit:
			s.burnt.Add(c.k)
			if !c.gone {
				burnt = append(burnt, c)
			}
		case c.gone:
			s.skip(first, c.k, "its caller gave up before the write that reserved them came back")
		default:
			s.handed.Add(c.k)
			c.reply <- answer{first: first}
		}
		v += c.k
	}
	s.mu.Unlock()
	if len(burnt) > 0 {
		s.log.Debug("counter versions at or past the limit: burnt, never handed out; waiting for a raise",
			"last", h.Base+int64(last)-1, "limit", h.Limit, "version", last)
		s.putBack(burnt)
	}
}

// refuseLarge answers ErrInvalid to the queued calls that ask for more
// than MaxCounterCount IDs, and reports whether it answered any.
func (s *Sequence) refuseLarge() bool {
	s.mu.Lock()
	var large []*call
	kept := s.queue[:0]
	for _, c := range s.queue {
		if c.k > MaxCounterCount {
			large = append(large, c)
		} else {
			kept = append(kept, c)
		}
	}
	s.queue = kept
	s.mu.Unlock()
	for _, c := range large {
		s.answerAll([]*call{c}, reason.New(ErrInvalid, "count", "count %d: a counter sequence takes 1 to %d IDs per call", c.k, MaxCounterCount))
	}
	return len(large) > 0
}

// skipUnknown says that a write of k counter versions may have landed:
// its IDs, whichever they are, are never handed out.
func (s *Sequence) skipUnknown(k int64, why string) {
	s.skipped.Add(k)
	s.log.Warn("skipping IDs: a write of ours may have used them, and they will never be handed out", "count", k, "why", why)
}

// awaitChange waits until the sequence's znode is no longer the one we
// read: another version (the limit raised) or another incarnation (the
// znode made anew, which starts again at version 0, perhaps the very
// version we read), or gives up at giveUp. Either way the next round
// reads it again.
func (s *Sequence) awaitChange(ctx context.Context, giveUp time.Time) error {
	read, inc := s.headVer, s.cinc
	s.head = nil
	return s.await(ctx, giveUp, func(data []byte, stat *zk.Stat) bool {
		st, err := decodeState(data)
		return stat.Version != read || err != nil || st.Incarnation != inc
	})
}
