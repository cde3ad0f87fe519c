package config

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// Watch follows key, as the chapter's ConfigWatcher does: the channel gets
// the key's value now, and then a new Value each time a read after a change
// finds one newer than the last it sent (or finds the key created or
// deleted). It fails only for a bad key.
//
// Watches are one-shot and carry no data, so Watch reads the key again
// after every event, setting the next watch with the same read. Writes that
// land between an event and that read are seen as one: Watch promises the
// latest value, not every value, which is what a configuration needs.
//
// It carries on through every fault it meets: a dropped connection (the
// watch stays set and go-zookeeper sets it again on the server it
// reconnects to, which fires it at once if the key changed meanwhile), a
// failed read (tried again with backoff), and an expired session, whose
// watches are gone: it reads again on the new session.
//
// The channel is closed when ctx is done or the session is closed. Read
// it until then, or cancel ctx: its goroutine ends only so. The channel is
// the Store's change stream, as Observe is a monitor's, and its close is
// the watch's Done; there is no Err to read, since it outlives every other
// fault (ctx.Err and the session's state say which of the two ended it).
func (s *Store) Watch(ctx context.Context, key string) (<-chan Value, error) {
	if _, err := s.Path(key); err != nil {
		return nil, err
	}
	out := make(chan Value)
	go s.watch(ctx, key, out)
	return out, nil
}

// watch is Watch's goroutine; it owns out and closes it.
func (s *Store) watch(ctx context.Context, key string, out chan<- Value) {
	defer close(out)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the session observer
	session := s.rz.Observe(ctx)
	backoff := watchBackoff()
	var last Value
	sent, sync := false, false
	for {
		if sync {
			s.sync(ctx, key)
		}
		v, changed, err := s.ReadW(ctx, key)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, recoverable.ErrClosed) {
				return
			}
			if recoverable.NeverSent(err) {
				// No server answers: wait for one quietly, as the session
				// logs that it waits, instead of a warning per try.
				if s.rz.WaitConnected(ctx) != nil {
					return
				}
				sync = true
				continue
			}
			s.log.Warn("cannot read the key; reading again", "key", key, "wait", backoff.Backoff(), "error", err)
			if backoff.SleepUntilNextRetry(ctx) != nil {
				return
			}
			backoff.UseRetry()
			sync = true
			continue
		}
		backoff = watchBackoff()
		if !sent || newer(v, last) {
			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
			last, sent = v, true
		}
		var ok bool
		if sync, ok = s.await(ctx, key, changed, session); !ok {
			return
		}
	}
}

// await waits until key must be read again: its watch fired, or a new
// session began, whose reads must first catch up with the leader (sync).
// It reports false when the watcher must end.
func (s *Store) await(ctx context.Context, key string, changed <-chan zk.Event, session <-chan recoverable.SessionEvent) (sync, ok bool) {
	read := s.rz.SessionID() // the session that set the watch
	for {
		select {
		case <-ctx.Done():
			return false, false
		case ev := <-changed:
			if ev.Type == zk.EventNotWatching {
				// The session that held the watch is gone (ev.Err says
				// why): whatever changed meanwhile told nobody.
				s.log.Info("the watch is gone with its session; reading the key again", "key", key, "reason", ev.Err)
				return true, true
			}
			s.log.Debug("watch fired", "key", key, "event", ev.Type.String())
			return false, true
		case ev, open := <-session:
			if !open {
				return false, false
			}
			// After a plain reconnect the watch is still set: keep waiting.
			// A new session has none of the old one's watches; go-zookeeper
			// normally fires them first with EventNotWatching, but the read
			// costs little and makes sure.
			if ev.State == recoverable.StateConnected && ev.SessionID != read {
				s.log.Info("reading the key again on the new session", "key", key, "session", ev.String())
				return true, true
			}
		}
	}
}

// sync makes the server we talk to catch up with the leader before a read.
// A new session starts from nothing (go-zookeeper forgets the last zxid it
// saw when a session expires), so it may land on a server that lags behind
// what we already printed. A failure is not fatal: the read that follows
// meets the same fault and is retried.
func (s *Store) sync(ctx context.Context, key string) {
	path, _ := s.Path(key)
	if err := s.rz.Sync(ctx, path); err != nil && !errors.Is(err, zk.ErrNoNode) {
		s.log.Debug("sync before the read failed", "key", key, "error", err)
	}
}

// newer reports whether v is worth reporting after last: the key appeared
// or vanished, or a later write than last's is in it. A read from a server
// that lags behind can return an older write; it is not sent again.
func newer(v, last Value) bool {
	if v.Exists != last.Exists {
		return true
	}
	return v.Exists && v.Zxid > last.Zxid
}

// watchBackoff paces the re-reads after a failure: from 200 ms doubling to
// at most 2 s, for as long as the watcher runs.
func watchBackoff() *recoverable.RetryCounter {
	return recoverable.NewRetryCounter(1<<30, 100*time.Millisecond, 2*time.Second, 0.2)
}
