// Package election is the engine under the articles' two monitors: one
// goroutine per candidate that follows the ZooKeeper session (connected,
// paused, expired), asks a Recipe who leads, and tells a Listener when to
// speak. nodemonitor (sequential) and znodemonitor (single-file) are the
// Recipes; neither knows the other.
//
// The shape follows etcd's client/v3/concurrency: a candidate's liveness and
// leadership are observed through a channel, and Close is idempotent and
// waits for the goroutine it ends.
package election

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"zkspeaker/internal/broadcast"
)

// Config is what the engine needs besides its Recipe.
type Config struct {
	// Policy is what a paused leader does.
	Policy Policy
	// Logger receives one line per state change.
	Logger *slog.Logger
}

// Candidate runs one candidate: it follows the session, asks its Recipe who
// leads, and tells its Listener to start or stop speaking. One goroutine
// owns all of its state, and everything else reaches it as an event; only
// Close, finding that goroutine idle, leaves in its place.
type Candidate struct {
	session  Session
	listener Listener
	recipe   Recipe
	policy   Policy
	log      *slog.Logger

	mu            sync.Mutex // guards the snapshot that State, Node, Confirm and Notifications read
	status        Status
	notifications int64
	err           error // why the candidate gave up on its own (refused.go)
	observers     *broadcast.Broadcaster[Status]

	// turn is held by whoever acts for the candidate: the loop, except
	// while it waits for an event, or Close, when it finds the loop
	// waiting. The recipe, the listener and the fields below are touched
	// only under it.
	turn      sync.Mutex
	connected bool // the session is connected, as far as the loop has heard
	left      bool // leave has run, by Close or by the loop: nothing is left to do
	joined    bool // a check has put us in the election once (refusedForGood)

	resigns   chan resignation // Resign's calls, for the loop
	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

// Run starts a Candidate for recipe on session. It returns at once; the
// candidate joins as soon as there is a session.
func Run(session Session, listener Listener, recipe Recipe, cfg Config) *Candidate {
	ctx, cancel := context.WithCancel(context.Background())
	c := &Candidate{session: session, listener: listener, recipe: recipe, policy: cfg.Policy, log: cfg.Logger,
		observers: broadcast.New(Status{}, func(s Status) bool { return s.State == StateClosed }),
		resigns:   make(chan resignation), cancel: cancel, done: make(chan struct{})}
	go c.loop(ctx)
	return c
}

// State returns the candidate's state now.
func (c *Candidate) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status.State
}

// Node returns the path of our znode, or "" before we joined.
func (c *Candidate) Node() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status.Node
}

// Notifications returns how many watch notifications woke this candidate:
// the cost of one failover, and the measure of the herd effect.
func (c *Candidate) Notifications() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.notifications
}

// Observe returns a channel that carries the candidate's status now, then
// every change of its state or znode, in order, none dropped however slowly
// it is read. It closes after the StateClosed status, or when ctx is done.
func (c *Candidate) Observe(ctx context.Context) <-chan Status {
	return c.observers.Observe(ctx)
}

// Close stops speaking, deletes our znode so that the successor takes over
// at once, and waits for the candidate's goroutine. It does not close the
// session, which belongs to the caller. It is safe to call more than once.
func (c *Candidate) Close() {
	c.closeOnce.Do(func() {
		if c.turn.TryLock() {
			// The loop is waiting for an event, so nothing is under way:
			// leave from here, as zk.Lock's Unlock deletes from its
			// caller's goroutine. Waking the loop to do it would put a
			// goroutine hand-off before the one write that the successor
			// waits for. The loop then finds left set and ends.
			// Or the loop has ended already (it gave up, or the session
			// was closed), and has left on its way out.
			if !c.left {
				c.leave()
			}
			c.turn.Unlock()
		}
		// Otherwise the loop is busy (a check, a watch): ending it ends
		// that work, and the loop leaves on its way out.
		c.cancel()
		<-c.done
		c.observers.Close(Status{State: StateClosed, Node: c.Node()}, time.Second)
	})
}

// set records a new state and znode, and tells the observers if either
// changed.
func (c *Candidate) set(state State, node string) { c.setWhy(state, node, "") }

// setWhy is set, saying why the state changed (see Status.Why).
func (c *Candidate) setWhy(state State, node, why string) {
	c.mu.Lock()
	changed := c.status.State != state || c.status.Node != node
	if c.status.State == state {
		why = c.status.Why // the same state: what made it stays the reason
	}
	c.status = Status{State: state, Node: node, Why: why}
	c.mu.Unlock()
	if changed {
		c.observers.Publish(Status{State: state, Node: node, Why: why})
	}
}

// sessionDeadline is the moment from which the servers may have expired our
// session (Session.AliveUntil), less a twentieth of the session timeout
// for timer delays and for the drift between our clock and the servers'.
func (c *Candidate) sessionDeadline() time.Time {
	return c.session.AliveUntil().Add(-c.session.SessionTimeout() / 20)
}
