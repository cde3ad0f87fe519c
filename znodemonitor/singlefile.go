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

	parentReady bool // the parents exist, as far as we know
}

// Check implements election.Recipe: try to create the znode; on
// node-exists, watch it.
func (s *singleFile) Check(ctx context.Context) (election.Decision, error) {
	for {
		session := s.zk.SessionID()
		if s.held != 0 && s.held != session {
			s.held = 0 // it died with the old session
		}
		if s.held == 0 {
			if !s.parentReady {
				if err := s.ensureParent(ctx); err != nil {
					return election.Decision{}, err
				}
				s.parentReady = true // not again at every race: the herd is costly enough
			}
			// A lost reply is settled inside: the znode is ours only if its
			// EphemeralOwner is this session.
			_, err := s.zk.CreateEphemeral(ctx, s.path, s.data, s.acl)
			switch {
			case errors.Is(err, zk.ErrNoNode):
				// An operator deleted the parent: create it again.
				s.parentReady = false
				continue
			case err == nil && s.zk.SessionID() == session:
				s.held = session
				s.log.Info("created the leader znode", "znode", s.path, "session", fmt.Sprintf("0x%x", session))
			case err == nil:
				return election.Decision{}, fmt.Errorf("znodemonitor: create %s: %w", s.path, election.ErrSessionChanged)
			case !errors.Is(err, zk.ErrNodeExists):
				return election.Decision{}, err
			}
		}
		// Leader or not, watch the znode: the leader to notice a delete by
		// hand, the others to race again when it goes.
		ok, st, wake, err := s.zk.ExistsW(ctx, s.path)
		if err != nil {
			return election.Decision{}, err
		}
		if !ok {
			if s.held != 0 {
				s.log.Warn("our znode is gone; trying again", "znode", s.path)
				s.held = 0
			}
			continue // the holder left between our create and our watch
		}
		if s.held != 0 && st.EphemeralOwner != s.held {
			// Deleted and re-created by someone else before we looked.
			s.held = 0
		}
		if s.held == 0 {
			s.log.Info("waiting: another candidate holds the leader znode", "znode", s.path, "owner", fmt.Sprintf("0x%x", st.EphemeralOwner))
			s.tag(ctx) // after our watch is set: a change meanwhile waits in wake, one read late, once per session
		}
		return election.Decision{Leader: s.held != 0, Node: s.path, Wake: wake}, nil
	}
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
// this session.
func (s *singleFile) Leave(ctx context.Context) error {
	if s.held == 0 || s.held != s.zk.SessionID() {
		return nil
	}
	// Delete only the version we saw as ours: if it was replaced, it is not ours.
	ok, st, err := s.zk.Exists(ctx, s.path)
	if err != nil || !ok || st.EphemeralOwner != s.held {
		return err
	}
	if err := s.zk.Delete(ctx, s.path, st.Version); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return err
	}
	s.held = 0
	s.log.Info("released the leader znode", "znode", s.path)
	return nil
}
