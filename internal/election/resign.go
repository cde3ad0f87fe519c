package election

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
)

// ErrNothingToResign is returned by Resign when the candidate does not
// lead: there is nothing to give up, and nothing was changed.
var ErrNothingToResign = errors.New("election: not the leader: nothing to resign")

// ErrPausedResign is returned by Resign while the leader is paused: with
// the connection lost, its znode cannot be deleted now. Under at-most-one
// it is silent already; try again once it is connected.
var ErrPausedResign = errors.New("election: paused, cut off from ZooKeeper: cannot resign until the connection is back")

// ErrClosed is returned by Resign after Close.
var ErrClosed = errors.New("election: closed")

// ErrStillLeading is returned by Resign when ZooKeeper answered the delete
// with a refusal: our znode is still there, and the candidate stands as it
// did before the call (a check decides whether it leads on).
var ErrStillLeading = errors.New("election: ZooKeeper refused the delete: our znode is still there, standing as before")

// ErrResignUnknown is returned by Resign when ZooKeeper answered neither
// the delete nor a second look before our session may have expired: our
// znode may be gone, so someone else may lead, or it may still be ours.
// The candidate stays silent and stands again after the rejoin delay, as
// after a resignation; its next check settles which it was.
var ErrResignUnknown = errors.New("election: ZooKeeper did not answer: the resignation may or may not have happened")

// resignation is a Resign call, handed to the candidate's loop: the loop
// alone changes the candidate's state.
type resignation struct {
	// rejoin is how long to wait before standing again: 0 joins at once
	// (at the back of a sequential line); a single-file election waits so
	// that another candidate can win the znode first.
	rejoin time.Duration
	done   chan error // buffered: the loop never waits for the caller
}

// Resign gives up the leadership on purpose, as a leader about to be
// drained or upgraded does (etcd's Election.Resign, client-go's
// ReleaseOnCancel): it stops the listener, deletes our znode with one
// server write, which hands over to the successor as a graceful exit does,
// and returns once ZooKeeper has answered. The candidate then stands
// again, rejoin later.
//
// The delete waits for its answer as long as the engine waits for any
// request: until our session may have expired, or Close. An answer that
// comes late is still an answer: the successor may lead already, and the
// candidate must not race it. ctx bounds how long the caller waits, not
// the resignation: once the candidate has taken the call, it sees it
// through, and its log says how it ended.
//
// It returns nil once our znode is gone, ErrNothingToResign when we do not
// lead, ErrPausedResign while cut off, ErrStillLeading when ZooKeeper
// refused the delete, ErrResignUnknown when it did not answer, and
// ErrClosed after Close. Call it from any goroutine but the listener's
// callbacks: those run on the candidate's own goroutine, which must be
// free to take the call.
func (c *Candidate) Resign(ctx context.Context, rejoin time.Duration) error {
	r := resignation{rejoin: rejoin, done: make(chan error, 1)}
	select {
	case c.resigns <- r:
	case <-c.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	// Once handed over, the answer wins over a context or a Close that is
	// done at the same moment: a resignation that happened is reported.
	select {
	case err := <-r.done:
		return err
	case <-c.done:
	case <-ctx.Done():
	}
	select {
	case err := <-r.done:
		return err
	default:
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return ErrClosed
}

// resign acts on a Resign call, holding the turn; ctx is the loop's.
func (ls *loopState) resign(ctx context.Context, r resignation) next {
	c := ls.c
	switch c.State() {
	case StatePaused:
		r.done <- ErrPausedResign
		return next{}
	case StateActive:
	default:
		r.done <- ErrNothingToResign
		return next{}
	}
	c.silence("resigned")
	// Our own watch fires for our own delete: forget it, and the first
	// act's watch with it.
	ls.wake, ls.first = nil, firstAct{}
	err := c.leaveOnPurpose(ctx)
	// Each outcome is logged before the caller hears of it: what the caller
	// reads next is already said.
	switch {
	case ctx.Err() != nil, err != nil && c.session.Closing():
		// Closed meanwhile: the loop ends, and leaves on its way out.
		r.done <- ErrClosed
		return next{}
	case err == nil:
		c.setWhy(StateInactive, "", "resigned")
		c.log.Info("resigned: stopped speaking and left the line", "rejoin_after", r.rejoin)
		r.done <- nil
		return ls.standAgainAfter(r.rejoin)
	case c.unanswered(err):
		// The znode may be gone and a successor lead: stay silent, and
		// keep the pause before standing again, as after a resignation.
		c.log.Warn("resigning: ZooKeeper did not answer, so we cannot tell whether our znode was deleted; silent, standing again after the pause",
			"error", err, "rejoin_after", r.rejoin)
		r.done <- fmt.Errorf("%w: %w", ErrResignUnknown, err)
		return ls.standAgainAfter(r.rejoin)
	default:
		c.log.Warn("could not resign: ZooKeeper refused the delete, and our znode is still there; standing as before", "error", err)
		r.done <- fmt.Errorf("%w: %w", ErrStillLeading, err)
		return next{check: true}
	}
}

// leaveOnPurpose deletes our znode for a resignation, each try bounded as
// a check is, by the moment our session may have expired, and by Close
// (ctx). A delete that got no answer may have been applied all the same:
// once every request we gave up on has come back (Settle), the recipe's
// Leave looks again, and deletes the znode if it is still ours, or finds
// it gone.
func (c *Candidate) leaveOnPurpose(ctx context.Context) error {
	err := c.leaveBeforeExpiry(ctx, false)
	if err == nil || !c.unanswered(err) || ctx.Err() != nil {
		return err
	}
	c.log.Info("resigning: the delete got no answer; looking again whether our znode is still there", "error", err)
	return c.leaveBeforeExpiry(ctx, true)
}

// leaveBeforeExpiry runs the recipe's Leave until our session may have
// expired, after Settle when settle is set. An expired session took our
// znode with it: that counts as left.
func (c *Candidate) leaveBeforeExpiry(ctx context.Context, settle bool) error {
	ctx, cancel := context.WithDeadline(ctx, c.sessionDeadline())
	defer cancel()
	if settle {
		if err := c.session.Settle(ctx); err != nil {
			return err
		}
	}
	if err := c.recipe.Leave(ctx); err != nil && !errors.Is(err, zk.ErrSessionExpired) {
		return err
	}
	return nil
}

// unanswered reports whether a request failed without an answer from
// ZooKeeper, so that what it asked for may or may not have been done.
func (c *Candidate) unanswered(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || c.session.Unanswered(err)
}

// standAgainAfter arms the wait before a resigned candidate stands again:
// none when rejoin is 0.
func (ls *loopState) standAgainAfter(rejoin time.Duration) next {
	if ls.retry != nil {
		ls.retry.Stop()
	}
	if rejoin > 0 {
		// Until then a reconnect must not race for the znode either.
		ls.retry, ls.rejoining = time.NewTimer(rejoin), true
		return next{}
	}
	ls.retry = nil
	return next{check: true}
}
