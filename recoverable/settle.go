package recoverable

import (
	"context"
	"sync"
)

// A call whose caller gave up (its context ended first) goes on running on
// its own goroutine: go-zookeeper's calls cannot be cancelled. Until that
// goroutine has handed its request to go-zookeeper, a request the caller
// sends next may reach the server first. A recipe that gave up on a create
// and then looks for what the create made (a candidate's Leave after
// Close cut its check short) must wait for the create first, or it may
// look too early, find nothing, and leave behind a znode that the late
// create makes a moment later: an orphan on a live session.

// abandonedCalls counts the calls given up on that have not returned.
type abandonedCalls struct {
	mu      sync.Mutex
	n       int
	settled chan struct{} // closed when n drops to 0; nil while n is 0
}

// add counts one call given up on; it returns the function to call when
// the call has returned.
func (a *abandonedCalls) add() (returned func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == 0 {
		a.settled = make(chan struct{})
	}
	a.n++
	return func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.n--; a.n == 0 {
			close(a.settled)
			a.settled = nil
		}
	}
}

// wait returns a channel closed once no call given up on before now is
// still running (it may wait for later ones too).
func (a *abandonedCalls) wait() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.n == 0 {
		done := make(chan struct{})
		close(done)
		return done
	}
	return a.settled
}

// abandon notes that the caller gave up on the call whose result comes on
// done, and follows it until it returns.
func abandon[T any](r *RecoverableZookeeper, done <-chan result[T]) {
	returned := r.abandoned.add()
	go func() {
		<-done
		returned()
	}()
}

// Settle waits until every call on this client that a caller gave up on
// has returned, answered or failed: a request sent after Settle reaches
// the server after theirs. It returns early with ctx's error, or with
// ErrClosed.
func (r *RecoverableZookeeper) Settle(ctx context.Context) error {
	select {
	case <-r.abandoned.wait():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-r.quit:
		return ErrClosed
	}
}
