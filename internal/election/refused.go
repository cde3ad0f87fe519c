package election

import (
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// ErrNotAllowed is why a candidate gave up (Err): ZooKeeper refused it by
// the znodes' ACL before it ever joined. Its credentials are wrong, or it
// has none; trying again cannot help.
var ErrNotAllowed = errors.New("election: not allowed by the znodes' ACL")

// refusedForGood reports whether a failed check will fail the same way
// however often the loop tries again: ZooKeeper answered NoAuth, and we have
// never been in the election. recoverable sends no request before a server
// has taken our credentials (its authenticate), and go-zookeeper gives them
// again before any other request on every later connection, so NoAuth does
// not come and go for a client that has the right ones: a candidate refused
// from the start was started with the wrong user:password, or none. Once we
// have been in the election, an ACL changed under us may be changed back, so
// the loop keeps trying, as it does for any other failure.
func (c *Candidate) refusedForGood(err error) bool {
	return !c.joined && errors.Is(err, zk.ErrNoAuth)
}

// giveUp records why the candidate ends on its own; the loop then returns,
// which closes Done.
func (c *Candidate) giveUp(err error) {
	c.mu.Lock()
	c.err = fmt.Errorf("%w: %w", ErrNotAllowed, err)
	c.mu.Unlock()
	// At debug only: Err hands the reason to the owner, whose one line is
	// what the user reads; an ERROR line before it would say it twice.
	c.log.Debug("gave up joining the election: ZooKeeper refuses us by the znodes' ACL (were they made with another user:password?)", "error", err)
}

// Done is closed once the candidate has ended: after Close, when its owner
// closed the session, or when it gave up on its own, which Err explains. A
// program that runs a candidate until it is told to stop also waits on
// Done, as on etcd's Session.Done.
func (c *Candidate) Done() <-chan struct{} { return c.done }

// Err returns why the candidate gave up on its own (ErrNotAllowed), once
// Done is closed. It is nil while the candidate runs, and when Close or the
// session's close ended it before it gave up.
func (c *Candidate) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}
