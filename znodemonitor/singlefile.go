package znodemonitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/election"
	"zkspeaker/recoverable"
)

// singleFile is the recipe: create the znode, or watch whoever did.
type singleFile struct {
	zk   *recoverable.RecoverableZookeeper
	path string
	data []byte
	acl  []zk.ACL
	log  *slog.Logger
	held int64 // the session that created the znode, 0 when we hold none
	// tagged is the session that carries our name tag (see NameTag).
	tagged int64
	// unsure says that a create of ours ended without an answer (the
	// Check's context ended while it was on the way): the server may have
	// made the znode on our session all the same, even later than a
	// create that was answered after it (see recoverable.Settle). Only
	// Leave, which settles it, clears it.
	unsure bool

	parentReady bool // the parents exist, as far as we know
}

// Check implements election.Recipe: try to create the znode; on
// node-exists, watch it. The create and the watch go out together: one
// round trip decides the race, proves a winner's session alive (a create is
// a write the ZooKeeper leader accepted), and reads the epoch.
func (s *singleFile) Check(ctx context.Context) (election.Decision, error) {
	for {
		session := s.zk.SessionID()
		if s.held != 0 && s.held != session {
			s.held = 0 // it died with the old session
		}
		if s.held == 0 && !s.parentReady {
			if err := s.ensureParent(ctx); err != nil {
				return election.Decision{}, err
			}
			s.parentReady = true // not again at every race: the herd is costly enough
		}
		var r raced
		if s.held == 0 {
			var err error
			if r, err = s.race(ctx, session); err != nil {
				return election.Decision{}, err
			}
			if r.again {
				continue
			}
		} else {
			// Leader or not, watch the znode: the leader to notice a delete
			// by hand, the others to race again when it goes.
			r.st, r.wake, r.err = s.watch(ctx)
		}
		if r.err != nil {
			return election.Decision{}, r.err
		}
		if r.st == nil {
			if s.held != 0 {
				s.log.Warn("our znode is gone; trying again", "znode", s.path)
				s.held = 0
			}
			continue // the holder left between our create and our watch
		}
		if s.held != 0 && r.st.EphemeralOwner != s.held {
			// Deleted and re-created by someone else before we looked.
			s.held, r.proof = 0, election.Proof{}
		}
		if s.held == 0 {
			s.log.Info("waiting: another candidate holds the leader znode", "znode", s.path, "owner", fmt.Sprintf("0x%x", r.st.EphemeralOwner))
			s.tag(ctx) // after our watch is set: a change meanwhile waits in wake, one read late, once per session
		}
		return election.Decision{Leader: s.held != 0, Node: s.path, Wake: r.wake, Proof: r.proof}, nil
	}
}

// raced is what one race for the leader znode saw: who holds it (nil:
// nobody), the watch on it, our proof when we won it, the watch's error,
// and whether the check must start over.
type raced struct {
	st    *zk.Stat
	wake  <-chan zk.Event
	proof election.Proof
	err   error
	again bool
}

// race tries to create the leader znode on session, and watches it either
// way. Its error is a create's that no retry cures.
func (s *singleFile) race(ctx context.Context, session int64) (raced, error) {
	var r raced
	race, err := s.zk.CreateEphemeralExistsW(ctx, s.path, s.data, s.acl)
	st, sent, createErr := race.Stat, race.Sent, race.CreateErr
	r.st, r.wake, r.err = st, race.Wake, err
	if createErr != nil && !errors.Is(createErr, zk.ErrNodeExists) && !errors.Is(createErr, zk.ErrNoNode) && !errors.Is(createErr, zk.ErrNoAuth) {
		s.unsure = true // no answer: the create may yet make the znode
	}
	switch {
	case errors.Is(createErr, zk.ErrNoNode):
		// An operator deleted the parent: create it again.
		s.parentReady, r.again = false, true
	case recoverable.IsRetryable(createErr):
		// The reply was lost: the znode may be ours. CreateEphemeral
		// retries and settles it by the znode's owner.
		if _, createErr = s.zk.CreateEphemeral(ctx, s.path, s.data, s.acl); createErr != nil && !errors.Is(createErr, zk.ErrNodeExists) {
			return r, createErr
		}
		if createErr == nil && s.zk.SessionID() == session {
			s.held = session
			s.log.Info("created the leader znode", "znode", s.path, "session", fmt.Sprintf("0x%x", session))
		}
		r.st, r.wake, r.err = s.watch(ctx)
	case createErr == nil && s.zk.SessionID() == session:
		s.held = session
		s.log.Info("created the leader znode", "znode", s.path, "session", fmt.Sprintf("0x%x", session))
		if st != nil && st.EphemeralOwner == session {
			r.proof = election.Proof{Epoch: st.Czxid, Sent: sent}
		}
	case createErr == nil:
		return r, fmt.Errorf("znodemonitor: create %s: %w", s.path, election.ErrSessionChanged)
	case errors.Is(createErr, zk.ErrNodeExists) && err == nil && st != nil && st.EphemeralOwner == session:
		// Ours already: an earlier create whose answer we never got (the
		// check's deadline passed) made it on this session.
		s.held = session
		s.log.Info("created the leader znode (found it from a create that had failed)", "znode", s.path, "session", fmt.Sprintf("0x%x", session))
	case !errors.Is(createErr, zk.ErrNodeExists):
		return r, createErr
	}
	return r, nil
}

// watch sets a watch on the znode and says who holds it: nil when nobody.
func (s *singleFile) watch(ctx context.Context) (*zk.Stat, <-chan zk.Event, error) {
	ok, st, wake, err := s.zk.ExistsW(ctx, s.path)
	if err != nil || !ok {
		return nil, wake, err
	}
	return st, wake, nil
}

// ensureParent creates the znode's parents, if it has any.
func (s *singleFile) ensureParent(ctx context.Context) error {
	for i := len(s.path) - 1; i > 0; i-- {
		if s.path[i] == '/' {
			return s.zk.EnsurePath(ctx, s.path[:i], s.acl)
		}
	}
	return nil
}

// Leave implements election.Recipe: delete the znode if we hold it on
// this session, or may have made it with a create whose answer we gave up
// on: left standing, it would keep everyone waiting for a leader that has
// gone, until our session ends.
func (s *singleFile) Leave(ctx context.Context) error {
	if (s.held == 0 || s.held != s.zk.SessionID()) && !s.unsure {
		return nil
	}
	// The owner decides: our session's requests are served in order, so
	// this exists sees a create we sent before it, once every create we
	// gave up on has been sent (Settle). Delete only the version we saw as
	// ours: if it was replaced, it is not ours.
	if s.unsure {
		if err := s.zk.Settle(ctx); err != nil {
			return err
		}
	}
	session := s.zk.SessionID()
	ok, st, err := s.zk.Exists(ctx, s.path)
	if err != nil || !ok || st.EphemeralOwner != session {
		if err == nil {
			s.held, s.unsure = 0, false
		}
		return err
	}
	if err := s.zk.DeleteOwn(ctx, s.path, st.Version, session); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	s.held, s.unsure = 0, false
	s.log.Info("released the leader znode", "znode", s.path)
	return nil
}
