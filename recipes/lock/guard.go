package lock

import (
	"context"

	"zkspeaker/recoverable"
)

// startGuard starts the goroutine that reports the lock lost the moment the
// connection goes, under at-most-one. The election engine does that too
// when it pauses, but only once its loop reads the disconnect, and the loop
// may be busy in a round trip that retries until the session may have
// expired (its watch on its own znode, a check): up to a session timeout
// late, when a holder's work (zklock's CMD) should already be stopping.
// A lost lock is never given back, so acting on the first sign costs
// nothing. Unlock stops the goroutine and waits for it. The caller holds
// l.mu.
func (l *Lock) startGuard() {
	ctx, cancel := context.WithCancel(context.Background())
	l.stopGuard, l.guardDone = cancel, make(chan struct{})
	go l.guard(ctx, l.rz.SessionID(), l.h, l.guardDone)
}

// guard closes h's Lost at the first session event that is not our
// session, connected: a disconnect, an expiry, a new session, the close.
func (l *Lock) guard(ctx context.Context, session int64, h *holder, done chan<- struct{}) {
	defer close(done)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the observer when the lock is lost first
	events := l.rz.Observe(ctx)
	for {
		select {
		case ev, ok := <-events:
			if !ok || ev.State != recoverable.StateConnected || ev.SessionID != session {
				h.StopSpeaking()
				return
			}
		case <-h.lost:
			return
		case <-ctx.Done():
			return
		}
	}
}
