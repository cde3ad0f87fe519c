package faultproxy

import (
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
)

// link is one proxied connection.
type link struct {
	p              *Proxy
	client, server net.Conn
	once           sync.Once

	done     chan struct{} // closed by reset
	mu       sync.Mutex
	awaiting int32 // xid of a trapped create whose reply must be dropped
	trapped  bool
	watched  []int32     // xids of requests whose answer NotifyReply waits for (guarded by p.mu)
	raw      atomic.Bool // a four-letter word, passed through as it is
}

func (l *link) reset() { l.end(rst) }

// end closes both sides with closeConn, once.
func (l *link) end(closeConn func(net.Conn)) {
	l.once.Do(func() {
		close(l.done)
		closeConn(l.client)
		closeConn(l.server)
		l.p.mu.Lock()
		delete(l.p.links, l)
		l.p.mu.Unlock()
	})
}

// pipe copies src to dst frame by frame (a 4-byte length, then the payload),
// so that the client side can spot creates and the server side can swallow
// the reply to a trapped one. The first frame each way (ConnectRequest and
// ConnectResponse) has no request or reply header. A four-letter word
// (recoverable asks srvr at every connect) is copied as it comes.
func (l *link) pipe(src, dst net.Conn, fromClient bool) {
	defer l.p.wg.Done()
	defer l.reset()
	var pending []byte
	first := true
	var onArrive func(frame []byte)
	if !fromClient {
		onArrive = l.noteReply // when it reaches us, before any latency
	}
	chunks := l.read(src, onArrive)
	for {
		var c chunk
		select {
		case c = <-chunks:
		case <-l.done:
			return
		}
		if c.b == nil {
			if l.raw.Load() {
				// The server said its piece and closed: an orderly close
				// lets the answer reach the client, where a reset could
				// discard it.
				l.end(func(c net.Conn) { _ = c.Close() })
			}
			return // EOF or a reset: the deferred reset closes both sides
		}
		select { // a partition: hold the bytes until it heals
		case <-l.p.whenHealed():
		case <-l.done:
			return
		}
		pending = append(pending, c.b...)
		if first && fromClient && pending[0] >= 'a' && pending[0] <= 'z' {
			// Not a session but a four-letter word ("srvr"): a ZooKeeper
			// frame starts with its length, whose first byte is 0.
			l.raw.Store(true)
		}
		if l.raw.Load() {
			if _, err := dst.Write(pending); err != nil {
				return
			}
			pending = pending[:0]
			continue
		}
		for len(pending) >= 4 {
			size := int(binary.BigEndian.Uint32(pending))
			if len(pending) < 4+size {
				break
			}
			frame := pending[:4+size]
			pending = pending[4+size:]
			header := !first
			first = false
			if fromClient && !l.toServer(dst, frame, header) || !fromClient && !l.toClient(dst, frame, header, c) {
				return
			}
		}
	}
}

// toServer passes one client frame on; a request frame (the first is the
// session's connect) is noted, and may spring the trap. It reports false
// when the link must end.
func (l *link) toServer(dst net.Conn, frame []byte, header bool) bool {
	if header {
		l.noteRequest(frame[4:])
	}
	// The link is trapped before the create leaves: once it is written,
	// the server's reply may come back at once, and must find the trap
	// set, or it reaches the client.
	var fired chan struct{}
	springs := false
	if header {
		fired, springs = l.p.springs(frame[4:])
	}
	if springs {
		l.mu.Lock()
		l.trapped, l.awaiting = true, int32(binary.BigEndian.Uint32(frame[4:8]))
		l.mu.Unlock()
	}
	_, err := dst.Write(frame)
	if springs {
		close(fired)
	}
	return err == nil
}

// toClient passes one server frame on, after the reply latency and any
// held reply's gate; a trapped link passes nothing, and ends once the
// server has answered the trapped create. It reports false when the link
// must end.
func (l *link) toClient(dst net.Conn, frame []byte, header bool, c chunk) bool {
	if !l.delay(c.at) || !l.hold(c.gate) {
		return false
	}
	l.mu.Lock()
	trapped, awaiting := l.trapped, l.awaiting
	l.mu.Unlock()
	if !trapped {
		_, err := dst.Write(frame)
		return err == nil
	}
	// Trapped: nothing more reaches the client. Once the server has
	// answered the create, it has applied it: now reset.
	return !(header && len(frame) >= 8 && int32(binary.BigEndian.Uint32(frame[4:8])) == awaiting)
}
