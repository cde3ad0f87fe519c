package sequence

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-zookeeper/zk"

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

// Sequence hands out IDs of one sequence, for one worker, in the mode the
// sequence was created with (see Mode). A Sequence is safe for concurrent
// use, and its concurrent calls are combined: while one write is on its
// way, the calls that arrive wait for the next, which reserves all their
// IDs at once (see combine.go). A process with 64 goroutines then pays one
// write per round, not 64 writes that fight each other for the znode's
// version.
type Sequence struct {
	rz      *recoverable.RecoverableZookeeper
	name    string
	path    string
	wait    time.Duration
	backoff backoff
	log     *slog.Logger

	mu      sync.Mutex
	queue   []*call // calls waiting for a round, oldest first
	leading bool    // a call runs the rounds (see lead)

	// Only the call that leads touches these.
	cached     *state        // what our last write left, when it succeeded
	ver        int32         // and its version
	cachedAt   time.Time     // and when it came back
	trustCache time.Duration // how long cached is trusted, if longer than a round trip: for tests that need a stale one
	losses     int           // compare-and-sets lost in a row, and busy reads after them (see backoff)
	agains     int           // rounds in a row that found the sequence made anew (see round)
	seen       int32         // the version last seen after a loss (see busy)
	seenAt     time.Time     // and when
	waited     int           // busy reads since our last write (see busy)
	rtt        time.Duration // a compare-and-set's round trip, averaged (see busy)

	// Only the call that leads touches these, in ModeCounter (see counter.go).
	head    *state // the sequence's znode as last read; nil: read it again
	headVer int32  // and its version, which every write checks
	cinc    string // the incarnation whose counter we know
	cver    int32  // and its version after our last write (0: not known)

	conflicts, waits, skipped, handed, writes, burnt atomic.Int64
	mode                                             atomic.Value // the Mode last read
}

// Open returns a worker's handle on the sequence name, on the session of
// rz. It reads nothing yet: Next reports a sequence that does not exist.
func Open(rz *recoverable.RecoverableZookeeper, name string, opts ...Option) (*Sequence, error) {
	o, err := newOptions(rz, opts)
	if err != nil {
		return nil, err
	}
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	return &Sequence{rz: rz, name: name, path: o.root + "/" + name, wait: o.wait, backoff: o.backoff,
		log: o.log.With("sequence", name)}, nil
}

// Next returns a new ID, never handed out before.
func (s *Sequence) Next(ctx context.Context) (int64, error) { return s.NextN(ctx, 1) }

// NextN reserves k consecutive IDs and returns the first: the IDs are
// first, first+1, …, first+k-1. Calls that overlap share one
// compare-and-set, each with a range of its own, in the order they came.
// A call whose ctx ends returns at once; if its IDs were already in a
// write on its way, they are skipped, never handed out.
func (s *Sequence) NextN(ctx context.Context, k int64) (int64, error) {
	if k < 1 || k > MaxCount {
		return 0, reason.New(ErrInvalid, "count", "count %d: want 1 to %d", k, int64(MaxCount))
	}
	c := s.enqueue(k)
	select {
	case a := <-c.reply:
		if a.lead {
			return s.lead(ctx, c)
		}
		return a.first, a.err
	case <-ctx.Done():
		if a, ok := s.leave(c); ok {
			return a.first, a.err
		}
		return 0, ctx.Err()
	}
}

// current returns the state our last write left, or reads it. The state
// is trusted for two round trips: a worker that writes a streak, each call
// right after the last, saves a read per ID; one that comes back later
// reads first, since others have most likely written meanwhile, and a
// compare-and-set from a stale state is a write the quorum logs only to
// refuse it.
func (s *Sequence) current(ctx context.Context) (state, int32, error) {
	if s.cached != nil && time.Since(s.cachedAt) <= max(2*s.rtt, s.trustCache) {
		return *s.cached, s.ver, nil
	}
	s.cached = nil
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

// outcome is what a compare-and-set came to, when it returned no error.
type outcome int

const (
	won   outcome = iota // the IDs are ours
	lost                 // another writer wrote first: back off, then try again
	again                // the sequence was made anew, or our write's fate is settled as skipped: try again at once
)

// claim tries to move next past k IDs with a version-checked set, in a
// multi with the check of the incarnation's marker: the compare-and-set.
// It returns the first ID when it won, and says whether to try again after
// a backoff (lost) or at once (again, on a fresh read).
func (s *Sequence) claim(ctx context.Context, cur state, ver int32, k int64) (first int64, out outcome, err error) {
	token := newToken()
	want := cur
	want.Next += k
	want = want.written(token)
	s.cached = nil
	sent := time.Now()
	res, err := s.rz.Multi(ctx, cur.setOps(s.path, ver, want)...)
	retried := errors.Is(err, recoverable.ErrRetried)
	if err == nil || len(res) == 2 && !retried {
		s.timed(time.Since(sent)) // one answered attempt: a round trip, not a reconnect
	}
	switch {
	case err == nil:
		s.cached, s.ver, s.cachedAt = &want, res[1].Stat.Version, time.Now()
		s.writes.Add(1)
		return cur.Next, won, nil
	case len(res) == 2 && errors.Is(res[0].Error, zk.ErrNoNode) && !retried:
		// Our state is of an incarnation that is gone: deleted, or made
		// anew. The next read tells which.
		return 0, again, nil
	case len(res) == 2 && errors.Is(res[1].Error, zk.ErrBadVersion) && !retried:
		s.conflicts.Add(1) // a plain conflict: our write was refused
		return 0, lost, nil
	case len(res) == 2 && errors.Is(res[1].Error, zk.ErrBadVersion):
		return s.settle(ctx, cur, ver, k, token)
	case len(res) == 2 && errors.Is(res[0].Error, zk.ErrNoNode):
		s.skip(cur.Next, k, "the sequence was deleted or made anew while our write was on its way")
		return 0, again, nil
	case len(res) == 2 && !retried:
		// The server answered our one attempt and refused it (an ACL, say):
		// a multi is all or nothing, so nothing was written and nothing
		// needs skipping.
		return 0, again, err
	default:
		s.skip(cur.Next, k, "the answer to our write never came")
		return 0, again, fmt.Errorf("%w: %w", ErrUnknownOutcome, err)
	}
}

// settle finds out whether our write landed when it was sent again after
// a connection loss and met a changed version: the change may be our own
// first attempt. The token we wrote tells. When too many writes came since
// to tell, the IDs are skipped: never handed out twice, and never silently.
func (s *Sequence) settle(ctx context.Context, cur state, ver int32, k int64, token string) (int64, outcome, error) {
	data, stat, err := s.rz.Get(ctx, s.path)
	if err != nil {
		s.skip(cur.Next, k, "could not read the sequence back after a retried write")
		return 0, again, fmt.Errorf("%w: %w", ErrUnknownOutcome, err)
	}
	now, err := decodeState(data)
	if err != nil {
		s.skip(cur.Next, k, "the sequence could not be read back after a retried write")
		return 0, again, fmt.Errorf("%s: %w", s.path, err)
	}
	if now.Incarnation != cur.Incarnation {
		s.skip(cur.Next, k, "the sequence was made anew while our write was on its way")
		return 0, again, nil
	}
	landed, certain := now.landed(token, ver, stat.Version)
	switch {
	case landed:
		s.log.Info("our write landed although its answer was lost", "first", cur.Next, "count", k)
		s.writes.Add(1)
		return cur.Next, won, nil
	case !certain:
		s.skip(cur.Next, k, "too many writes since ours to tell whether it landed")
	default:
		s.conflicts.Add(1)
		return 0, lost, nil
	}
	return 0, again, nil
}

// skip says, loudly, that IDs first..first+k-1 were (or may have been)
// reserved by a write of ours and will not be handed out by us.
func (s *Sequence) skip(first, k int64, why string) {
	s.skipped.Add(k)
	s.log.Warn("skipping IDs: they will never be handed out", "first", first, "last", first+k-1, "why", why)
}

// Stats counts what this Sequence did.
type Stats struct {
	Handed    int64 // IDs handed out
	Writes    int64 // writes that took IDs: one per round of combined calls
	Conflicts int64 // compare-and-sets that lost to another writer; in ModeCounter, writes refused because the limit was raised meanwhile
	Waits     int64 // allocations that waited for the limit to be raised
	Skipped   int64 // IDs skipped after a write whose outcome was unknown
	Burnt     int64 // in ModeCounter, IDs of counter versions at or past the limit: never handed out
	Mode      Mode  // the sequence's, as last read ("" before the first read)
}

// Stats returns the counts so far.
func (s *Sequence) Stats() Stats {
	return Stats{Handed: s.handed.Load(), Writes: s.writes.Load(), Conflicts: s.conflicts.Load(), Waits: s.waits.Load(),
		Skipped: s.skipped.Load(), Burnt: s.burnt.Load(), Mode: s.loadMode()}
}

func (s *Sequence) loadMode() Mode {
	m, _ := s.mode.Load().(Mode)
	return m
}
