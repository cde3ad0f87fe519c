package election

import "time"

// sessionChanged handles a session event, holding the turn. It reports
// false when the loop must end: our owner closed the session.
func (ls *loopState) sessionChanged(ev SessionEvent) (next, bool) {
	c := ls.c
	switch ev.State {
	case SessionConnected:
		c.connected, ls.pauseEnd = true, nil
		// After a plain reconnect go-zookeeper re-arms our watches, so a
		// follower has nothing to do. A paused leader must confirm that its
		// znode survived; a new session must join again.
		return next{check: ev.NewSession || c.State() == StatePaused || (ls.wake == nil && !ls.rejoining)}, true
	case SessionDisconnected:
		ls.disconnected(ev)
	case SessionExpired, SessionAuthFailed:
		c.connected, ls.wake, ls.pauseEnd, ls.first = false, nil, nil, firstAct{}
		c.deactivate("session " + ev.State.String())
	case SessionClosed:
		// Our owner closed the session: that was the one server write that
		// removed our znode, and nothing is left to delete.
		if c.connected && c.Node() != "" {
			c.deactivate(reasonClosing)
			c.log.Info("left the election: the session is closed, and our znode went with it", "znode", c.Node())
		}
		c.connected = false
		return next{}, false
	}
	return next{}, true
}

// disconnected pauses a leader when its connection is lost, and starts the
// clock that ends the pause once the session may have expired.
func (ls *loopState) disconnected(ev SessionEvent) {
	c := ls.c
	if now := c.session.State(); now.State == SessionConnected && now.SessionID == ev.SessionID {
		// Stale: the loop was busy in a Check while the same session lost
		// its connection and got it back, and the reconnect is next in
		// line. Pausing now would stop a leader elected since on a live
		// connection (a lock holder would be told it lost its lock). Its
		// confirms failed while the connection was down, so it wrote
		// nothing then.
		return
	}
	c.connected = false
	if st := c.State(); st == StateActive || st == StatePaused {
		if st == StateActive {
			c.pause()
		}
		// The client hears of expiry only when it reconnects, so it keeps
		// its own clock, started when the servers last answered, not when
		// the client noticed their silence: once the session may have
		// expired, someone else may lead. Paused already (a reconnect whose
		// check failed), it arms the clock again from that reconnect.
		ls.pauseEnd = time.After(time.Until(c.sessionDeadline()))
	}
}
