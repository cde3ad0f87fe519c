package zktest

import (
	"encoding/binary"
	"time"
)

// ZooKeeper's request opcodes that the tests trap on.
const (
	OpExists int32 = 3
	OpSync   int32 = 9
)

// SetReplyLatency holds every frame from the server for d before the
// client sees it, on open connections and new ones: a slow network, a
// loaded server or a scheduling delay on the way back. Requests go out at
// once, so the server acts on them while their answers are still on the way.
func (p *Proxy) SetReplyLatency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// NotifyReply arms a one-shot trap and returns its channel: it is closed
// the moment the server's answer to the next request with opcode op
// reaches the proxy, before any reply latency. The answer is then true on
// the server, and still on its way to the client.
func (p *Proxy) NotifyReply(op int32) <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.replyOp, p.replyFired = op, make(chan struct{})
	return p.replyFired
}

// replyLatency returns the latency now in force.
func (p *Proxy) replyLatency() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.latency
}

// noteRequest remembers a client request's xid when its opcode is the one
// NotifyReply waits for.
func (l *link) noteRequest(payload []byte) {
	if len(payload) < 8 {
		return
	}
	xid, op := int32(binary.BigEndian.Uint32(payload)), int32(binary.BigEndian.Uint32(payload[4:8]))
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	if l.p.replyFired != nil && op == l.p.replyOp {
		l.watched = append(l.watched, xid)
	}
}

// noteReply fires NotifyReply's trap when payload answers a watched request.
func (l *link) noteReply(payload []byte) {
	if len(payload) < 4 {
		return
	}
	xid := int32(binary.BigEndian.Uint32(payload))
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	for _, w := range l.watched {
		if w == xid && l.p.replyFired != nil {
			close(l.p.replyFired)
			l.p.replyFired, l.watched = nil, nil
			return
		}
	}
}

// delay waits until due, or the link ends; it reports false if the link
// ended.
func (l *link) delay(due time.Time) bool {
	d := time.Until(due)
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-l.done:
		return false
	}
}
