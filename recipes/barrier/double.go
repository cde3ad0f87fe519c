package barrier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"zkspeaker/internal/broadcast"
	"zkspeaker/recoverable"
)

// DoubleBarrier is one member of the double barrier at a path: Enter
// returns once count members are in at once, the work runs, and Leave
// returns once every member of the round still alive has left. It is good
// for one round; make a new one for the next.
type DoubleBarrier struct {
	rz     *recoverable.RecoverableZookeeper
	path   string
	count  int
	name   string
	log    *slog.Logger
	states *broadcast.Broadcaster[State]
	done   chan struct{}

	mu        sync.Mutex
	started   bool
	entered   bool
	protected string // our protected name, kept for every create
	own       string // our member znode's path, "" while we have none
	seq       int64  // its sequence number
	last      int64  // the last member of our round (the ready znode's)
	lost      bool   // our znode went while inside
	leaveErr  error
	stopGuard context.CancelFunc
	guardDone chan struct{}
	leaveOnce sync.Once
}

// NewDouble returns a member of the double barrier at path that waits for
// count members, on the session of rz. It checks path
// (recoverable.PathError) and count (*CountError), and talks to no server.
// Every member of one barrier must give the same count: the barrier's
// znode records the first one, and Enter fails with a *CountError for
// another.
func NewDouble(rz *recoverable.RecoverableZookeeper, path string, count int, opts ...Option) (*DoubleBarrier, error) {
	if err := recoverable.ValidatePath("path", path); err != nil {
		return nil, err
	}
	if count < 1 {
		return nil, &CountError{Field: "count", Count: count}
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return &DoubleBarrier{rz: rz, path: path, count: count, name: o.name, log: rz.Logger().With("barrier", path),
		states: broadcast.New(StateOutside, func(s State) bool { return s == StateLeft }),
		done:   make(chan struct{})}, nil
}

// Path returns the barrier's znode path.
func (b *DoubleBarrier) Path() string { return b.path }

// Member returns our member znode's path, "" before Enter made it.
func (b *DoubleBarrier) Member() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.own
}

// Round names our round once Enter returned: the sequence number of its
// last member, the same for every member of the round and higher for
// every later round; 0 before.
func (b *DoubleBarrier) Round() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// Enter makes our member znode and returns once count members were in at
// once: the page's enter. A member that dies before then no longer
// counts. When ctx ends first, or Enter fails, it takes our znode out
// again and the DoubleBarrier is done. Should our session expire while we
// wait, we enter again on the new one. A second call returns ErrEntered.
func (b *DoubleBarrier) Enter(ctx context.Context) error {
	b.mu.Lock()
	if b.started {
		b.mu.Unlock()
		return ErrEntered
	}
	b.started = true
	b.mu.Unlock()
	b.states.Publish(StateEntering)
	if err := b.enter(ctx); err != nil {
		b.withdraw()
		b.states.Close(StateLeft, time.Second)
		b.finish()
		return err
	}
	b.mu.Lock()
	b.entered = true
	b.mu.Unlock()
	b.states.Publish(StateInside)
	b.startGuard()
	return nil
}

// Leave takes our member znode out and returns once every member of our
// round still alive has left: the page's leave. A member that died is not
// waited for. It returns ErrLost when our own znode went while we were
// inside (Err too), ErrNotEntered before Enter, and ctx's error when ctx
// ends first: our znode may then stay until our session ends. Later calls
// return the first one's result. Done is closed when it returns.
func (b *DoubleBarrier) Leave(ctx context.Context) error {
	b.leaveOnce.Do(func() {
		b.mu.Lock()
		entered := b.entered
		b.mu.Unlock()
		if !entered {
			b.leaveErr = ErrNotEntered
			return
		}
		b.endGuard()
		b.checkStillIn(ctx)
		b.states.Publish(StateLeaving)
		err := b.leave(ctx)
		if err == nil {
			b.log.Info("every member of the round has left", "round", b.Round())
		}
		b.states.Close(StateLeft, time.Second)
		if b.lostInside() {
			err = errors.Join(ErrLost, err)
		}
		b.mu.Lock()
		b.leaveErr = err
		b.mu.Unlock()
		b.finish()
	})
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.leaveErr
}

// Observe returns a channel that carries the member's state now, then
// every change, in order, none dropped. It closes after StateLeft, or when
// ctx is done.
func (b *DoubleBarrier) Observe(ctx context.Context) <-chan State { return b.states.Observe(ctx) }

// State returns the member's state now.
func (b *DoubleBarrier) State() State { return b.states.Current() }

// Done is closed when the DoubleBarrier is over: Enter failed, or Leave
// returned.
func (b *DoubleBarrier) Done() <-chan struct{} { return b.done }

// Err returns ErrLost when our member znode went while we were inside,
// else the error Leave returned; nil while Done is open.
func (b *DoubleBarrier) Err() error {
	select {
	case <-b.done:
	default:
		return nil
	}
	if b.lostInside() {
		return ErrLost
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.leaveErr
}

// checkStillIn notes, as the guard would have, that our znode went while
// we were inside, when the guard could not tell us before Leave ended it
// (we were frozen, or cut off, as the session expired).
func (b *DoubleBarrier) checkStillIn(ctx context.Context) {
	if b.lostInside() {
		return
	}
	ok, st, err := b.rz.Exists(ctx, b.Member())
	if err != nil || ok && st.EphemeralOwner == b.rz.SessionID() {
		return
	}
	b.mu.Lock()
	b.lost = true
	b.mu.Unlock()
	b.log.Warn("our member znode went while we were inside: the others did not wait for us", "member", b.Member())
	b.states.Publish(StateLost)
}

// finish closes Done, once.
func (b *DoubleBarrier) finish() {
	select {
	case <-b.done:
	default:
		close(b.done)
	}
}

// lostInside reports whether our znode went while we were inside.
func (b *DoubleBarrier) lostInside() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.lost
}

// withdraw deletes our member znode, if we made one, after a failed
// Enter: a create given up on may still make it, so it settles first, and
// looks for it by our protected name. It waits at most a session timeout:
// cut off longer, the session, and the znode, end on their own.
func (b *DoubleBarrier) withdraw() {
	ctx, cancel := context.WithTimeout(context.Background(), b.rz.SessionTimeout())
	defer cancel()
	b.mu.Lock()
	name := b.protected
	b.mu.Unlock()
	if name == "" || b.rz.Settle(ctx) != nil {
		return
	}
	own, err := b.rz.FindOwn(ctx, b.path, name)
	if err != nil || own == "" {
		return
	}
	if err := b.rz.Delete(ctx, own, -1); err != nil {
		b.log.Warn("could not take our member znode out; it goes when our session ends", "member", own, "error", err)
		return
	}
	b.log.Info("gave up entering; took our member znode out", "member", own)
}

// errorf wraps err with the barrier's path.
func (b *DoubleBarrier) errorf(what string, err error) error {
	return fmt.Errorf("barrier: %s %s: %w", what, b.path, err)
}
