package group

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/reason"
	"zkspeaker/recoverable"
)

// claim makes the member's ephemeral znode on the session held now, or
// finds that it is ours already, and sets a watch on it. The name is
// fixed, so a retried create can never make a second member; what it can
// do is meet NodeExists, and then the owner decides:
//
//   - our session: the reply of an earlier attempt was lost; it is ours
//     (recoverable.CreateEphemeral makes this check itself);
//   - a session we held before: an expired session's znode, which the
//     server is about to remove (DESIGN.md: re-creating right after an
//     expiry can hit NodeExists): wait for it to go, then create;
//   - any other session: another process holds the name (ErrMemberTaken).
func (m *Member) claim(ctx context.Context) (Status, <-chan zk.Event, error) {
	rz := m.g.rz
	for {
		// Any session this create goes out on may end up owning the znode,
		// even if it expires before the reply comes.
		if id := rz.SessionID(); id != 0 {
			m.past[id] = true
		}
		_, err := rz.CreateEphemeral(ctx, m.path, nil, m.g.acl)
		switch {
		case err == nil, errors.Is(err, zk.ErrNodeExists):
		case errors.Is(err, zk.ErrNoNode):
			return Status{}, nil, fmt.Errorf("%w: %s", ErrNoGroup, m.g.path)
		default:
			return Status{}, nil, fmt.Errorf("group: join %s: %w", m.path, err)
		}
		// One read gives the owner, the czxid, and a watch that tells us
		// when the znode goes without our leaving.
		ok, st, watch, err := rz.ExistsW(ctx, m.path)
		if err != nil {
			return Status{}, nil, fmt.Errorf("group: join %s: %w", m.path, err)
		}
		if !ok {
			continue // its holder left in between: create again
		}
		owner := st.EphemeralOwner
		switch {
		case owner != 0 && owner == rz.SessionID():
			return Status{State: StateMember, Session: owner, Czxid: st.Czxid}, watch, nil
		case owner == 0:
			return Status{}, nil, reason.New(ErrMemberTaken, "", "%s is a persistent znode, not a member", m.path)
		case m.past[owner]:
			m.g.log.Info("our expired session's member znode is still there; waiting for ZooKeeper to remove it",
				"member", m.path, "old_session", fmt.Sprintf("0x%x", owner))
			select {
			case <-watch:
			case <-ctx.Done():
				return Status{}, nil, ctx.Err()
			}
		default:
			return Status{}, nil, reason.New(ErrMemberTaken, "", "%s is already a member (session 0x%x)", m.name, owner)
		}
	}
}

// keep is the Member's goroutine: it follows the session and the znode's
// watch, and joins again when the znode is gone while we still want it. It
// ends when ctx is cancelled (Leave) or when it cannot stay (m.err).
func (m *Member) keep(ctx context.Context, held Status, watch <-chan zk.Event) {
	defer close(m.done)
	// Ending on its own (m.err), keep must end its observer too.
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	log := m.g.log.With("member", m.path)
	sessions := m.g.rz.Observe(ctx)
	for {
		var rejoin bool
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sessions:
			if !ok {
				if ctx.Err() == nil {
					m.fail(recoverable.ErrClosed)
				}
				return
			}
			rejoin = m.sessionChanged(log, ev, &held)
		case ev := <-watch:
			watch = nil
			switch ev.Type {
			case zk.EventNodeDeleted:
				log.Warn("our member znode was deleted, not by us; joining again")
				rejoin = true
			case zk.EventNotWatching:
				// The session expired or the client closed: the session
				// events say which, and what next.
			default:
				rejoin = true // any other change: look again, and watch again
			}
		}
		if rejoin {
			st, w, err := m.persist(ctx, false)
			if err != nil {
				if ctx.Err() == nil {
					m.fail(err)
				}
				return
			}
			if st.Czxid != held.Czxid {
				st.Rejoined = true
				log.Info("joined the group again", "session", fmt.Sprintf("0x%x", st.Session))
			}
			held, watch = st, w
			m.statuses.Publish(held)
		}
	}
}

// sessionChanged follows our session's events for the member held: a
// disconnect, a reconnect, an expiry. It reports whether to join again: on
// a new session, as the chapter's member cannot.
func (m *Member) sessionChanged(log *slog.Logger, ev recoverable.SessionEvent, held *Status) (rejoin bool) {
	if ev.State != recoverable.StateConnected && ev.SessionID != held.Session {
		// About a session we no longer hold: a rejoin that outlived it
		// left its events queued behind it.
		return false
	}
	switch ev.State {
	case recoverable.StateDisconnected:
		if held.State == StateMember {
			log.Warn("disconnected; still a member for as long as the session lives", "session", fmt.Sprintf("0x%x", held.Session))
			held.State = StateDisconnected
			m.statuses.Publish(*held)
		}
	case recoverable.StateExpired:
		// The chapter's members die here (the Java client cannot reconnect
		// an expired session); go-zookeeper opens a new one, and we come
		// back on it.
		log.Warn("session expired: ZooKeeper removed our member znode; joining again on the next session",
			"session", fmt.Sprintf("0x%x", held.Session))
		m.past[held.Session] = true
		held.State = StateExpired
		m.statuses.Publish(*held)
	case recoverable.StateConnected:
		if ev.SessionID != held.Session {
			m.past[held.Session] = true
			return true
		}
		if held.State == StateDisconnected {
			log.Info("reconnected within the session; still a member", "session", fmt.Sprintf("0x%x", held.Session))
			held.State = StateMember
			m.statuses.Publish(*held)
		}
	}
	return false
}

// persist claims the znode, trying until it succeeds or meets a fault that a
// retry cannot cure: the group is gone, the name is taken, the client is
// closed, the request is one ZooKeeper always refuses (a group that is an
// ephemeral znode), or ctx is done; and, on the first join, the group's ACL refuses
// our credentials (NoAuth), which no retry changes. A member refused later
// keeps trying, as an election candidate does: the ACL may be changed back.
// A session that expires under a create fails it with ErrSessionExpired,
// which recoverable does not retry: here it is retried, on the new session.
func (m *Member) persist(ctx context.Context, first bool) (Status, <-chan zk.Event, error) {
	wait := 100 * time.Millisecond
	for {
		st, watch, err := m.claim(ctx)
		switch {
		case err == nil:
			return st, watch, nil
		case errors.Is(err, ErrNoGroup), errors.Is(err, ErrMemberTaken), errors.Is(err, recoverable.ErrClosed), ctx.Err() != nil,
			recoverable.IsPermanent(err):
			return Status{}, nil, err
		case first && errors.Is(err, zk.ErrNoAuth):
			return Status{}, nil, err
		}
		// A session expired mid-create, the retries ran out while
		// ZooKeeper was away, or (once a member) the ACL was changed
		// under us: try again, for as long as we are wanted.
		m.g.log.Warn("could not join; trying again", "member", m.path, "in", wait, "error", err)
		select {
		case <-ctx.Done():
			return Status{}, nil, ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// fail ends the Member's membership for good, with err for Err. The log
// line records the change of state; reporting err is the caller's, who
// reads Err (zkgroup prints it as its last line), so it is not an error here.
func (m *Member) fail(err error) {
	m.g.log.Info("no longer a member; giving up", "member", m.path, "reason", err)
	m.err = err
	m.statuses.Publish(Status{State: StateLeft})
}
