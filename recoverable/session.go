package recoverable

import (
	"fmt"
	"time"

	"zkspeaker/internal/broadcast"
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

// newBroadcaster hands every session event to every observer, in order and
// none dropped; a channel closes after StateClosed.
func newBroadcaster() *broadcast.Broadcaster[SessionEvent] {
	return broadcast.New(SessionEvent{State: StateConnecting}, func(ev SessionEvent) bool { return ev.State == StateClosed })
}
