// Package zksession runs the election engine on a recoverable client: it
// adapts a *recoverable.RecoverableZookeeper to election.Session. The
// engine knows nothing of recoverable, so that its loop can be driven by
// a fake session in its own tests; this package is where the two meet,
// and where the engine's tests against a real server live.
package zksession

import (
	"context"
	"errors"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/recoverable"
)

// Session is a recoverable client seen as an election.Session.
type Session struct {
	rz *recoverable.RecoverableZookeeper
}

// New returns rz as an election.Session. The session stays rz's owner's:
// closing it is theirs.
func New(rz *recoverable.RecoverableZookeeper) *Session { return &Session{rz: rz} }

// SessionID returns the id of the session held now, or 0.
func (s *Session) SessionID() int64 { return s.rz.SessionID() }

// SessionTimeout returns the session's negotiated timeout.
func (s *Session) SessionTimeout() time.Duration { return s.rz.SessionTimeout() }

// AliveUntil returns the earliest moment the servers may expire the
// session (recoverable.RecoverableZookeeper.AliveUntil).
func (s *Session) AliveUntil() time.Time { return s.rz.AliveUntil() }

// State returns the latest session event.
func (s *Session) State() election.SessionEvent { return event(s.rz.State()) }

// Closing reports whether the owner has closed the session.
func (s *Session) Closing() bool { return s.rz.Closing() }

// Settle waits until every request a caller gave up on has returned.
func (s *Session) Settle(ctx context.Context) error { return s.rz.Settle(ctx) }

// SyncExists looks at path behind a sync, in one round trip.
func (s *Session) SyncExists(ctx context.Context, path string) (election.Znode, time.Time, error) {
	ok, st, sent, err := s.rz.SyncExists(ctx, path)
	if err != nil || !ok || st == nil {
		return election.Znode{}, sent, err
	}
	return election.Znode{Exists: true, Czxid: st.Czxid, EphemeralOwner: st.EphemeralOwner}, sent, nil
}

// Unanswered reports whether err is a request that got no answer: its
// retries used up, or a fault that a retry could cure.
func (s *Session) Unanswered(err error) bool {
	return errors.Is(err, recoverable.ErrRetriesExhausted) || recoverable.IsRetryable(err)
}

// Observe returns the session's events in the engine's words, in order,
// none dropped. Its channel closes after election.SessionClosed, or when
// ctx is done.
func (s *Session) Observe(ctx context.Context) <-chan election.SessionEvent {
	in := s.rz.Observe(ctx)
	out := make(chan election.SessionEvent)
	go func() {
		defer close(out)
		// in closes after the closed event, or when ctx is done: either way
		// this goroutine ends with it.
		for ev := range in {
			select {
			case out <- event(ev):
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}

// event is ev in the engine's words.
func event(ev recoverable.SessionEvent) election.SessionEvent {
	return election.SessionEvent{State: state(ev.State), SessionID: ev.SessionID, NewSession: ev.NewSession}
}

// state is st in the engine's words.
func state(st recoverable.SessionState) election.SessionState {
	switch st {
	case recoverable.StateConnected:
		return election.SessionConnected
	case recoverable.StateDisconnected:
		return election.SessionDisconnected
	case recoverable.StateExpired:
		return election.SessionExpired
	case recoverable.StateAuthFailed:
		return election.SessionAuthFailed
	case recoverable.StateClosed:
		return election.SessionClosed
	default:
		return election.SessionConnecting
	}
}
