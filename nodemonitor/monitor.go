// Package nodemonitor holds the articles' NodeMonitor: the sequential leader
// election of the ZooKeeper recipes, where each candidate owns an
// EPHEMERAL|SEQUENTIAL znode under /election, the lowest one leads, and every
// other one watches only its predecessor, so that no change wakes a herd.
//
// The Monitor type is also the engine of znodemonitor's single-file election:
// the two recipes differ only in how they decide who leads (a Recipe), while
// the handling of the session — paused, expired, reconnected — is the same.
package nodemonitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// ErrInvalid is wrapped by every error about a bad option value.
var ErrInvalid = errors.New("nodemonitor: invalid option")

// ErrSessionChanged means the session was replaced while a znode was being
// created, so the new znode cannot be trusted to be ours.
var ErrSessionChanged = errors.New("nodemonitor: session changed")

// Recipe is the half of an election that differs between the articles' two
// monitors. The Monitor calls it from its one goroutine only.
type Recipe interface {
	// Check joins the election if this session has no znode in it yet, and
	// decides whether we lead. Wake fires once when that may have changed.
	Check(ctx context.Context) (Decision, error)
	// Leave deletes our znode, so that a successor need not wait for the
	// session to end.
	Leave(ctx context.Context) error
}

// Decision is the outcome of one Recipe.Check.
type Decision struct {
	// Leader is true when our znode is the one that leads.
	Leader bool
	// Node is our znode's path.
	Node string
	// Wake fires when the decision may have changed.
	Wake <-chan zk.Event
}

// Monitor runs one candidate: it follows the session, asks its Recipe who
// leads, and tells its Listener to start or stop speaking. One goroutine owns
// all of its state; everything else reaches it as an event.
type Monitor struct {
	zk       *recoverable.RecoverableZookeeper
	listener Listener
	recipe   Recipe
	policy   Policy
	log      *slog.Logger

	mu            sync.Mutex // guards the snapshot that State, Node and Notifications read
	state         State
	node          string
	notifications int64

	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
}

// Run starts a Monitor for recipe on the session of rz. It returns at once;
// the Monitor joins as soon as there is a session.
func Run(rz *recoverable.RecoverableZookeeper, listener Listener, recipe Recipe, cfg Config) *Monitor {
	ctx, cancel := context.WithCancel(context.Background())
	m := &Monitor{zk: rz, listener: listener, recipe: recipe, policy: cfg.Policy, log: cfg.Logger,
		cancel: cancel, done: make(chan struct{})}
	if c, ok := listener.(Confirmer); ok && cfg.Policy == AtMostOne {
		c.SetConfirm(m.Confirm) // before the loop starts, so every line is confirmed
	}
	go m.loop(ctx)
	return m
}

// State returns the Monitor's state now.
func (m *Monitor) State() State {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.state
}

// Node returns the path of our znode, or "" before we joined.
func (m *Monitor) Node() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.node
}

// Notifications returns how many watch notifications woke this candidate:
// the cost of one failover, and the measure of the herd effect.
func (m *Monitor) Notifications() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.notifications
}

// Close stops speaking, deletes our znode so that the successor takes over
// at once, and waits for the Monitor's goroutine. It does not close the
// session, which belongs to the caller. It is safe to call more than once.
func (m *Monitor) Close() {
	m.closeOnce.Do(func() {
		m.cancel()
		<-m.done
	})
}

func (m *Monitor) loop(ctx context.Context) {
	defer close(m.done)
	events := m.zk.Observe(ctx)
	var (
		connected bool
		wake      <-chan zk.Event // the recipe's current watch
		pauseEnd  <-chan time.Time
		retry     *time.Timer
		retries   = newCheckRetries()
	)
	defer m.leave(&connected)
	for {
		check := false
		var retryC <-chan time.Time
		if retry != nil {
			retryC = retry.C
		}
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-events:
			if !ok {
				return
			}
			switch ev.State {
			case recoverable.StateConnected:
				connected, pauseEnd = true, nil
				// After a plain reconnect go-zookeeper re-arms our watches, so
				// a follower has nothing to do. A paused leader must confirm
				// that its znode survived; a new session must join again.
				check = ev.NewSession || m.State() == StatePaused || wake == nil
			case recoverable.StateDisconnected:
				connected = false
				if st := m.State(); st == StateActive || st == StatePaused {
					if st == StateActive {
						m.pause()
					}
					// The client hears of expiry only when it reconnects, so
					// it keeps its own clock, started when the servers last
					// answered, not when the client noticed their silence:
					// once the session may have expired, someone else may
					// lead. Paused already (a reconnect whose check failed),
					// it arms the clock again from that reconnect.
					pauseEnd = time.After(time.Until(m.sessionDeadline()))
				}
			case recoverable.StateExpired, recoverable.StateAuthFailed:
				connected, wake, pauseEnd = false, nil, nil
				m.deactivate("session " + ev.State.String())
			case recoverable.StateClosed:
				return
			}
		case ev := <-wake:
			wake = nil
			if ev.Type == zk.EventNotWatching {
				continue // the session is gone; its own event says what next
			}
			m.mu.Lock()
			m.notifications++
			m.mu.Unlock()
			m.log.Debug("watch fired", "event", ev.Type.String(), "path", ev.Path)
			if ev.Type == zk.EventNodeDeleted && ev.Path == m.Node() {
				// Our own znode was deleted by hand: whatever comes next, we
				// stop now, before asking ZooKeeper anything.
				m.deactivate("our znode was deleted")
			}
			check = true
		case <-retryC:
			retry, check = nil, true
		case <-pauseEnd:
			// Forget the watch too: should the session turn out to have
			// survived (the servers can be slower to expire it than our
			// clock is to give up), the reconnect must look again, since
			// our znode may still lead and nobody else would speak.
			pauseEnd, wake = nil, nil
			m.deactivate("paused until the session may have expired")
		}
		if !check || !connected {
			continue
		}
		// A Check retries through a lost connection, and meanwhile the loop
		// hears no event: bound it by the session's life, or a leader that
		// keeps speaking while paused could outlive its session in here.
		checkCtx, cancel := context.WithDeadline(ctx, m.sessionDeadline())
		d, err := m.recipe.Check(checkCtx)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if errors.Is(err, context.DeadlineExceeded) {
				err = fmt.Errorf("our session may have expired meanwhile: %w", err)
			}
			delay := retries.Backoff()
			retries.UseRetry()
			m.log.Warn("election check failed; will try again", "error", err, "in", delay)
			if retry != nil {
				retry.Stop()
			}
			retry = time.NewTimer(delay)
			continue
		}
		retries = newCheckRetries()
		wake = d.Wake
		m.apply(d)
	}
}

// sessionDeadline is the moment from which the servers may have expired our
// session (recoverable.AliveUntil), less a twentieth of the session timeout
// for timer delays and for the drift between our clock and the servers'.
func (m *Monitor) sessionDeadline() time.Time {
	return m.zk.AliveUntil().Add(-m.zk.SessionTimeout() / 20)
}

// apply acts on a Recipe's decision.
func (m *Monitor) apply(d Decision) {
	m.mu.Lock()
	prev := m.state
	m.node = d.Node
	m.mu.Unlock()
	switch {
	case d.Leader && prev == StatePaused:
		m.setState(StateActive)
		m.log.Info("reconnected in time: still the leader", "znode", d.Node)
		m.listener.StartSpeaking() // a no-op if it never stopped (at-least-one)
	case d.Leader && prev != StateActive:
		m.setState(StateActive)
		m.log.Info("became leader", "znode", d.Node)
		m.listener.StartSpeaking()
	case !d.Leader && prev != StateInactive:
		m.deactivate("another candidate leads")
	}
}

// pause enters the paused state after a disconnection of the leader.
func (m *Monitor) pause() {
	m.setState(StatePaused)
	if m.policy == AtMostOne {
		m.listener.StopSpeaking()
		m.log.Warn("paused: lost the connection, stopped speaking until it is back", "policy", m.policy)
		return
	}
	m.log.Warn("paused: lost the connection, still speaking while the session may live", "policy", m.policy)
}

// deactivate makes sure we are silent and not the leader.
func (m *Monitor) deactivate(why string) {
	prev := m.State()
	if prev == StateInactive {
		return
	}
	m.setState(StateInactive)
	m.listener.StopSpeaking()
	if prev == StateActive || prev == StatePaused {
		m.log.Warn("no longer the leader", "reason", why)
	}
}

func (m *Monitor) setState(s State) {
	m.mu.Lock()
	m.state = s
	m.mu.Unlock()
}

// leave runs when the loop ends: silence first, then delete our znode
// while the session is still there, bounded so that Close stays prompt.
func (m *Monitor) leave(connected *bool) {
	m.deactivate("closing")
	if *connected {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		if err := m.recipe.Leave(ctx); err != nil {
			m.log.Warn("could not delete our znode; it goes with the session", "error", err)
		}
		cancel()
	}
	m.setState(StateClosed)
}

// newCheckRetries spaces out the retries of a failed election check, which
// are never given up: the candidate stays in the race for as long as it runs.
func newCheckRetries() *recoverable.RetryCounter {
	return recoverable.NewRetryCounter(math.MaxInt32, 50*time.Millisecond, 5*time.Second, 0)
}
