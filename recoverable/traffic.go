package recoverable

import (
	"slices"
	"sync"
	"time"
)

// Traffic is what a session has exchanged with the servers so far, counted
// on the wire: the cost of an election, as `speaker bench` shows it. Pings
// and handshakes are left out; they are the price of having a session at
// all, not of electing anyone.
type Traffic struct {
	// Requests is how many requests the session has sent.
	Requests int64
	// Writes is how many of them change the tree or the session: creates,
	// deletes, sets, multis and the session's close. Each costs the
	// servers a synced transaction.
	Writes int64
	// Events is how many watch notifications it has received, and
	// EventAt when the last one arrived.
	Events  int64
	EventAt time.Time
	// SinceEvent is how many requests it has sent since the last
	// notification, and RoundTripsSinceEvent how many round trips they
	// took: a request sent after an answer came back starts a new one, as
	// it may have waited for that answer. Requests sent together (see
	// SyncChildren) share one round trip, even when the second leaves
	// after the first's answer: it never waited for it.
	SinceEvent, RoundTripsSinceEvent int64
	// WritesSinceEvent is how many of SinceEvent are writes.
	WritesSinceEvent int64
	// AnsweredAt is when the last answer to a request arrived.
	AnsweredAt time.Time
	// WroteAt is when the last write was handed to the socket: for a
	// leader that leaves, when its one write left for the server.
	WroteAt time.Time
	// InFlight is how many of its requests wait for their answer (those
	// on a connection that closed wait no more).
	InFlight int64
	// WatchesSinceEvent is how many watches its answers have left on the
	// servers since the last notification (since the session began, before
	// the first): an exists, get or children that asked for one and
	// succeeded, or an exists that found no znode. A candidate that waits on
	// a watch has done all its last notification made it do once it has
	// set one again and nothing is in flight: `speaker bench` waits for
	// that between failovers, and needs no quiet spell to guess it.
	WatchesSinceEvent int64
}

// xids that go-zookeeper and the server use for frames that are not a
// request and its answer.
const (
	eventXid = -1 // a watch notification from the server
	pingXid  = -2 // a ping and its answer
)

// writeOps are the opcodes of the requests that the servers commit as a
// transaction: create, delete, setData, setACL, multi, create2, reconfig,
// createContainer, createTTL, and closeSession.
var writeOps = map[int32]bool{1: true, 2: true, 5: true, 7: true, 14: true, 15: true, 16: true, 19: true, 21: true, -11: true}

// trafficCounter keeps a session's Traffic across its connections.
type trafficCounter struct {
	mu       sync.Mutex
	t        Traffic
	answered bool         // an answer arrived after the last request went out
	joining  []*pipelined // requests on their way behind another, not waiting for its answer
}

// pipelined is a pipeline's second request, by its opcode, until it leaves.
type pipelined struct{ op int32 }

// join says that the next request with opcode op is sent behind another
// without waiting for its answer (a pipeline's second): it shares that
// request's round trip. The returned func forgets it if it never left.
func (c *trafficCounter) join(op int32) (forget func()) {
	p := &pipelined{op}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.joining = append(c.joining, p)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.joining = slices.DeleteFunc(c.joining, func(q *pipelined) bool { return q == p })
	}
}

// joined takes the first pipelined request with opcode op off the list,
// and says whether there was one. The caller holds mu.
func (c *trafficCounter) joined(op int32) bool {
	i := slices.IndexFunc(c.joining, func(p *pipelined) bool { return p.op == op })
	if i < 0 {
		return false
	}
	c.joining = slices.Delete(c.joining, i, i+1)
	return true
}

// sent counts a request frame (not the handshake, not a ping) by its xid
// and opcode.
func (c *trafficCounter) sent(xid, op int32) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t.Requests++
	c.t.InFlight++
	if joined := c.joined(op); c.t.SinceEvent == 0 || (c.answered && !joined) {
		c.t.RoundTripsSinceEvent++
	}
	c.t.SinceEvent++
	if writeOps[op] {
		c.t.WroteAt = time.Now()
		c.t.Writes++
		c.t.WritesSinceEvent++
	}
	c.answered = false
}

// notified counts a watch notification.
func (c *trafficCounter) notified() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t.Events++
	c.t.EventAt = time.Now()
	c.t.SinceEvent, c.t.RoundTripsSinceEvent, c.t.WritesSinceEvent, c.t.WatchesSinceEvent, c.answered = 0, 0, 0, 0, false
}

// answer counts the answer to a counted request; watched says that it left
// a watch on the servers.
func (c *trafficCounter) answer(watched bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.answered, c.t.AnsweredAt = true, time.Now()
	c.t.InFlight--
	if watched {
		c.t.WatchesSinceEvent++
	}
}

// abandoned forgets a counted request whose connection closed before its
// answer came.
func (c *trafficCounter) abandoned() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t.InFlight--
}

// Traffic returns what the session has exchanged so far.
func (r *RecoverableZookeeper) Traffic() Traffic {
	r.traffic.mu.Lock()
	defer r.traffic.mu.Unlock()
	return r.traffic.t
}
