package recoverable

import (
	"context"
	"errors"

	"github.com/go-zookeeper/zk"
)

// authenticate hands our digest credentials to go-zookeeper, and lets
// operations through (authReady) only once a server has accepted them. It
// runs on its own goroutine from Connect until then, or until Close.
//
// go-zookeeper sends credentials again after every reconnect, but only
// those that a server has accepted once: a single AddAuth that fails, as
// every queued request does while no server answers (ErrNoServer), when
// the connection drops under it, or when the session expires (go-zookeeper
// then starts a new one), would leave the client unauthenticated for
// good. Its own znodes' ACL would then refuse it. So we try again after
// each new connection, until a server says yes.
//
// There is one more gap: go-zookeeper stores the credentials only after the
// reply, so a reconnect between the two re-sends a list without them. Every
// connection bumps r.sessions before its re-send, so a changed count means
// "maybe missed": we send them again (a duplicate is harmless). Waiting
// for a connection before each try keeps that to the rare real race.
func (r *RecoverableZookeeper) authenticate(digest string) {
	defer close(r.authDone)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := r.Observe(ctx)
	for {
		if !r.awaitConnection(events) {
			return // authReady stays open; ready sees quit
		}
		before := r.sessions.Load()
		err := r.conn.AddAuth("digest", []byte(digest))
		switch {
		case r.closed():
			return
		case err == nil && r.sessions.Load() == before:
			r.log.Debug("credentials accepted by ZooKeeper")
			close(r.authReady)
			return
		case err == nil:
			r.log.Debug("reconnected while ZooKeeper took our credentials; giving them again")
		case IsRetryable(err) || errors.Is(err, zk.ErrSessionExpired):
			r.log.Debug("could not give ZooKeeper our credentials; trying again on the next connection", "error", err)
		default:
			// Digest credentials are not checked when given, so this is
			// not a wrong password; our requests go out without them and
			// the znodes' ACL says the rest.
			r.log.Error("ZooKeeper refused our credentials", "error", err)
			close(r.authReady)
			return
		}
	}
}

// awaitConnection reads session events until one says connected, and
// reports false if the client is closed first. An event read late may be
// stale; then AddAuth simply waits in go-zookeeper's queue for the next
// connection.
func (r *RecoverableZookeeper) awaitConnection(events <-chan SessionEvent) bool {
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				return false
			}
			if ev.State == StateConnected {
				return true
			}
		case <-r.quit:
			return false
		}
	}
}
