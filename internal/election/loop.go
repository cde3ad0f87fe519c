package election

import (
	"context"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"
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
	ls := &loopState{c: c, events: c.session.Observe(observeCtx), retries: newCheckRetries()}
	ls.preparing, _ = c.listener.(preparer)
	defer ls.unprepare()
	defer func() {
		if !c.left {
			c.leave()
		}
	}()
	for {
		c.turn.Unlock()
		w := ls.wait(ctx)
		// Take the turn back after the wait; Close may have taken it
		// meanwhile and left: then nothing is left to do.
		c.turn.Lock()
		if w.kind == wokeByEnd || c.left {
			if w.kind == wokeByResign {
				w.resign.done <- ErrClosed // taken from Resign just as Close came
			}
			return
		}
		nx, ok := ls.handle(ctx, w)
		if !ok {
			return
		}
		if nx.check && c.connected && !ls.check(ctx, nx.prepare) {
			return
		}
	}
}

// loopState is what the loop keeps between two events.
type loopState struct {
	c      *Candidate
	events <-chan SessionEvent
	wake   <-chan zk.Event // the recipe's current watch
	first  firstAct        // a new leader's watch on its own znode, waiting for its first act
	// pauseEnd fires when a paused leader's session may have expired.
	pauseEnd <-chan time.Time
	retry    *time.Timer // the next check after a failed one
	retries  *checkRetries
	// ready: the last decision asked to prepare on wake; prepared: the
	// listener was told to, and not yet told that it did not lead.
	ready, prepared bool
	// rejoining: a resigned candidate waits for retry before it stands
	// again, a reconnect meanwhile included.
	rejoining bool
	preparing preparer
}

// firstAct holds a new leader's watch on its own znode until its listener's
// first act (or watchLate), so that the watch's round trip is not on the
// failover's path.
type firstAct struct {
	watch func(context.Context) (<-chan zk.Event, error)
	acted <-chan struct{}
	late  <-chan time.Time
}

// next is what an event asks of the loop: a check, and whether the
// listener should prepare for it.
type next struct{ check, prepare bool }

// wokeBy says what woke the loop.
type wokeBy int

const (
	wokeByEnd      wokeBy = iota // ctx done, or the session's events ended
	wokeBySession                // a session event
	wokeByWatch                  // the recipe's watch fired
	wokeByFirstAct               // the new leader's first act, or its deadline
	wokeByRetry                  // time to check again after a failure
	wokeByPauseEnd               // a paused leader's session may have expired
	wokeByResign                 // Resign was called
)

// wakeup is one event for the loop.
type wakeup struct {
	kind    wokeBy
	session SessionEvent
	watch   zk.Event
	resign  resignation
}

// wait waits, without the turn, for the next event.
func (ls *loopState) wait(ctx context.Context) wakeup {
	var retryC <-chan time.Time
	if ls.retry != nil {
		retryC = ls.retry.C
	}
	select {
	case <-ctx.Done():
	case ev, ok := <-ls.events:
		if ok {
			return wakeup{kind: wokeBySession, session: ev}
		}
	case ev := <-ls.wake:
		return wakeup{kind: wokeByWatch, watch: ev}
	case <-ls.first.acted:
		return wakeup{kind: wokeByFirstAct}
	case <-ls.first.late:
		return wakeup{kind: wokeByFirstAct}
	case <-retryC:
		return wakeup{kind: wokeByRetry}
	case <-ls.pauseEnd:
		return wakeup{kind: wokeByPauseEnd}
	case r := <-ls.c.resigns:
		return wakeup{kind: wokeByResign, resign: r}
	}
	return wakeup{kind: wokeByEnd}
}

// handle acts on w, holding the turn. It reports false when the loop must
// end.
func (ls *loopState) handle(ctx context.Context, w wakeup) (next, bool) {
	switch w.kind {
	case wokeBySession:
		return ls.sessionChanged(w.session)
	case wokeByWatch:
		return ls.watchFired(w.watch)
	case wokeByFirstAct:
		ls.watchOwnNow(ctx)
	case wokeByRetry:
		ls.retry, ls.rejoining = nil, false
		return next{check: true}, true
	case wokeByResign:
		return ls.resign(ctx, w.resign), true
	case wokeByPauseEnd:
		// Forget the watch too: should the session turn out to have
		// survived (the servers can be slower to expire it than our clock
		// is to give up), the reconnect must look again, since our znode
		// may still lead and nobody else would speak.
		ls.pauseEnd, ls.wake, ls.first = nil, nil, firstAct{}
		ls.c.deactivate("paused until the session may have expired")
	}
	return next{}, true
}

// watchOwnNow sets the leader's watch on its own znode, its first act done
// or late.
func (ls *loopState) watchOwnNow(ctx context.Context) {
	ls.wake, ls.retry = ls.c.watchOwn(ctx, ls.first.watch, ls.retry)
	ls.first = firstAct{}
}

// watchFired handles the recipe's watch.
func (ls *loopState) watchFired(ev zk.Event) (next, bool) {
	c := ls.c
	ls.wake = nil
	if c.session.Closing() {
		return next{}, false // the closing session took our znode: leave says so
	}
	if ev.Type == zk.EventNotWatching {
		return next{}, true // the session is gone; its own event says what next
	}
	c.mu.Lock()
	c.notifications++
	c.mu.Unlock()
	c.log.Debug("watch fired", "event", ev.Type.String(), "path", ev.Path)
	if ev.Type == zk.EventNodeDeleted && ev.Path == c.Node() {
		// Our own znode was deleted by hand: whatever comes next, we stop
		// now, before asking ZooKeeper anything.
		c.deactivate("our znode was deleted")
	}
	return next{check: true, prepare: ls.ready}, true
}

// unprepare tells a prepared listener that it will not lead soon.
func (ls *loopState) unprepare() {
	if ls.prepared {
		ls.preparing.Unprepare()
		ls.prepared = false
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
		c.setWhy(StateActive, d.Node, "resumed")
		c.log.Info("reconnected in time: still the leader", "znode", d.Node)
		c.listener.StartSpeaking(c.confirmer(d.Proof)) // a no-op if it never stopped (at-least-one)
	case d.Leader && prev != StateActive:
		c.setWhy(StateActive, d.Node, "elected")
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
	c.setWhy(StatePaused, c.Node(), "paused")
	if c.policy == AtMostOne {
		c.listener.StopSpeaking()
		c.log.Warn("paused: lost the connection, stopped speaking until it is back", "policy", c.policy)
		return
	}
	c.log.Warn("paused: lost the connection, still speaking while the session may live", "policy", c.policy)
}

// deactivate makes sure we are silent and not the leader.
func (c *Candidate) deactivate(why string) {
	if prev := c.silence(reasonWord(why)); prev == StateActive || prev == StatePaused {
		c.sayStopped(why)
	}
}

// silence makes us inactive and silent, for the reason why (a word of
// Status.Why), and returns the state we were in.
func (c *Candidate) silence(why string) State {
	prev := c.State()
	if prev != StateInactive {
		c.setWhy(StateInactive, c.Node(), why)
		c.listener.StopSpeaking()
	}
	return prev
}

// reasonWord is the word of Status.Why for a reason the log gives in
// words.
func reasonWord(why string) string {
	switch {
	case why == reasonClosing:
		return "closed"
	case strings.Contains(why, "expired"):
		return "expired"
	case strings.Contains(why, "deleted"), strings.Contains(why, "replaced"):
		return "deleted"
	default:
		return "lost"
	}
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
	prev := c.silence("closed")
	if c.connected {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		switch err := c.recipe.Leave(ctx); {
		case err != nil && c.session.Closing():
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
	c.setWhy(StateClosed, c.Node(), "closed")
}
