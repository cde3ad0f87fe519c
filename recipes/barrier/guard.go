package barrier

import (
	"context"
	"errors"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/recoverable"
)

// While we are inside, nobody waits for us unless our znode is there: the
// others leave without us once it is gone. So the member watches its own
// znode (one watch, on its own znode: no herd) and reports its loss
// (StateLost, ErrLost) at once, so that the work can stop rather than run
// on unseen.

// startGuard starts the goroutine that follows our znode while we are
// inside; endGuard ends it.
func (b *DoubleBarrier) startGuard() {
	ctx, cancel := context.WithCancel(context.Background())
	b.mu.Lock()
	b.stopGuard, b.guardDone = cancel, make(chan struct{})
	own, done := b.own, b.guardDone
	b.mu.Unlock()
	session := b.rz.SessionID()
	go func() {
		defer close(done)
		if b.follow(ctx, own, session) {
			b.mu.Lock()
			b.lost = true
			b.mu.Unlock()
			b.log.Warn("our member znode is gone while inside: the others no longer wait for us", "member", own)
			b.states.Publish(StateLost)
		}
	}()
}

// endGuard stops the guard and waits for it.
func (b *DoubleBarrier) endGuard() {
	b.mu.Lock()
	stop, done := b.stopGuard, b.guardDone
	b.mu.Unlock()
	if stop != nil {
		stop()
		<-done
	}
}

// follow watches own until it is gone, or is no longer session's (true),
// or until ctx ends or the client closes (false).
func (b *DoubleBarrier) follow(ctx context.Context, own string, session int64) bool {
	for {
		ok, st, wake, err := b.rz.ExistsW(ctx, own)
		switch {
		case ctx.Err() != nil, errors.Is(err, recoverable.ErrClosed):
			return false
		case errors.Is(err, zk.ErrSessionExpired):
			return true
		case err != nil:
			// Out of retries while cut off: ask again a little later.
			select {
			case <-ctx.Done():
				return false
			case <-time.After(b.rz.SessionTimeout() / 10):
			}
			continue
		case !ok || st.EphemeralOwner != session:
			return true
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return false
		case <-b.rz.Done():
			return false
		}
	}
}
