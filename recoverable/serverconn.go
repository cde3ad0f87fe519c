package recoverable

import (
	"encoding/binary"
	"net"
	"sync"
	"time"
)

// AliveUntil is the earliest moment the servers may expire this session, as
// far as the client can know: the time it sent the last request a server
// answered, plus the session timeout. The server restarted the session's
// clock when that request arrived, after it was sent, and ZooKeeper rounds
// an expiry up to its next tick, never down.
//
// That holds for a standalone server, and for a follower in touch with the
// ZooKeeper leader, which tracks the sessions. A follower cut off from the
// leader may go on answering for a few ticks (syncLimit) while the leader
// expires the session; no client can see that from its side, which is why
// the at-most-one policy syncs before it trusts a read.
//
// A disconnected leader that keeps speaking (the at-least-one policy) must be
// silent by then. Counting from the moment the client noticed the silence
// instead would be up to two thirds of the timeout late: go-zookeeper gives
// up on a silent server only after that long.
func (r *RecoverableZookeeper) AliveUntil() time.Time {
	return r.born.Add(time.Duration(r.acked.Load()) + r.SessionTimeout())
}

// noteAcked records that a request sent at sent has been answered.
func (r *RecoverableZookeeper) noteAcked(sent time.Time) {
	ns := int64(sent.Sub(r.born))
	for {
		old := r.acked.Load()
		if ns <= old || r.acked.CompareAndSwap(old, ns) {
			return
		}
	}
}

// dial opens a connection to one server for go-zookeeper, wrapped so that we
// learn two things it keeps private: the negotiated session timeout and when
// the server last answered (see AliveUntil).
func (r *RecoverableZookeeper) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	c, err := net.DialTimeout(network, addr, timeout)
	if err != nil {
		return nil, err
	}
	negotiated := func(ms int32) {
		if ms > 0 {
			r.timeout.Store(int64(ms) * int64(time.Millisecond))
		}
	}
	return &serverConn{Conn: c, acked: r.noteAcked, wrote: r.writes.wrote, traffic: &r.traffic, handshakeLimit: r.SessionTimeout() * 2 / 3,
		timeout: negotiated, out: frames{keep: requestHeadLen}, in: frames{keep: replyHeadLen}}, nil
}

// serverConn reads the frames going both ways. ZooKeeper answers every
// request of a session, in the order sent, and sends watch events (xid -1)
// besides; so each frame that comes back and is not an event answers the
// oldest request still waiting. The first exchange is the handshake: its
// answer, the ConnectResponse, carries the negotiated session timeout in
// milliseconds in bytes 8 to 12, and 0 there when the session has expired,
// which is no proof of life.
type serverConn struct {
	net.Conn
	acked func(sent time.Time)
	wrote func(op int32)
	// traffic counts the requests and events (Traffic).
	traffic *trafficCounter
	// handshakeLimit bounds the wait for the handshake's answer, as for any
	// answer of a live session (two thirds of the timeout). go-zookeeper
	// waits ten times that: a server that accepts connections but does not
	// serve yet (one starting up) would hold the client for 27 s of a 4 s
	// session instead of letting it try the next server.
	handshakeLimit time.Duration
	timeout        func(ms int32)

	mu      sync.Mutex // go-zookeeper reads and writes on two goroutines
	sent    []request  // written, not yet answered, oldest first
	out, in frames
	inN     int      // frames read
	outN    int      // frames written
	first   [12]byte // the start of the ConnectResponse
	firstN  int
	closed  bool // by go-zookeeper: what it waits for will not come
}

// request is one request on its way: when it was written, its opcode,
// whether Traffic counts it (not the handshake, not a ping) and whether it
// asks for a watch.
type request struct {
	at             time.Time
	op             int32
	counted, watch bool
}

// opSetAuth is the opcode of an auth packet. The server answers it at once,
// without touching the session, so its answer proves nothing.
const opSetAuth = 100

// Write notes each request it carries, then sends it.
func (c *serverConn) Write(p []byte) (int, error) {
	now := time.Now() // before the bytes leave, so before any answer
	c.mu.Lock()
	var ops []int32
	c.out.feed(p, func(head []byte) {
		xid, op := word(head, 4), word(head, 8)
		r := request{at: now, op: op}
		if c.outN++; c.outN > 1 { // the first is the handshake, which has no opcode
			ops = append(ops, op)
			r.counted, r.watch = c.traffic != nil && xid != pingXid, asksWatch(head)
			if r.counted {
				c.traffic.sent(xid, op)
			}
		}
		c.sent = append(c.sent, r)
	})
	c.mu.Unlock()
	// go-zookeeper's one writer goroutine is in here: whatever is queued
	// from now on reaches the server after these requests.
	for _, op := range ops {
		if c.wrote != nil {
			c.wrote(op)
		}
	}
	return c.Conn.Write(p)
}

// SetReadDeadline is go-zookeeper's, except that the handshake's answer is
// not waited for longer than handshakeLimit.
func (c *serverConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	handshaking := c.firstN < len(c.first)
	c.mu.Unlock()
	if handshaking && c.handshakeLimit > 0 {
		if limit := time.Now().Add(c.handshakeLimit); t.IsZero() || t.After(limit) {
			t = limit
		}
	}
	return c.Conn.SetReadDeadline(t)
}

// Read notes each answer and event it carries.
func (c *serverConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.firstN < len(c.first) && n > 0 {
		c.firstN += copy(c.first[c.firstN:], p[:n])
		if c.firstN == len(c.first) {
			ms := int32(binary.BigEndian.Uint32(c.first[8:12]))
			c.timeout(ms)
			c.answered(ms > 0)
		}
	}
	c.in.feed(p[:n], func(head []byte) {
		c.inN++
		if c.inN == 1 {
			return // the handshake's answer is settled above
		}
		if xid := word(head, 4); xid == eventXid {
			if c.traffic != nil {
				c.traffic.notified()
			}
			return
		}
		r, ok := c.answered(true)
		if ok && r.counted {
			c.traffic.answer(r.watch && leavesWatch(r.op, word(head, 16)))
		}
	})
	return n, err
}

// Close closes the connection. Its requests still waiting will never be
// answered on it: Traffic stops waiting for them.
func (c *serverConn) Close() error {
	c.mu.Lock()
	if !c.closed && c.traffic != nil {
		for _, r := range c.sent {
			if r.counted {
				c.traffic.abandoned()
			}
		}
	}
	c.closed, c.sent = true, nil
	c.mu.Unlock()
	return c.Conn.Close()
}

// answered takes the oldest waiting request off the list and returns it,
// and reports when it was sent if the answer proves the session alive.
func (c *serverConn) answered(alive bool) (request, bool) {
	if len(c.sent) == 0 {
		return request{}, false
	}
	r := c.sent[0]
	if alive && r.op != opSetAuth {
		c.acked(r.at)
	}
	c.sent = c.sent[1:]
	return r, true
}
