package election

import (
	"context"
	"time"
)

// Session is the ZooKeeper session a candidate runs on, as far as the
// engine uses it: its events, its clock, and the one question the engine
// asks by itself (is our znode still ours?). The recipe does every other
// request. The engine declares it so that its loop can be driven without a
// server; zksession adapts a recoverable client to it.
type Session interface {
	// SessionID returns the id of the session held now, or 0.
	SessionID() int64
	// SessionTimeout returns the timeout negotiated for the session held
	// now, or the one asked for before any session.
	SessionTimeout() time.Duration
	// AliveUntil returns the earliest moment the servers may expire the
	// session, as far as the client can know.
	AliveUntil() time.Time
	// State returns the latest session event.
	State() SessionEvent
	// Observe returns a channel that carries the latest session event, then
	// every later one, in order, none dropped. It closes after
	// SessionClosed, or when ctx is done.
	Observe(ctx context.Context) <-chan SessionEvent
	// Closing reports whether the owner has closed the session: what
	// follows (our znode vanishing, requests failing) is not a fault.
	Closing() bool
	// SyncExists looks at path as fresh as a sync makes it, in one round
	// trip, and says when the request went out: an answer proves the
	// session alive at that moment, not at its arrival.
	SyncExists(ctx context.Context, path string) (Znode, time.Time, error)
	// Settle waits until every request a caller gave up on has returned:
	// a request sent after it reaches the server after theirs.
	Settle(ctx context.Context) error
	// Unanswered reports whether err is a request that failed without an
	// answer from ZooKeeper (a lost connection, retries used up): what it
	// asked for may or may not have been done.
	Unanswered(err error) bool
}

// Znode is what SyncExists found at a path.
type Znode struct {
	// Exists is false when there is no znode at the path.
	Exists bool
	// Czxid is the zxid of the znode's create: a leader's epoch.
	Czxid int64
	// EphemeralOwner is the session that owns the znode, 0 for none.
	EphemeralOwner int64
}

// SessionState is what a client knows about its session.
type SessionState uint32

const (
	// SessionConnecting means no session has been established yet.
	SessionConnecting SessionState = iota
	// SessionConnected means the client holds a live session.
	SessionConnected
	// SessionDisconnected means the connection dropped; the session may
	// still live on the servers.
	SessionDisconnected
	// SessionExpired means the servers ended the session, and every
	// ephemeral znode it owned with it.
	SessionExpired
	// SessionAuthFailed means the servers refused the client's credentials.
	SessionAuthFailed
	// SessionClosed means the owner closed the session; nothing follows.
	SessionClosed
)

// String returns the state's name as the logs print it.
func (s SessionState) String() string {
	switch s {
	case SessionConnecting:
		return "connecting"
	case SessionConnected:
		return "connected"
	case SessionDisconnected:
		return "disconnected"
	case SessionExpired:
		return "expired"
	case SessionAuthFailed:
		return "auth-failed"
	case SessionClosed:
		return "closed"
	default:
		return "unknown"
	}
}

// SessionEvent is one change of the session's state.
type SessionEvent struct {
	// State is the state entered.
	State SessionState
	// SessionID is the session held now (SessionConnected) or the one the
	// event is about.
	SessionID int64
	// NewSession is true on the SessionConnected event of a session not
	// held before: everything ephemeral of an earlier one is gone.
	NewSession bool
}
