package faultproxy

import (
	"encoding/binary"
	"net"
	"sync"
	"time"
)

// ZooKeeper's request opcodes that the tests trap on.
const (
	OpDelete  int32 = 2
	OpExists  int32 = 3
	OpGetData int32 = 4 // go-zookeeper's Get and GetW
	OpSetData int32 = 5 // go-zookeeper's Set
	OpSync    int32 = 9
	// OpGetChildren2 is go-zookeeper's Children and ChildrenW.
	OpGetChildren2 int32 = 12
	OpMulti        int32 = 14
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

// HoldReply is NotifyReply that also holds the answer: from the moment
// the answer to the next request with opcode op reaches the proxy, that
// answer and every frame from the server after it wait until release (and
// their reply latency, too). A window that the answer's timing alone would
// open only sometimes, as on a loaded machine, is then opened every time.
// release is safe to call more than once.
func (p *Proxy) HoldReply(op int32) (answered <-chan struct{}, release func()) {
	gate := make(chan struct{})
	var once sync.Once
	p.mu.Lock()
	defer p.mu.Unlock()
	p.replyOp, p.replyFired, p.holdArmed = op, make(chan struct{}), gate
	return p.replyFired, func() {
		once.Do(func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.holding == gate {
				p.holding = nil
			}
			if p.holdArmed == gate {
				p.holdArmed = nil
			}
			close(gate)
		})
	}
}

// gate returns the gate that frames from the server wait at now, or nil.
func (p *Proxy) gate() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.holding
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
			l.p.holding, l.p.holdArmed = l.p.holdArmed, nil // HoldReply's gate closes here
			return
		}
	}
}

// hold waits until gate is open (nil is), or the link ends; it reports
// false if the link ended.
func (l *link) hold(gate chan struct{}) bool {
	if gate == nil {
		return true
	}
	select {
	case <-gate:
		return true
	case <-l.done:
		return false
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

// chunk is what one read from a socket returned, and when it may go on:
// when it arrived, plus the reply latency in force then.
type chunk struct {
	b    []byte // nil at the end of the stream
	at   time.Time
	gate chan struct{} // HoldReply's: wait until it is closed; nil for none
}

// read reads src on a goroutine of its own and stamps each read with the
// moment it arrived. Reading ahead is what lets a reply latency apply to
// every answer in parallel, as on a real network: answers that arrive while
// an earlier one is held are not held back by it.
//
// onArrive, when not nil, sees the body of each frame after the first (the
// handshake) the moment it is read.
func (l *link) read(src net.Conn, onArrive func(body []byte)) <-chan chunk {
	out := make(chan chunk, 1024)
	l.p.wg.Add(1)
	go func() {
		defer l.p.wg.Done()
		var pending []byte
		first := true
		for {
			buf := make([]byte, 64<<10)
			n, err := src.Read(buf)
			// The latency in force when the bytes arrived, read before
			// onArrive: a test woken by NotifyReply may change it at once,
			// and the answer it trapped must keep the latency it met
			// (TestDeleteOvertakesAConfirm once gave A's confirm answer the
			// next second of latency, past its deadline).
			at := time.Now().Add(l.p.replyLatency())
			if n > 0 && onArrive != nil {
				pending = append(pending, buf[:n]...)
				for len(pending) >= 4 {
					size := int(binary.BigEndian.Uint32(pending))
					if len(pending) < 4+size {
						break
					}
					if !first {
						onArrive(pending[4 : 4+size])
					}
					first, pending = false, pending[4+size:]
				}
			}
			if n > 0 {
				select {
				case out <- chunk{b: buf[:n], at: at, gate: l.p.gate()}: // after onArrive: it may close the gate
				case <-l.done:
					return
				}
			}
			if err != nil {
				select {
				case out <- chunk{at: time.Now()}:
				case <-l.done:
				}
				return
			}
		}
	}()
	return out
}
