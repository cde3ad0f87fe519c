package lock

import (
	"context"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// startGuard starts the goroutine that suspends the lock the moment the
// connection goes, under at-most-one. The election engine pauses too, but
// only once its loop reads the disconnect, and the loop may be busy in a
// round trip that retries until the session may have expired (its watch on
// its own znode, a check): up to a session timeout late, when a holder's
// work (zklock's CMD) should already have stopped acting. Unlock stops the
// goroutine and waits for it. session is the one the lock was won on. The
// caller holds l.mu.
func (l *Lock) startGuard(session int64) {
	ctx, cancel := context.WithCancel(context.Background())
	l.stopGuard, l.guardDone = cancel, make(chan struct{})
	go l.guard(ctx, session, l.guardDone)
}

// guard follows our session's events. A disconnect suspends the lock. The
// reconnect of the same session proves it ours again when the engine never
// paused (it was busy, and the session's ephemeral znode lives with the
// session; a delete of it fires the engine's watch); when the engine did
// pause, its own check resumes the lock (StartSpeaking). An expiry, another
// session or the close lose it for good.
func (l *Lock) guard(ctx context.Context, session int64, done chan<- struct{}) {
	defer close(done)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the observer when the lock is lost first
	events := l.rz.Observe(ctx)
	for {
		select {
		case ev, ok := <-events:
			switch {
			case !ok:
				l.h.lose()
				return
			case ev.State == recoverable.StateConnected && ev.SessionID == session:
				if l.engineActive() {
					l.h.resume()
				}
			case ev.State == recoverable.StateDisconnected || ev.State == recoverable.StateConnecting:
				l.h.suspend()
			default: // another session, an expiry, the close
				l.h.lose()
				return
			}
		case <-l.h.done:
			return
		case <-ctx.Done():
			return
		}
	}
}

// engineActive reports whether the engine holds the leadership as active:
// it has not paused, or has resumed.
func (l *Lock) engineActive() bool {
	mon := l.mon.Load()
	return mon != nil && mon.State() == nodemonitor.StateActive
}
