package election

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// ErrNotLeader is returned by Confirm when this candidate cannot prove,
// right now, that it leads.
var ErrNotLeader = errors.New("election: not confirmed as leader")

// confirmer is what StartSpeaking hands the listener: Confirm under
// at-most-one, nothing under at-least-one, which bets on the session instead.
// Its first call answers with proof, the decision's own, if there is one:
// the sync or create it was made from is as good a confirmation as a new one
// sent at the same moment, and the Speaker checks its age all the same.
func (c *Candidate) confirmer(proof Proof) func(context.Context) (int64, time.Time, error) {
	if c.policy != AtMostOne {
		return nil
	}
	var once sync.Once
	return func(ctx context.Context) (int64, time.Time, error) {
		first := false
		once.Do(func() { first = !proof.Sent.IsZero() })
		if first {
			if st := c.State(); st != StateActive {
				return 0, time.Time{}, fmt.Errorf("%w: state %v", ErrNotLeader, st)
			}
			return proof.Epoch, proof.Sent, nil
		}
		return c.Confirm(ctx)
	}
}

// Confirm asks ZooKeeper, with a sync and a read, whether we still lead: our
// znode must exist and be owned by the session we hold now. It returns the
// znode's czxid, the leader's epoch, which grows with every new leader
// znode, and when the sync was sent.
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
func (c *Candidate) Confirm(ctx context.Context) (epoch int64, sent time.Time, err error) {
	c.mu.Lock()
	state, node := c.status.State, c.status.Node
	c.mu.Unlock()
	if state != StateActive || node == "" {
		return 0, time.Time{}, fmt.Errorf("%w: state %v", ErrNotLeader, state)
	}
	return c.stillOurs(ctx, node)
}

// stillOurs asks ZooKeeper, with a sync and a read, whether node exists and
// is owned by the session we hold now: the question of Confirm, and of a
// decision to lead that its own requests did not prove (proveLead). It
// returns node's czxid and when the sync was sent.
func (c *Candidate) stillOurs(ctx context.Context, node string) (epoch int64, sent time.Time, err error) {
	session := c.session.SessionID()
	// A server answers reads from its own copy. A follower cut off from the
	// ZooKeeper leader still serves it for a while, after the leader may
	// have expired our session: a sync first makes it catch up with the
	// leader, or, cut off, fail to within our deadline. The exists goes out
	// right behind the sync, and the server answers it after: one round trip.
	// A standalone server has no leader to catch up with: it gets the
	// exists alone (recoverable.ServerMode, behind zksession).
	st, sent, err := c.session.SyncExists(ctx, node)
	switch {
	case err != nil:
		return 0, sent, fmt.Errorf("%w: %w", ErrNotLeader, err)
	case !st.Exists:
		return 0, sent, fmt.Errorf("%w: %s is gone", ErrNotLeader, node)
	case session == 0 || st.EphemeralOwner != session || c.session.SessionID() != session:
		return 0, sent, fmt.Errorf("%w: %s belongs to session 0x%x, not ours (0x%x)", ErrNotLeader, node, st.EphemeralOwner, session)
	}
	return st.Czxid, sent, nil
}
