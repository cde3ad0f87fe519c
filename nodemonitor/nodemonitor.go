// Package nodemonitor holds the articles' NodeMonitor: the sequential leader
// election of the ZooKeeper recipes, where each candidate owns an
// EPHEMERAL|SEQUENTIAL znode under /election, the lowest one leads, and every
// other one watches only its predecessor, so that no change wakes a herd.
//
// The handling of the session (paused, expired, reconnected) and the two
// policies are the election engine's, which znodemonitor's single-file
// election runs on too.
package nodemonitor

import (
	"context"
	"time"

	"zkspeaker/internal/election"
	"zkspeaker/internal/election/zksession"
	"zkspeaker/recoverable"
)

// Monitor is one candidate of a sequential election. It follows its
// session, keeps its place in the line, and tells its Listener when to
// speak.
type Monitor struct {
	c *election.Candidate
}

// New starts a candidate of the sequential election at the election path
// (DefaultPath unless WithPath says otherwise), on the session of rz, that
// tells listener when to speak. It returns at once; the candidate joins as
// soon as there is a session.
func New(rz *recoverable.RecoverableZookeeper, listener Listener, opts ...Option) (*Monitor, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	r := &sequential{zk: rz, path: cfg.path, data: []byte(listener.ProcessName()), acl: cfg.acl, watch: cfg.watch, rule: cfg.rule, log: cfg.logger}
	return &Monitor{c: election.Run(zksession.New(rz), listener, r, election.Config{Policy: cfg.policy, Logger: cfg.logger})}, nil
}

// State returns the Monitor's state now.
func (m *Monitor) State() State { return m.c.State() }

// Node returns the path of our znode, or "" before we joined.
func (m *Monitor) Node() string { return m.c.Node() }

// Notifications returns how many watch notifications woke this candidate:
// the cost of one failover, and the measure of the herd effect.
func (m *Monitor) Notifications() int64 { return m.c.Notifications() }

// Observe returns a channel that carries the Monitor's status now, then
// every change of its state or znode, in order, none dropped. It closes
// after the StateClosed status, or when ctx is done.
func (m *Monitor) Observe(ctx context.Context) <-chan Status { return m.c.Observe(ctx) }

// Close stops speaking, deletes our znode so that the successor takes over
// at once, and waits for the Monitor's goroutine. It does not close the
// session, which belongs to the caller. It is safe to call more than once.
func (m *Monitor) Close() { m.c.Close() }

// ResignRejoin is how long a resigned Monitor waits before it joins again
// at the back of the line: its create, sent at once, would reach the
// servers in the middle of the successor's round trip and delay it, as a
// session closed at once would (speaker waits as long to close its own).
// A handover on one machine takes a few milliseconds.
const ResignRejoin = 100 * time.Millisecond

// Resign gives up the leadership on purpose: it stops speaking, deletes
// our znode with one server write (the successor, the one candidate
// watching it, takes over as after a graceful exit), returns once
// ZooKeeper has answered, however late, and joins again at the back of the
// line ResignRejoin later. It returns ErrNothingToResign when we do not
// lead, ErrPausedResign while cut off from ZooKeeper, ErrClosed after
// Close; none of them changes anything. ErrStillLeading says ZooKeeper
// refused the delete: the Monitor stands as before. ErrResignUnknown says
// it did not answer before our session may have expired: the Monitor
// stays silent and joins again ResignRejoin later all the same.
func (m *Monitor) Resign(ctx context.Context) error { return m.c.Resign(ctx, ResignRejoin) }

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

// Listener is told when to speak: the articles' NodeMonitorListener.
// speaker.Speaker is one.
type Listener = election.Listener

// State is a Monitor's view of its own leadership.
type State = election.State

// The states of a Monitor.
const (
	StateInactive = election.StateInactive // not the leader: waiting in line, or not yet joined
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

// ErrInvalid is wrapped by every error about a bad option value.
var ErrInvalid = election.ErrInvalid

// ParsePolicy reads a --policy value: "at-most-one" or "at-least-one".
func ParsePolicy(s string) (Policy, error) { return election.ParsePolicy(s) }
