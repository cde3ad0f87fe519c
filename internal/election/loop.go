package election

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// loop is the candidate's one goroutine: session events, the recipe's watch,
// the paused clock and retries all arrive here, and it alone changes state,
// holding the turn (see Candidate) except while it waits.
func (c *Candidate) loop(ctx context.Context) {
	defer close(c.done)
	c.turn.Lock()
	defer c.turn.Unlock()
	if c.left {
		return // closed before it began
	}
	// Stop observing the session when the loop ends, not when Close is
	// called: the owner may close the session first, and its Close waits for
	// every observer to let go. Not a child of ctx either: when Close finds
	// the loop busy, its cancel should wake this goroutine alone, which then
	// sends the delete, not the observer's too, which would run first and
	// put the delete later on the wire.
	observeCtx, stopObserving := context.WithCancel(context.Background())
	defer stopObserving()
	events := c.zk.Observe(observeCtx)
	var (
		wake <-chan zk.Event // the recipe's current watch
		// A new leader's watch on its own znode, waiting for its first act.
		pending   func(context.Context) (<-chan zk.Event, error)
		actedC    <-chan struct{}
		actedLate <-chan time.Time
		pauseEnd  <-chan time.Time
		retry     *time.Timer
		retries   = newCheckRetries()
		// ready: the last decision asked to prepare on wake; prepared: the
		// listener was told to, and not yet told that it did not lead.
		ready, prepared bool
	)
	preparing, _ := c.listener.(preparer)
	unprepare := func() {
		if prepared {
			preparing.Unprepare()
			prepared = false
		}
	}
	defer unprepare()
	defer func() {
		if !c.left {
			c.leave()
		}
	}()
	// resume takes the turn back after a wait. It reports false when Close
	// took it meanwhile and left: nothing is left to do.
	resume := func() bool {
		c.turn.Lock()
		return !c.left
	}
	for {
		check, prepare := false, false
		var retryC <-chan time.Time
		if retry != nil {
			retryC = retry.C
		}
		c.turn.Unlock()
		select {
		case <-ctx.Done():
			c.turn.Lock()
			return
		case ev, ok := <-events:
			if !resume() || !ok {
				return
			}
			switch ev.State {
			case recoverable.StateConnected:
				c.connected, pauseEnd = true, nil
				// After a plain reconnect go-zookeeper re-arms our watches, so
				// a follower has nothing to do. A paused leader must confirm
				// that its znode survived; a new session must join again.
				check = ev.NewSession || c.State() == StatePaused || wake == nil
			case recoverable.StateDisconnected:
				if now := c.zk.State(); now.State == recoverable.StateConnected && now.SessionID == ev.SessionID {
					// Stale: the loop was busy in a Check while the same
					// session lost its connection and got it back, and the
					// reconnect is next in line. Pausing now would stop a
					// leader elected since on a live connection (a lock
					// holder would be told it lost its lock). Its confirms
					// failed while the connection was down, so it wrote
					// nothing then.
					continue
				}
				c.connected = false
				if st := c.State(); st == StateActive || st == StatePaused {
					if st == StateActive {
						c.pause()
					}
					// The client hears of expiry only when it reconnects, so
					// it keeps its own clock, started when the servers last
					// answered, not when the client noticed their silence:
					// once the session may have expired, someone else may
					// lead. Paused already (a reconnect whose check failed),
					// it arms the clock again from that reconnect.
					pauseEnd = time.After(time.Until(c.sessionDeadline()))
				}
			case recoverable.StateExpired, recoverable.StateAuthFailed:
				c.connected, wake, pauseEnd = false, nil, nil
				pending, actedC, actedLate = nil, nil, nil
				c.deactivate("session " + ev.State.String())
			case recoverable.StateClosed:
				// Our owner closed the session: that was the one server write
				// that removed our znode, and nothing is left to delete.
				if c.connected && c.Node() != "" {
					c.deactivate(reasonClosing)
					c.log.Info("left the election: the session is closed, and our znode went with it", "znode", c.Node())
				}
				c.connected = false
				return
			}
		case ev := <-wake:
			if !resume() {
				return
			}
			wake = nil
			if c.zk.Closing() {
				return // the closing session took our znode: leave says so
			}
			if ev.Type == zk.EventNotWatching {
				continue // the session is gone; its own event says what next
			}
			c.mu.Lock()
			c.notifications++
			c.mu.Unlock()
			c.log.Debug("watch fired", "event", ev.Type.String(), "path", ev.Path)
			if ev.Type == zk.EventNodeDeleted && ev.Path == c.Node() {
				// Our own znode was deleted by hand: whatever comes next, we
				// stop now, before asking ZooKeeper anything.
				c.deactivate("our znode was deleted")
			}
			check, prepare = true, ready
		case <-actedC:
			if !resume() {
				return
			}
			wake, retry = c.watchOwn(ctx, pending, retry)
			pending, actedC, actedLate = nil, nil, nil
		case <-actedLate:
			if !resume() {
				return
			}
			wake, retry = c.watchOwn(ctx, pending, retry)
			pending, actedC, actedLate = nil, nil, nil
		case <-retryC:
			if !resume() {
				return
			}
			retry, check = nil, true
		case <-pauseEnd:
			if !resume() {
				return
			}
			// Forget the watch too: should the session turn out to have
			// survived (the servers can be slower to expire it than our
			// clock is to give up), the reconnect must look again, since
			// our znode may still lead and nobody else would speak.
			pauseEnd, wake = nil, nil
			pending, actedC, actedLate = nil, nil, nil
			if !brokenGuards {
				c.deactivate("paused until the session may have expired")
			}
		}
		if !check || !c.connected {
			continue
		}
		if prepare && preparing != nil && c.State() == StateInactive {
			// The listener gets ready during the check's round trip.
			preparing.Prepare()
			prepared = true
		}
		// A Check retries through a lost connection, and meanwhile the loop
		// hears no event: bound it by the session's life, or a leader that
		// keeps speaking while paused could outlive its session in here.
		checkCtx, cancel := context.WithDeadline(ctx, c.sessionDeadline())
		d, err := c.recipe.Check(checkCtx)
		cancel()
		if err != nil {
			if ctx.Err() != nil || c.zk.Closing() {
				return
			}
			if c.refusedForGood(err) {
				c.giveUp(err)
				return
			}
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("our session may have expired meanwhile: %w", err)
			}
			unprepare() // it will not lead soon: nobody must wait for its lock
			delay := retries.Backoff()
			retries.UseRetry()
			c.log.Warn("election check failed; will try again", "error", err, "in", delay)
			if retry != nil {
				retry.Stop()
			}
			retry = time.NewTimer(delay)
			continue
		}
		retries = newCheckRetries()
		c.joined = c.joined || d.Node != ""
		wake, ready = d.Wake, d.Prepare
		if !d.Leader {
			unprepare()
		}
		prepared = false // a leader's listener uses it, or its deadline ends it
		pending, actedC, actedLate = nil, nil, nil
		// A new term's first act goes before the leader's own watch; grab
		// the channel before StartSpeaking, which may act at once.
		var acted <-chan struct{}
		if an, ok := c.listener.(actNotifier); ok && d.Leader && wake == nil && d.Watch != nil && c.State() == StateInactive {
			acted = an.Acted()
		}
		c.apply(d)
		switch {
		case acted != nil:
			pending, actedC, actedLate = d.Watch, acted, time.After(watchLate)
		case wake == nil && d.Watch != nil:
			wake, retry = c.watchOwn(ctx, d.Watch, retry)
		}
	}
}

// watchOwn sets a leader's watch on its own znode. When that fails (our
// znode went already, or the connection did), it arms retry to look again.
func (c *Candidate) watchOwn(ctx context.Context, watch func(context.Context) (<-chan zk.Event, error), retry *time.Timer) (<-chan zk.Event, *time.Timer) {
	ctx, cancel := context.WithDeadline(ctx, c.sessionDeadline())
	defer cancel()
	wake, err := watch(ctx)
	if err == nil {
		return wake, retry
	}
	c.log.Debug("could not watch our znode; checking again", "error", err)
	if retry != nil {
		retry.Stop()
	}
	return nil, time.NewTimer(0)
}

// apply acts on a Recipe's decision.
func (c *Candidate) apply(d Decision) {
	prev := c.State()
	if d.Leader && (prev == StateActive || prev == StatePaused) && d.Node != c.Node() {
		// Our znode went (deleted by hand before our watch on it was set)
		// and we lead again on a new one: a new term, with a new epoch.
		// The listener must hear the old one end (a lock holder learns it
		// lost the lock) before the new one starts.
		c.deactivate("our znode was replaced: leading again on a new one")
		prev = StateInactive
	}
	switch {
	case d.Leader && prev == StatePaused:
		c.set(StateActive, d.Node)
		c.log.Info("reconnected in time: still the leader", "znode", d.Node)
		c.listener.StartSpeaking(c.confirmer(d.Proof)) // a no-op if it never stopped (at-least-one)
	case d.Leader && prev != StateActive:
		c.set(StateActive, d.Node)
		c.log.Info("became leader", "znode", d.Node)
		c.listener.StartSpeaking(c.confirmer(d.Proof))
	case !d.Leader && prev != StateInactive:
		c.set(prev, d.Node)
		c.deactivate("another candidate leads")
	default:
		c.set(prev, d.Node)
	}
}

// pause enters the paused state after a disconnection of the leader.
func (c *Candidate) pause() {
	c.setState(StatePaused)
	if c.policy == AtMostOne && !brokenGuards {
		c.listener.StopSpeaking()
		c.log.Warn("paused: lost the connection, stopped speaking until it is back", "policy", c.policy)
		return
	}
	c.log.Warn("paused: lost the connection, still speaking while the session may live", "policy", c.policy)
}

// deactivate makes sure we are silent and not the leader.
func (c *Candidate) deactivate(why string) {
	if prev := c.silence(); prev == StateActive || prev == StatePaused {
		c.sayStopped(why)
	}
}

// silence makes us inactive and silent, and returns the state we were in.
func (c *Candidate) silence() State {
	prev := c.State()
	if prev != StateInactive {
		c.setState(StateInactive)
		c.listener.StopSpeaking()
	}
	return prev
}

// sayStopped logs that a leader stopped leading, and why.
func (c *Candidate) sayStopped(why string) {
	if why == reasonClosing {
		// Asked to stop (Ctrl-C, SIGTERM): nothing went wrong.
		c.log.Info("no longer the leader: stepped down", "reason", why)
		return
	}
	c.log.Warn("no longer the leader", "reason", why)
}

// reasonClosing is why a candidate that was told to close stops leading.
const reasonClosing = "closing"

// leave ends the candidate, by the loop on its way out or by Close: silence
// first, then delete our znode while the session is still there, bounded
// so that Close stays prompt. The caller holds the turn.
func (c *Candidate) leave() {
	c.left = true
	// Silent at once, but said after the delete went out: the successor
	// waits for that write, not for our log line.
	prev := c.silence()
	if c.connected {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		switch err := c.recipe.Leave(ctx); {
		case errors.Is(err, recoverable.ErrClosed):
			// Our owner closed the session first: that one write took our
			// znode with it (the speaker's graceful exit does this).
			c.log.Info("left the election: the session is closed, and our znode went with it", "znode", c.Node())
		case err != nil:
			c.log.Warn("could not delete our znode; it goes with the session", "error", err)
		}
		cancel()
	}
	if prev == StateActive || prev == StatePaused {
		c.sayStopped(reasonClosing)
	}
	c.setState(StateClosed)
}

// newCheckRetries spaces out the retries of a failed election check, which
// are never given up: the candidate stays in the race for as long as it runs.
func newCheckRetries() *recoverable.RetryCounter {
	return recoverable.NewRetryCounter(math.MaxInt32, 50*time.Millisecond, 5*time.Second, 0)
}
