package election

import (
	"context"
	"errors"
	"time"
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

// resignation is a Resign call, handed to the candidate's loop: the loop
// alone changes the candidate's state.
type resignation struct {
	ctx context.Context
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
// and returns once the znode is gone. The candidate then stands again,
// rejoin later. It returns ErrNothingToResign when we do not lead,
// ErrPausedResign while cut off, and ErrClosed after Close. Call it from
// any goroutine but the listener's callbacks: those run on the
// candidate's own goroutine, which must be free to take the call.
func (c *Candidate) Resign(ctx context.Context, rejoin time.Duration) error {
	r := resignation{ctx: ctx, rejoin: rejoin, done: make(chan error, 1)}
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

// leaveWait bounds a resignation's delete as leave bounds a closing one's:
// Close, which cancels the loop's ctx, must not wait on a caller's longer
// deadline while ZooKeeper is out of reach.
const leaveWait = time.Second

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
	leaveCtx, cancel := context.WithTimeout(r.ctx, leaveWait)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)()
	if err := c.recipe.Leave(leaveCtx); err != nil {
		// The znode may still be there: look again, and lead on if it is.
		r.done <- err
		return next{check: true}
	}
	c.setWhy(StateInactive, "", "resigned")
	r.done <- nil
	c.log.Info("resigned: stopped speaking and left the line", "rejoin_after", r.rejoin)
	if ls.retry != nil {
		ls.retry.Stop()
	}
	if r.rejoin > 0 {
		// Until then a reconnect must not race for the znode either.
		ls.retry, ls.rejoining = time.NewTimer(r.rejoin), true
		return next{}
	}
	ls.retry = nil
	return next{check: true}
}
