package group

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/broadcast"
	"zkspeaker/recoverable"
)

// State is where a Member stands in its group.
type State uint32

const (
	// StateMember means the member's ephemeral znode is in the group, owned
	// by the session the client holds.
	StateMember State = iota
	// StateDisconnected means the connection dropped. The znode stays, and
	// with it the membership, as long as the session lives: a reconnect
	// within the session timeout changes nothing for the group's readers.
	StateDisconnected
	// StateExpired means the session ended and ZooKeeper removed the
	// znode. The Member joins again as soon as the client has a new
	// session.
	StateExpired
	// StateLeft means the Member left (Leave) or gave up (see Err).
	StateLeft
)

// String returns the state's name as the logs print it.
func (s State) String() string {
	switch s {
	case StateMember:
		return "member"
	case StateDisconnected:
		return "disconnected"
	case StateExpired:
		return "expired"
	case StateLeft:
		return "left"
	default:
		return "unknown"
	}
}

// Status is a Member at one moment: what Observe delivers.
type Status struct {
	State State
	// Session is the session that owns the znode (StateMember), or owned it.
	Session int64
	// Czxid is the zxid of the znode's create: a reconnect keeps it, a
	// rejoin changes it.
	Czxid int64
	// Rejoined is true when the znode was created again: after an expiry,
	// or after somebody deleted it.
	Rejoined bool
}

// Member is one member of a group: the chapter's JoinGroup, which stays in
// the group until the process ends. Unlike the chapter's program, it stays
// through faults: see Join.
type Member struct {
	g        *Group
	name     string
	path     string
	statuses *broadcast.Broadcaster[Status]

	cancel context.CancelFunc
	done   chan struct{}
	err    error // why keep ended on its own; written before done closes

	leaveOnce sync.Once
	leaveErr  error

	past map[int64]bool // sessions we held before; only keep's goroutine touches it after Join
}

// Join adds the member called name to the group: an ephemeral znode, which
// ZooKeeper deletes when our session ends. It returns once the znode is
// there, or with ErrNoGroup, with ErrMemberTaken when another live session
// holds the name, or when ctx is done; it rides out lost connections and
// expired sessions until then. ctx bounds the join only; the Member then
// keeps its place until Leave:
//
//   - through a dropped connection that comes back within the session
//     timeout, it does nothing: the znode and the session live on;
//   - after an expiry, ZooKeeper has deleted the znode, and the Member
//     creates it again on the client's new session;
//   - a create whose reply was lost is retried; the retry meets NodeExists,
//     and the znode counts as ours when its owner (Stat.EphemeralOwner) is
//     our session, so no second member and no false "taken".
//
// A member's name is fixed, so two processes that join under one name
// cannot both be members: the second gets ErrMemberTaken. A Join that the
// group's ACL refuses (made with other credentials) fails at once with an
// error that is zk.ErrNoAuth.
func (g *Group) Join(ctx context.Context, name string) (*Member, error) {
	if err := ValidateMember(name); err != nil {
		return nil, err
	}
	m := &Member{g: g, name: name, path: g.member(name), done: make(chan struct{}), past: map[int64]bool{}}
	st, watch, err := m.persist(ctx, true)
	if err != nil {
		return nil, err
	}
	m.statuses = broadcast.New(st, func(s Status) bool { return s.State == StateLeft })
	keepCtx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go m.keep(keepCtx, st, watch)
	return m, nil
}

// Name returns the member's name.
func (m *Member) Name() string { return m.name }

// Path returns the member's znode path.
func (m *Member) Path() string { return m.path }

// Status returns the Member's status now.
func (m *Member) Status() Status { return m.statuses.Current() }

// Observe returns a channel that carries the Member's status now, then every
// change, in order, none dropped. It closes after a StateLeft status, or
// when ctx is done.
func (m *Member) Observe(ctx context.Context) <-chan Status { return m.statuses.Observe(ctx) }

// Done is closed when the Member no longer keeps its place: after Leave, or
// when it gave up on its own (Err says why).
func (m *Member) Done() <-chan struct{} { return m.done }

// Err returns why the Member gave up, once Done is closed: ErrNoGroup when
// the group was deleted under it, ErrMemberTaken when another session took
// its name while it was away, recoverable.ErrClosed when its client was
// closed. It is nil after Leave, and while Done is open.
func (m *Member) Err() error {
	select {
	case <-m.done:
		return m.err
	default:
		return nil
	}
}

// Leave takes the member out of the group at once, by deleting its znode,
// rather than when the session ends: the chapter's members leave only when
// their session expires, seconds later. It stops the Member's goroutine
// first, so that nothing joins again after the delete, and deletes the
// znode only if our session owns it. Closing the client afterwards is the
// caller's part. Leave is safe to call more than once; later calls return
// the first one's result.
func (m *Member) Leave(ctx context.Context) error {
	m.leaveOnce.Do(func() {
		m.cancel()
		<-m.done
		m.leaveErr = m.remove(ctx)
		m.statuses.Close(Status{State: StateLeft}, time.Second)
	})
	return m.leaveErr
}

// remove deletes the member's znode if it is ours. It waits first for any
// create that keep gave up on when Leave stopped it (recoverable.Settle):
// our session's requests are served in order, so the exists that follows
// sees that create's znode, which would otherwise appear after Leave
// returned and stay, a member nobody wants, for as long as the session
// lives. The delete is DeleteOwn: a member znode is always at version 0,
// so only the session tells ours from another process's of the same name,
// and a delete retried on a new session would remove theirs.
func (m *Member) remove(ctx context.Context) error {
	rz := m.g.rz
	if err := rz.Settle(ctx); err != nil {
		if errors.Is(err, recoverable.ErrClosed) {
			return nil // closing the session removed it
		}
		return fmt.Errorf("group: leave %s: %w", m.path, err)
	}
	session := rz.SessionID()
	ok, st, err := rz.Exists(ctx, m.path)
	if errors.Is(err, recoverable.ErrClosed) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("group: leave %s: %w", m.path, err)
	}
	if !ok || st.EphemeralOwner != session || session != rz.SessionID() {
		return nil // not ours (any more): nothing of ours to delete
	}
	if err := rz.DeleteOwn(ctx, m.path, st.Version, session); err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("group: leave %s: %w", m.path, err)
	}
	return nil
}
