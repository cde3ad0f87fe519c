// Package znodemonitor holds the articles' ZNodeMonitor: single-file leader
// election. Every candidate tries to create the same ephemeral znode; the
// one that succeeds leads, and the others watch it and try again when it is
// deleted.
//
// It is simpler than the sequential recipe, and it pays for it: each
// deletion wakes every waiting candidate (the herd), and the next leader is
// whoever wins the race, not whoever waited longest. The session handling
// (paused, expired, reconnected) is nodemonitor's Monitor, shared by both.
package znodemonitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/go-zookeeper/zk"

	"zkspeaker/nodemonitor"
	"zkspeaker/recoverable"
)

// DefaultPath is the znode the candidates race to create.
const DefaultPath = "/speaker"

// Listener is the articles' NodeMonitorListener, which the ZNodeMonitor
// calls too.
type Listener = nodemonitor.Listener

// singleFile is the recipe: create the znode, or watch whoever did.
type singleFile struct {
	zk   *recoverable.RecoverableZookeeper
	path string
	data []byte
	acl  []zk.ACL
	log  *slog.Logger
	held int64 // the session that created the znode, 0 when we hold none

	parentReady bool // the parents exist, as far as we know
}

// New starts a candidate of the single-file election for the znode
// DefaultPath (or nodemonitor.WithPath), on the session of rz, that tells
// listener when to speak. The options are nodemonitor's; WithWatch does not
// apply here.
func New(rz *recoverable.RecoverableZookeeper, listener Listener, opts ...nodemonitor.Option) (*nodemonitor.Monitor, error) {
	cfg, err := nodemonitor.NewConfig(append([]nodemonitor.Option{nodemonitor.WithPath(DefaultPath)}, opts...)...)
	if err != nil {
		return nil, err
	}
	r := &singleFile{zk: rz, path: cfg.Path, data: []byte(listener.ProcessName()), acl: cfg.ACL, log: cfg.Logger}
	return nodemonitor.Run(rz, listener, r, cfg), nil
}

// Check implements nodemonitor.Recipe: try to create the znode; on
// node-exists, watch it.
func (s *singleFile) Check(ctx context.Context) (nodemonitor.Decision, error) {
	for {
		session := s.zk.SessionID()
		if s.held != 0 && s.held != session {
			s.held = 0 // it died with the old session
		}
		if s.held == 0 {
			if !s.parentReady {
				if err := s.ensureParent(ctx); err != nil {
					return nodemonitor.Decision{}, err
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
				return nodemonitor.Decision{}, fmt.Errorf("znodemonitor: create %s: %w", s.path, nodemonitor.ErrSessionChanged)
			case !errors.Is(err, zk.ErrNodeExists):
				return nodemonitor.Decision{}, err
			}
		}
		// Leader or not, watch the znode: the leader to notice a delete by
		// hand, the others to race again when it goes.
		ok, st, wake, err := s.zk.ExistsW(ctx, s.path)
		if err != nil {
			return nodemonitor.Decision{}, err
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
		}
		return nodemonitor.Decision{Leader: s.held != 0, Node: s.path, Wake: wake}, nil
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

// Leave implements nodemonitor.Recipe: delete the znode if we hold it on
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
