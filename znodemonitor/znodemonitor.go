// Package znodemonitor holds the articles' ZNodeMonitor: single-file leader
// election. Every candidate tries to create the same ephemeral znode; the
// one that succeeds leads, and the others watch it and try again when it is
// deleted.
//
// It is simpler than nodemonitor's sequential recipe, and it pays for it:
// each deletion wakes every waiting candidate (the herd), and the next
// leader is whoever wins the race, not whoever waited longest. The handling
// of the session (paused, expired, reconnected) and the two policies are
// the election engine's, shared with nodemonitor.
package znodemonitor

import (
	"context"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/internal/election/zksession"
	"zkspeaker/recoverable"
)

// Monitor is one candidate of a single-file election. It follows its
// session, races for the znode when it is free, and tells its Listener when
// to speak.
type Monitor struct {
	c *election.Candidate
}

// New starts a candidate of the single-file election for the znode
// DefaultPath (unless WithPath says otherwise), on the session of rz, that
// tells listener when to speak. It returns at once; the candidate races as
// soon as there is a session.
func New(rz *recoverable.RecoverableZookeeper, listener Listener, opts ...Option) (*Monitor, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	r := &singleFile{zk: rz, path: cfg.path, data: []byte(listener.ProcessName()), acl: cfg.acl, log: cfg.logger}
	return &Monitor{c: election.Run(zksession.New(rz), listener, r, election.Config{Policy: cfg.policy, Logger: cfg.logger})}, nil
}

// State returns the Monitor's state now.
func (m *Monitor) State() State { return m.c.State() }

// Node returns the path of the znode we hold or wait for, or "" before the
// first look.
func (m *Monitor) Node() string { return m.c.Node() }

// Notifications returns how many watch notifications woke this candidate:
// under single-file, every waiter is woken by every change of leader.
func (m *Monitor) Notifications() int64 { return m.c.Notifications() }

// Observe returns a channel that carries the Monitor's status now, then
// every change of its state or znode, in order, none dropped. It closes
// after the StateClosed status, or when ctx is done.
func (m *Monitor) Observe(ctx context.Context) <-chan Status { return m.c.Observe(ctx) }

// Close stops speaking, deletes the znode if we hold it so that another
// candidate takes over at once, and waits for the Monitor's goroutine. It
// does not close the session, which belongs to the caller. It is safe to
// call more than once.
func (m *Monitor) Close() { m.c.Close() }

// ResignPause is how long a resigned Monitor waits before it races for the
// znode again. Everyone else is woken by the delete and creates at once; a
// re-create of ours sent at once could win again before any of them, and
// the resignation would hand over nothing. A notification and a create
// take milliseconds; this leaves room for a loaded machine. With nobody
// else standing, the resigned Monitor leads again after it.
const ResignPause = time.Second

// Resign gives up the leadership on purpose: it stops speaking, deletes
// the znode with one server write (every waiting candidate is woken, and
// one wins), returns once ZooKeeper has answered, however late, and races
// for it again after ResignPause. It returns ErrNothingToResign when we do
// not lead, ErrPausedResign while cut off from ZooKeeper, ErrClosed after
// Close; none of them changes anything. ErrStillLeading says ZooKeeper
// refused the delete: the Monitor stands as before. ErrResignUnknown says
// it did not answer before our session may have expired: the znode may be
// gone, so the Monitor stays silent and keeps the pause all the same.
func (m *Monitor) Resign(ctx context.Context) error { return m.c.Resign(ctx, ResignPause) }

// Errors of Resign.
var (
	ErrNothingToResign = election.ErrNothingToResign
	ErrPausedResign    = election.ErrPausedResign
	ErrClosed          = election.ErrClosed
	ErrStillLeading    = election.ErrStillLeading
	ErrResignUnknown   = election.ErrResignUnknown
)

// Done is closed once the Monitor has ended: after Close, when the session
// was closed, or when it gave up on its own because ZooKeeper refuses it by
// the znodes' ACL (Err).
func (m *Monitor) Done() <-chan struct{} { return m.c.Done() }

// Err returns why the Monitor gave up on its own, once Done is closed: an
// error that is ErrNotAllowed. It is nil while it runs, and when Close or
// the session's close ended it first.
func (m *Monitor) Err() error { return m.c.Err() }

// ErrNotAllowed is why a Monitor gives up: ZooKeeper refused it by the
// znodes' ACL before it ever joined, so its user:password is wrong or
// missing (recoverable.WithDigestAuth).
var ErrNotAllowed = election.ErrNotAllowed

// Listener is told when to speak: the articles' NodeMonitorListener, which
// the ZNodeMonitor calls too. speaker.Speaker is one.
type Listener = election.Listener

// State is a Monitor's view of its own leadership.
type State = election.State

// The states of a Monitor.
const (
	StateInactive = election.StateInactive // not the leader: waiting, or not yet joined
	StateActive   = election.StateActive   // the leader, holding the znode on a live session
	StatePaused   = election.StatePaused   // the leader lost its connection and does not know yet
	StateClosed   = election.StateClosed   // Close was called
)

// Status is a Monitor's state and znode at one moment: what Observe sends.
type Status = election.Status

// Policy says what a paused leader does.
type Policy = election.Policy

// The policies of a paused leader.
const (
	AtMostOne  = election.AtMostOne  // silent while paused, confirms before each act: never two leaders
	AtLeastOne = election.AtLeastOne // speaks on while paused: never no leader, maybe two for a moment
)

// ErrInvalid is wrapped by every error about a bad option value.
var ErrInvalid = election.ErrInvalid
