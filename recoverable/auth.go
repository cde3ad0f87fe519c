package recoverable

import (
	"errors"
	"time"

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
// good. Its own znodes' ACL would then refuse it. So we try until a server
// says yes.
//
// There is one more gap: go-zookeeper stores the credentials only after the
// reply, so a reconnect between the two re-sends a list without them. Every
// reconnect bumps r.sessions before its re-send, so a changed count means
// "maybe missed": we send them again (a duplicate is harmless).
func (r *RecoverableZookeeper) authenticate(digest string) {
	defer close(r.authDone)
	// go-zookeeper paces the failures itself (a second between passes over
	// the servers), so a short pause is enough, and the credentials go out
	// as soon as a server is back.
	counter := NewRetryCounter(1<<30, 50*time.Millisecond, 250*time.Millisecond, 0.2)
	for {
		before := r.sessions.Load()
		err := r.conn.AddAuth("digest", []byte(digest))
		switch {
		case r.closed():
			return // authReady stays open; ready sees quit
		case err == nil && r.sessions.Load() == before:
			r.log.Debug("credentials accepted by ZooKeeper")
			close(r.authReady)
			return
		case err == nil:
			r.log.Debug("reconnected while ZooKeeper took our credentials; giving them again")
			continue
		case !IsRetryable(err) && !errors.Is(err, zk.ErrSessionExpired):
			// Digest credentials are not checked when given, so this is
			// not a wrong password; our requests go out without them and
			// the znodes' ACL says the rest.
			r.log.Error("ZooKeeper refused our credentials", "error", err)
			close(r.authReady)
			return
		}
		r.log.Debug("could not give ZooKeeper our credentials yet; trying again", "error", err)
		select {
		case <-time.After(counter.nextSleep()):
			counter.UseRetry()
		case <-r.quit:
			return
		}
	}
}
