package lock

import (
	"context"
	"sync"

	"zkspeaker/nodemonitor"
)

// A lock and a semaphore on one path would both hold: their contenders
// queue in different folders. Lock checks for a semaphore's record before
// it joins the line, and again once its znode stands: of our create and a
// semaphore's record, whichever ZooKeeper orders second sees the other
// (the semaphore checks for our znodes after its write, recordLeases). The
// second check runs while we wait in line, so that a handover does not
// wait for it: a waiter's check is long done when its turn comes, and the
// failover stays one write, one notification and one round trip.

// semaphoreCheck is the outcome of the check after each of our creates.
type semaphoreCheck struct {
	mu      sync.Mutex
	node    string        // the znode the last check was made after
	err     error         // its outcome: nil, or a *LeasesError
	changed chan struct{} // closed, and replaced, at each outcome
}

// checkEachCreate checks for a semaphore's record after each znode that
// mon creates for us (a new session makes a new one), until ctx is done.
// It returns the outcomes and a channel closed once its goroutine ended.
func (l *Lock) checkEachCreate(ctx context.Context, mon *nodemonitor.Monitor) (*semaphoreCheck, <-chan struct{}) {
	c := &semaphoreCheck{changed: make(chan struct{})}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		last := ""
		for st := range mon.Observe(ctx) {
			if st.Node == "" || st.Node == last {
				continue
			}
			last = st.Node
			err := l.refuseSemaphore(ctx)
			if ctx.Err() != nil {
				return
			}
			c.mu.Lock()
			c.node, c.err = last, err
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
		}
	}()
	return c, ended
}

// await returns the outcome of the check made after node was created,
// waiting for it if it is still under way.
func (c *semaphoreCheck) await(ctx context.Context, node string) error {
	for {
		c.mu.Lock()
		node0, err, changed := c.node, c.err, c.changed
		c.mu.Unlock()
		if node0 == node {
			return err
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
