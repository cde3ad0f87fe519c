package sequence

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/election"
	"zkspeaker/internal/reason"
	"zkspeaker/recoverable"
)

// ErrNotFound is returned for a sequence whose znode does not exist.
var ErrNotFound = errors.New("sequence: no such sequence")

// ErrInvalid is wrapped by every error about a bad name, count or option.
var ErrInvalid = errors.New("sequence: invalid")

// ErrInvalidName is the ErrInvalid of a sequence's name (see ValidateName).
var ErrInvalidName = fmt.Errorf("%w name", ErrInvalid)

// ErrNoRoom is returned by Next when the sequence stayed at its limit for
// the whole wait: no persistence leader raised it. Is `seqid persist`
// running?
var ErrNoRoom = errors.New("sequence: no room below the limit")

// ErrUnknownOutcome is returned when a write of ours was sent but its
// answer never came (the connection or the context ended first). The IDs
// it asked for are never handed out by this Sequence: they are skipped,
// and the log says which.
var ErrUnknownOutcome = errors.New("sequence: a write's outcome is unknown")

// MaxCount is the most IDs one NextN may reserve.
const MaxCount = 1 << 40

// Sequence hands out IDs of one sequence, for one worker. A Sequence is
// safe for concurrent use; its methods take turns.
type Sequence struct {
	rz   *recoverable.RecoverableZookeeper
	name string
	path string
	wait time.Duration
	log  *slog.Logger

	turn   chan struct{} // one allocation at a time (a semaphore that honours ctx), and the cache below
	cached *state        // what our last write left, when it succeeded
	ver    int32         // and its version

	conflicts, waits, skipped, handed atomic.Int64
}

// Open returns a worker's handle on the sequence name, on the session of
// rz. It reads nothing yet: Next reports a sequence that does not exist.
func Open(rz *recoverable.RecoverableZookeeper, name string, opts ...Option) (*Sequence, error) {
	o, err := newOptions(opts)
	if err != nil {
		return nil, err
	}
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	return &Sequence{rz: rz, name: name, path: o.root + "/" + name, wait: o.wait, log: o.log.With("sequence", name),
		turn: make(chan struct{}, 1)}, nil
}

// Next returns a new ID, never handed out before.
func (s *Sequence) Next(ctx context.Context) (int64, error) { return s.NextN(ctx, 1) }

// NextN reserves k consecutive IDs in one compare-and-set and returns the
// first: the IDs are first, first+1, …, first+k-1.
func (s *Sequence) NextN(ctx context.Context, k int64) (int64, error) {
	if k < 1 || k > MaxCount {
		return 0, reason.New(ErrInvalid, "count", "count %d: want 1 to %d", k, int64(MaxCount))
	}
	select {
	case s.turn <- struct{}{}:
		defer func() { <-s.turn }()
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	var giveUp time.Time // when the wait for room started, plus the wait
	for {
		cur, ver, err := s.current(ctx)
		if err != nil {
			return 0, err
		}
		// No room (written so, it cannot overflow), or a znode whose version
		// nears its wrap: wait for the leader to raise the limit, or to make
		// the znode anew (see rolloverAt), which it can only do while
		// nobody else writes.
		if k > cur.Limit-cur.Next || ver >= rolloverAt {
			if s.cached != nil {
				s.cached = nil // the limit may have been raised since our write
				continue
			}
			if giveUp.IsZero() {
				giveUp = time.Now().Add(s.wait)
				s.waits.Add(1)
				s.log.Debug("no room below the limit; waiting for the persistence leader to raise it", "next", cur.Next, "limit", cur.Limit, "count", k)
			}
			if err := s.awaitRoom(ctx, k, giveUp); err != nil {
				return 0, err
			}
			continue
		}
		first, done, err := s.claim(ctx, cur, ver, k)
		if done || err != nil {
			return first, err
		}
	}
}

// current returns the state our last write left, or reads it.
func (s *Sequence) current(ctx context.Context) (state, int32, error) {
	if s.cached != nil {
		return *s.cached, s.ver, nil
	}
	data, stat, err := s.rz.Get(ctx, s.path)
	if errors.Is(err, zk.ErrNoNode) {
		return state{}, 0, reason.New(ErrNotFound, "name", "%q", s.name)
	}
	if err != nil {
		return state{}, 0, err
	}
	st, err := decodeState(data)
	if err != nil {
		return state{}, 0, fmt.Errorf("%s: %w", s.path, err)
	}
	return st, stat.Version, nil
}

// claim tries to move next past k IDs with a version-checked set, in a
// multi with the check of the incarnation's marker: the compare-and-set.
// It reports done with the first ID when the IDs are ours, or not done
// when someone else wrote first, or the sequence was made anew (try
// again, on a fresh read).
func (s *Sequence) claim(ctx context.Context, cur state, ver int32, k int64) (first int64, done bool, err error) {
	token := newToken()
	want := cur
	want.Next += k
	want = want.written(token)
	s.cached = nil
	if election.BrokenForChaos {
		ver = -1 // no compare-and-set: wrong on purpose (see BrokenForChaos)
	}
	res, err := s.rz.Multi(ctx, cur.setOps(s.path, ver, want)...)
	retried := errors.Is(err, recoverable.ErrRetried)
	switch {
	case err == nil:
		s.cached, s.ver = &want, res[1].Stat.Version
		s.handed.Add(k)
		return cur.Next, true, nil
	case len(res) == 2 && errors.Is(res[0].Error, zk.ErrNoNode) && !retried:
		// Our state is of an incarnation that is gone: deleted, or made
		// anew. The next read tells which.
		return 0, false, nil
	case len(res) == 2 && errors.Is(res[1].Error, zk.ErrBadVersion) && !retried:
		s.conflicts.Add(1) // a plain conflict: our write was refused
		return 0, false, nil
	case len(res) == 2 && errors.Is(res[1].Error, zk.ErrBadVersion):
		return s.settle(ctx, cur, ver, k, token)
	case len(res) == 2 && errors.Is(res[0].Error, zk.ErrNoNode):
		s.skip(cur.Next, k, "the sequence was deleted or made anew while our write was on its way")
		return 0, false, nil
	case len(res) == 2 && !retried:
		// The server answered our one attempt and refused it (an ACL, say):
		// a multi is all or nothing, so nothing was written and nothing
		// needs skipping.
		return 0, false, err
	default:
		s.skip(cur.Next, k, "the answer to our write never came")
		return 0, false, fmt.Errorf("%w: %w", ErrUnknownOutcome, err)
	}
}

// settle finds out whether our write landed when it was sent again after
// a connection loss and met a changed version: the change may be our own
// first attempt. The token we wrote tells. When too many writes came since
// to tell, the IDs are skipped: never handed out twice, and never silently.
func (s *Sequence) settle(ctx context.Context, cur state, ver int32, k int64, token string) (int64, bool, error) {
	data, stat, err := s.rz.Get(ctx, s.path)
	if err != nil {
		s.skip(cur.Next, k, "could not read the sequence back after a retried write")
		return 0, false, fmt.Errorf("%w: %w", ErrUnknownOutcome, err)
	}
	now, err := decodeState(data)
	if err != nil {
		return 0, false, fmt.Errorf("%s: %w", s.path, err)
	}
	if now.Incarnation != cur.Incarnation {
		s.skip(cur.Next, k, "the sequence was made anew while our write was on its way")
		return 0, false, nil
	}
	landed, certain := now.landed(token, ver, stat.Version)
	switch {
	case landed:
		s.log.Info("our write landed although its answer was lost", "first", cur.Next, "count", k)
		s.handed.Add(k)
		return cur.Next, true, nil
	case !certain:
		s.skip(cur.Next, k, "too many writes since ours to tell whether it landed")
	default:
		s.conflicts.Add(1)
	}
	return 0, false, nil
}

// skip says, loudly, that IDs first..first+k-1 may have been taken by a
// write of ours and will not be handed out by us.
func (s *Sequence) skip(first, k int64, why string) {
	s.skipped.Add(k)
	s.log.Warn("skipping IDs that our lost write may have taken", "first", first, "last", first+k-1, "why", why)
}

// awaitRoom waits until the sequence has room for k IDs below its limit,
// or gives up at giveUp.
func (s *Sequence) awaitRoom(ctx context.Context, k int64, giveUp time.Time) error {
	ctx, cancel := context.WithDeadline(ctx, giveUp)
	defer cancel()
	data, stat, wake, err := s.rz.GetW(ctx, s.path)
	if errors.Is(err, zk.ErrNoNode) {
		return reason.New(ErrNotFound, "name", "%q", s.name)
	}
	if err == nil {
		if st, derr := decodeState(data); derr == nil && k <= st.Limit-st.Next && stat.Version < rolloverAt {
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

// Stats counts what this Sequence did.
type Stats struct {
	Handed    int64 // IDs handed out
	Conflicts int64 // compare-and-sets that lost to another writer
	Waits     int64 // allocations that waited for the limit to be raised
	Skipped   int64 // IDs skipped after a write whose outcome was unknown
}

// Stats returns the counts so far.
func (s *Sequence) Stats() Stats {
	return Stats{Handed: s.handed.Load(), Conflicts: s.conflicts.Load(), Waits: s.waits.Load(), Skipped: s.skipped.Load()}
}
