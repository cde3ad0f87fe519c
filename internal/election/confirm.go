package election

import (
	"context"
	"errors"
	"fmt"
)

// ErrNotLeader is returned by Confirm when this candidate cannot prove,
// right now, that it leads.
var ErrNotLeader = errors.New("election: not confirmed as leader")

// confirmer is what StartSpeaking hands the listener: Confirm under
// at-most-one, nothing under at-least-one, which bets on the session instead.
func (c *Candidate) confirmer() func(context.Context) (int64, error) {
	if c.policy == AtMostOne {
		return c.Confirm
	}
	return nil
}

// Confirm asks ZooKeeper, with a sync and a read, whether we still lead: our
// znode must exist and be owned by the session we hold now. It returns the
// znode's czxid, the leader's epoch, which grows with every new leader
// znode.
//
// Events alone cannot protect a leader that the OS froze (SIGSTOP, a long
// GC pause, a closed laptop lid): when it wakes, its ticker fires before any
// event can tell it that its session expired and someone else leads. Under
// at-most-one the speaker calls Confirm before every line, with a deadline
// shorter than its interval, and stays silent when it fails.
//
// What an answer proves depends on how leadership is lost. Against expiry,
// a confirm sent at t protects until t + S: the servers expire a session no
// sooner than S after they last heard from it, so the caller must measure
// the answer's age from when it sent the request. Against a delete (ours on
// shutdown, an operator's) nothing protects: the successor may write while
// our "yes" is still on its way back, for as long as the confirm deadline
// plus that delay. Only fencing at the storage closes that window (see
// speaker.WithFence; TestDeleteOvertakesAConfirm shows it).
func (c *Candidate) Confirm(ctx context.Context) (epoch int64, err error) {
	c.mu.Lock()
	state, node := c.status.State, c.status.Node
	c.mu.Unlock()
	if state != StateActive || node == "" {
		return 0, fmt.Errorf("%w: state %v", ErrNotLeader, state)
	}
	session := c.zk.SessionID()
	// A server answers reads from its own copy. A follower cut off from the
	// ZooKeeper leader still serves it for a while, after the leader may
	// have expired our session: a sync first makes it catch up with the
	// leader, or, cut off, fail to within our deadline.
	if err := c.zk.Sync(ctx, node); err != nil {
		return 0, fmt.Errorf("%w: %w", ErrNotLeader, err)
	}
	ok, st, err := c.zk.ExistsOnce(ctx, node)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%w: %w", ErrNotLeader, err)
	case !ok:
		return 0, fmt.Errorf("%w: %s is gone", ErrNotLeader, node)
	case session == 0 || st.EphemeralOwner != session || c.zk.SessionID() != session:
		return 0, fmt.Errorf("%w: %s belongs to session 0x%x, not ours (0x%x)", ErrNotLeader, node, st.EphemeralOwner, session)
	}
	return st.Czxid, nil
}
