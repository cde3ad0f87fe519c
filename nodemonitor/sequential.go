package nodemonitor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/election"
	"zkspeaker/recoverable"
)

// sequential is the recipe of the ZooKeeper documentation that the articles
// port: a line of sequential znodes, in which its Rule says who blocks whom.
type sequential struct {
	zk      *recoverable.RecoverableZookeeper
	path    string
	data    []byte
	acl     []zk.ACL
	watch   WatchMode
	rule    Rule
	log     *slog.Logger
	node    string // our znode, "" until we join
	session int64  // the session that owns node; 0 while unknown
	epoch   int64  // node's czxid, 0 while unknown
	name    string // our protected name, the same for every create
	unsure  bool   // a create failed: it may have made a node all the same

}

// Check implements election.Recipe: join, list the candidates, and lead or watch.
func (s *sequential) Check(ctx context.Context) (election.Decision, error) {
	for {
		if again, err := s.ensureJoined(ctx); err != nil || again {
			if err != nil {
				return election.Decision{}, err
			}
			continue
		}
		children, wake, proof, err := s.list(ctx)
		if errors.Is(err, zk.ErrNoNode) {
			// The whole election path was deleted (zkCli deleteall), and our
			// znode with it: join again, which creates the path anew.
			s.log.Warn("the election path is gone; joining again", "path", s.path)
			s.node = ""
			continue
		}
		if err != nil {
			return election.Decision{}, err
		}
		line := Line(children)
		ours := slices.IndexFunc(line, func(c Candidate) bool { return c.Name == path.Base(s.node) })
		if ours < 0 {
			// Someone deleted our znode (an operator, with zkCli). Whatever
			// we were, we are not a candidate now: join at the back.
			s.log.Warn("our znode is gone; rejoining at the back of the line", "znode", s.node)
			s.node = ""
			continue
		}
		if s.session != s.zk.SessionID() {
			continue // the session changed under the listing: not ours to trust
		}
		lead, watch := s.rule.Stand(line, ours)
		if s.watch == WatchChildren {
			return election.Decision{Leader: lead, Node: s.node, Wake: wake}, nil
		}
		if lead {
			// The leader watches its own znode, so that a delete by hand
			// stops it at once; the engine sets that watch after the first
			// line is on its way.
			return election.Decision{Leader: true, Node: s.node, Watch: s.watchOwn, Proof: proof}, nil
		}
		if watch == "" || watch == line[ours].Name {
			return election.Decision{}, fmt.Errorf("%w: rule %T leads not, and names %q to watch", ErrInvalid, s.rule, watch)
		}
		if d, again, err := s.follow(ctx, watch, ours); err != nil || !again {
			return d, err
		}
	}
}

// ensureJoined makes sure we stand with a znode of the current session: it
// settles whose an uncertain create's znode is, forgets one of an older
// session, and joins when we have none. It reports again when the check
// must start over (a znode made across a change of session).
func (s *sequential) ensureJoined(ctx context.Context) (again bool, err error) {
	if err := s.settleOwner(ctx); err != nil {
		return false, err
	}
	if s.node != "" && s.session != s.zk.SessionID() {
		// Curator learned this the hard way: a znode of an older session is
		// gone or about to go. Never count it as ours.
		s.node = ""
	}
	if s.node != "" {
		return false, nil
	}
	if err := s.join(ctx); err != nil {
		return false, err
	}
	return s.session == 0, nil // made across a change of session: settle whose it is
}

// list reads the line of candidates: with a watch on it, as the first
// article does (WatchChildren), or behind a sync that, when it succeeds,
// is also the first line's proof that we lead.
func (s *sequential) list(ctx context.Context) ([]string, <-chan zk.Event, election.Proof, error) {
	if s.watch == WatchChildren {
		children, wake, err := s.zk.ChildrenW(ctx, s.path)
		return children, wake, election.Proof{}, err
	}
	// A sync, and the listing right behind it: one round trip. If the sync
	// succeeds, our session was alive at the ZooKeeper leader after sent,
	// and our unique name in the listing, made on this very session, says
	// we still stand: together, the first line's confirmation.
	l, err := s.zk.SyncChildren(ctx, s.path)
	var proof election.Proof
	if l.SyncErr == nil && s.epoch != 0 {
		proof = election.Proof{Epoch: s.epoch, Sent: l.Sent}
	}
	return l.Children, nil, proof, err
}

// follow watches the one candidate that our rule says blocks us, from our
// place in line. It reports again when that one vanished before the watch
// was set: look again now.
func (s *sequential) follow(ctx context.Context, blocker string, place int) (d election.Decision, again bool, err error) {
	target := s.path + "/" + blocker
	// A get, not an exists: an exists on a missing node would leave a watch
	// for its creation, and a sequential name never comes back, so that
	// watch would stay until the session ends (Curator's LeaderLatch makes
	// the same choice). A get sets no watch then.
	_, _, wake, err := s.zk.GetW(ctx, target)
	if errors.Is(err, zk.ErrNoNode) {
		return election.Decision{}, true, nil
	}
	if err != nil {
		return election.Decision{}, false, err
	}
	s.log.Info("waiting in line", "znode", s.node, "watching", target, "position", place)
	// Few wake when that znode goes (only we, under Exclusive), and often
	// we lead then: our listener may get ready while we ask
	// (election.Decision.Prepare).
	return election.Decision{Node: s.node, Wake: wake, Prepare: true}, false, nil
}

// watchOwn sets the leader's watch on its own znode. A get, as for the
// predecessor; ErrNoNode means our znode is gone, and the engine checks
// again. Not a child watch, though ZooKeeper would fire that one after the
// successor's on our graceful exit: the servers' wchc lists data watches
// only, and `speaker status` could no longer show whom the leader watches.
func (s *sequential) watchOwn(ctx context.Context) (<-chan zk.Event, error) {
	_, _, wake, err := s.zk.GetW(ctx, s.node)
	return wake, err
}

// join makes sure the election znode exists and creates our candidate.
func (s *sequential) join(ctx context.Context) error {
	if err := s.zk.EnsurePath(ctx, s.path, s.acl); err != nil {
		return err
	}
	if s.name == "" {
		name, err := recoverable.NewProtectedName(s.rule.Prefix())
		if err != nil {
			return err
		}
		s.name = name
	}
	if s.unsure {
		// The last create gave up without learning whether the server made
		// the node (a long outage, or the Check's deadline). If it did, and
		// our session lives, that node is ours: take it, rather than stand
		// twice in the line.
		found, err := s.findUnsure(ctx)
		if err != nil {
			return fmt.Errorf("nodemonitor: join %s: %w", s.path, err)
		}
		if found != "" {
			s.node, s.session, s.epoch = found, s.zk.SessionID(), 0
			s.readEpoch(ctx)
			s.log.Info("joined the election (found the znode of a create that had failed)", "znode", found, "session", fmt.Sprintf("0x%x", s.session))
			return nil
		}
	}
	session := s.zk.SessionID()
	node, err := s.zk.CreateProtectedEphemeralSequential(ctx, s.path, s.name, s.data, s.acl)
	if err != nil {
		// A refusal by the ACL is an answer: the server made nothing. Any
		// other failure may have lost the answer on its way back.
		s.unsure = !errors.Is(err, zk.ErrNoAuth)
		return fmt.Errorf("nodemonitor: join %s: %w", s.path, err)
	}
	s.node, s.session, s.epoch = node, session, 0
	if s.zk.SessionID() != session {
		// The session changed under the create. go-zookeeper sends a request
		// that waited across an expiry on the new session, so the node may
		// be the old session's, about to vanish, or the new one's, which we
		// must keep: a second join would leave it ahead of us in the line,
		// leading for nobody. Check asks ZooKeeper (settleOwner).
		s.session = 0
		return nil
	}
	s.log.Info("joined the election", "znode", node, "session", fmt.Sprintf("0x%x", s.session))
	s.readEpoch(ctx)
	return nil
}

// readEpoch learns our znode's czxid, the epoch our lines will carry, while
// we wait in line: later, the failover need not ask for it. Without it the
// first line confirms itself with a round trip of its own.
func (s *sequential) readEpoch(ctx context.Context) {
	ok, st, err := s.zk.ExistsOnce(ctx, s.node)
	if err == nil && ok && st.EphemeralOwner == s.session {
		s.epoch = st.Czxid
	}
}

// settleOwner learns which session owns our znode when join could not tell
// (session 0); otherwise it does nothing. Check then keeps the znode if that
// is the session we hold, and forgets it if not.
func (s *sequential) settleOwner(ctx context.Context) error {
	if s.node == "" || s.session != 0 {
		return nil
	}
	ok, st, err := s.zk.Exists(ctx, s.node)
	if err != nil {
		return fmt.Errorf("nodemonitor: owner of %s: %w", s.node, err)
	}
	if !ok {
		s.node = ""
		return nil
	}
	s.session, s.epoch = st.EphemeralOwner, st.Czxid
	if s.session == s.zk.SessionID() {
		s.log.Info("joined the election (the znode was made on the new session)", "znode", s.node, "session", fmt.Sprintf("0x%x", s.session))
	}
	return nil
}

// findUnsure looks for the node that a create we gave up on may have made
// on our session, and returns it, or "". Either way we are sure again.
func (s *sequential) findUnsure(ctx context.Context) (string, error) {
	found, err := s.zk.FindOwn(ctx, s.path, s.name)
	if errors.Is(err, zk.ErrNoNode) {
		found, err = "", nil // the path went, and any node of ours with it
	}
	if err == nil {
		s.unsure = false
	}
	return found, err
}

// Leave implements election.Recipe: delete our znode if this session still owns it.
func (s *sequential) Leave(ctx context.Context) error {
	if err := s.settleOwner(ctx); err != nil {
		return err
	}
	if s.node == "" && s.unsure {
		// Close ended a Check while its create was on the way: the server
		// may have made our node all the same, and it would stand in line
		// for nobody until the session ends. Our requests are served in
		// order, so FindOwn, sent after that create, sees it if it exists,
		// once the create has been sent (Settle).
		if err := s.zk.Settle(ctx); err != nil {
			return fmt.Errorf("nodemonitor: leave %s: %w", s.path, err)
		}
		found, err := s.findUnsure(ctx)
		if err != nil {
			return fmt.Errorf("nodemonitor: leave %s: %w", s.path, err)
		}
		s.node, s.session = found, s.zk.SessionID()
	}
	if s.node == "" || s.session != s.zk.SessionID() {
		return nil
	}
	// DeleteOwn, not Delete: once the client holds another session, our
	// znode went with the old one, and its path is no longer ours.
	err := s.zk.DeleteOwn(ctx, s.node, -1, s.session)
	if errors.Is(err, zk.ErrNoNode) {
		err = nil
	}
	if err == nil {
		s.log.Info("left the election", "znode", s.node)
		s.node = ""
	}
	return err
}
