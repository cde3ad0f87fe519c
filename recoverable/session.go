package recoverable

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// SessionState is what a client knows about its ZooKeeper session.
type SessionState uint32

const (
	// StateConnecting means no session has been established yet.
	StateConnecting SessionState = iota
	// StateConnected means the client holds a live session with a server.
	StateConnected
	// StateDisconnected means the connection dropped. The session may still be
	// alive on the servers; the client cannot know until it reconnects.
	StateDisconnected
	// StateExpired means the servers ended the session, and with it every
	// ephemeral znode it owned. go-zookeeper then opens a new session itself.
	StateExpired
	// StateAuthFailed means the servers refused the client's credentials.
	StateAuthFailed
	// StateClosed means Close was called; no event follows.
	StateClosed
)

// String returns the state's name as the logs print it.
func (s SessionState) String() string {
	switch s {
	case StateConnecting:
		return "connecting"
	case StateConnected:
		return "connected"
	case StateDisconnected:
		return "disconnected"
	case StateExpired:
		return "expired"
	case StateAuthFailed:
		return "auth-failed"
	case StateClosed:
		return "closed"
	default:
		return "unknown"
	}
}

// SessionEvent is one change of the session's state.
type SessionEvent struct {
	// State is the state entered.
	State SessionState
	// SessionID is the session now held (StateConnected) or the one the event
	// is about (StateDisconnected, StateExpired).
	SessionID int64
	// NewSession is true on the StateConnected event of a session that was
	// not held before: the first one, or the one go-zookeeper opens after an
	// expiry. Everything ephemeral of the old session is gone.
	NewSession bool
	// Timeout is the session timeout the server negotiated, when known.
	Timeout time.Duration
	// Server is the server the client is (or was last) talking to.
	Server string
}

// String describes the event in words for the logs.
func (e SessionEvent) String() string {
	switch {
	case e.State == StateConnected && e.NewSession:
		return fmt.Sprintf("new session 0x%x (timeout %v) with %s", e.SessionID, e.Timeout, e.Server)
	case e.State == StateConnected:
		return fmt.Sprintf("reconnected session 0x%x to %s", e.SessionID, e.Server)
	case e.SessionID != 0:
		return fmt.Sprintf("%s (session 0x%x)", e.State, e.SessionID)
	default:
		return e.State.String()
	}
}

// broadcaster hands every session event to every observer, in order. The
// publisher never blocks (go-zookeeper's callback must not) and no event is
// ever dropped: each observer has its own unbounded queue, which a goroutine
// of its own drains into the observer's channel.
type broadcaster struct {
	mu      sync.Mutex
	last    SessionEvent
	queues  map[*eventQueue]struct{}
	closed  bool
	workers sync.WaitGroup
}

type eventQueue struct {
	pending []SessionEvent
	wake    chan struct{} // capacity 1: "pending has something"
}

func newBroadcaster() *broadcaster {
	return &broadcaster{
		last:   SessionEvent{State: StateConnecting},
		queues: make(map[*eventQueue]struct{}),
	}
}

// publish records ev as the current state and queues it for every observer.
func (b *broadcaster) publish(ev SessionEvent) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.last = ev
	for q := range b.queues {
		q.pending = append(q.pending, ev)
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// current returns the last event published.
func (b *broadcaster) current() SessionEvent {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// observe returns a channel that first carries the current state, then every
// later event. It closes after the StateClosed event, or when ctx is done.
func (b *broadcaster) observe(ctx context.Context) <-chan SessionEvent {
	ch := make(chan SessionEvent)
	q := &eventQueue{wake: make(chan struct{}, 1)}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		close(ch)
		return ch
	}
	q.pending = []SessionEvent{b.last}
	q.wake <- struct{}{}
	b.queues[q] = struct{}{}
	b.workers.Add(1)
	b.mu.Unlock()

	go func() {
		defer b.workers.Done()
		defer close(ch)
		defer func() {
			b.mu.Lock()
			delete(b.queues, q)
			b.mu.Unlock()
		}()
		for {
			select {
			case <-q.wake:
			case <-ctx.Done():
				return
			}
			b.mu.Lock()
			batch := q.pending
			q.pending = nil
			b.mu.Unlock()
			for _, ev := range batch {
				select {
				case ch <- ev:
				case <-ctx.Done():
					return
				}
				if ev.State == StateClosed {
					return
				}
			}
		}
	}()
	return ch
}

// close publishes StateClosed, the last event, and waits up to grace for
// every observer to take it. An observer that neither reads nor cancels its
// context keeps its goroutine until it does.
func (b *broadcaster) close(grace time.Duration) {
	b.publish(SessionEvent{State: StateClosed})
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	b.mu.Unlock()
	done := make(chan struct{})
	go func() {
		b.workers.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(grace):
	}
}
