package nodemonitor

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"

	"zkspeaker/internal/election"
	"zkspeaker/internal/election/zksession"
	"zkspeaker/recoverable"
)

// Monitor is one candidate of an election: of this package's line (New),
// or of znodemonitor's single file, which returns this same type. It
// follows its session, keeps its place, and tells its Listener when to
// speak. The states, policies and errors below are the ones of both
// elections, named here once.
type Monitor struct {
	c      *election.Candidate
	recipe election.Recipe // touched by Leave alone, once the engine has ended
	leave  sync.Mutex      // one Leave at a time
	// resignPause is how long Resign waits before it stands again:
	// ResignRejoin here, znodemonitor.ResignPause for the single file.
	resignPause time.Duration
}

// Start runs recipe, an election of this module, on the engine for
// listener, on the session of rz, and returns its Monitor; a resigned
// candidate stands again resignPause later. It is how znodemonitor shares
// this Monitor: the recipe's type is the engine's, internal to this module,
// so no other module can call Start. Use New, or znodemonitor.New.
func Start(rz *recoverable.RecoverableZookeeper, listener Listener, recipe election.Recipe, policy Policy, log *slog.Logger, resignPause time.Duration) *Monitor {
	c := election.Run(zksession.New(rz), listener, recipe, election.Config{Policy: policy, Logger: log})
	return &Monitor{c: c, recipe: recipe, resignPause: resignPause}
}

// State returns the Monitor's state now.
func (m *Monitor) State() State { return m.c.State() }

// Node returns the path of our znode (under single-file, of the znode we
// hold or wait for), or "" before we joined.
func (m *Monitor) Node() string { return m.c.Node() }

// Notifications returns how many watch notifications woke this candidate:
// the cost of one failover, and the measure of the herd effect.
func (m *Monitor) Notifications() int64 { return m.c.Notifications() }

// Observe returns a channel that carries the Monitor's status now, then
// every change of its state or znode, in order, none dropped. It closes
// after the StateClosed status, or when ctx is done.
func (m *Monitor) Observe(ctx context.Context) <-chan Status { return m.c.Observe(ctx) }

// Close stops speaking, deletes our znode if we hold one, so that a
// successor takes over at once, and waits for the Monitor's goroutine. It
// does not close the session, which belongs to the caller. It is safe to
// call more than once.
func (m *Monitor) Close() { m.c.Close() }

// Leave is Close that makes sure our znode is gone, and says whether it
// is: Close tries the delete once, briefly, and not at all while cut off
// from ZooKeeper; Leave then deletes the znode if it is still ours,
// through reconnects, until ctx is done. It returns nil once the znode is
// gone, deleted or gone with our session (expired or closed); otherwise
// the delete's error, and the znode stays until our session ends. It is
// safe to call more than once, and after Close.
func (m *Monitor) Leave(ctx context.Context) error {
	m.Close() // the engine's goroutine has ended: the recipe is ours now
	m.leave.Lock()
	defer m.leave.Unlock()
	err := m.recipe.Leave(ctx)
	if errors.Is(err, recoverable.ErrClosed) || errors.Is(err, zk.ErrSessionExpired) {
		return nil // the session is gone, and our ephemeral znode with it
	}
	return err
}

// Resign gives up the leadership on purpose: it stops speaking, deletes
// our znode with one server write (under New, the successor, the one
// candidate watching it, takes over as after a graceful exit; under
// single-file, every waiter is woken and one wins), returns once ZooKeeper
// has answered, however late, and stands again after its pause
// (ResignRejoin, at the back of the line; znodemonitor.ResignPause). It
// returns ErrNothingToResign when we do not lead, ErrPausedResign while
// cut off from ZooKeeper, ErrClosed after Close; none of them changes
// anything. ErrStillLeading says ZooKeeper refused the delete: the Monitor
// stands as before. ErrResignUnknown says it did not answer before our
// session may have expired: the Monitor stays silent and stands again
// after the pause all the same.
func (m *Monitor) Resign(ctx context.Context) error { return m.c.Resign(ctx, m.resignPause) }

// Done is closed once the Monitor has ended: after Close, when the session
// was closed, or when it gave up on its own because ZooKeeper refuses it by
// the znodes' ACL (Err).
func (m *Monitor) Done() <-chan struct{} { return m.c.Done() }

// Err returns why the Monitor gave up on its own, once Done is closed: an
// error that is ErrNotAllowed. It is nil while it runs, and when Close or
// the session's close ended it first.
func (m *Monitor) Err() error { return m.c.Err() }

// Errors of Resign.
var (
	ErrNothingToResign = election.ErrNothingToResign
	ErrPausedResign    = election.ErrPausedResign
	ErrClosed          = election.ErrClosed
	ErrStillLeading    = election.ErrStillLeading
	ErrResignUnknown   = election.ErrResignUnknown
)

// ErrNotAllowed is why a Monitor gives up: ZooKeeper refused it by the
// znodes' ACL before it ever joined, so its user:password is wrong or
// missing (recoverable.WithDigestAuth).
var ErrNotAllowed = election.ErrNotAllowed

// ErrInvalid is wrapped by every error about a bad option value, of this
// package and of znodemonitor.
var ErrInvalid = election.ErrInvalid

// Listener is told when to speak: the articles' NodeMonitorListener, which
// the ZNodeMonitor calls too. speaker.Speaker is one.
type Listener = election.Listener

// State is a Monitor's view of its own leadership.
type State = election.State

// The states of a Monitor.
const (
	StateInactive = election.StateInactive // not the leader: waiting, or not yet joined
	StateActive   = election.StateActive   // the leader, with a live session and znode
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

// ParsePolicy reads a --policy value: "at-most-one" or "at-least-one".
func ParsePolicy(s string) (Policy, error) { return election.ParsePolicy(s) }
