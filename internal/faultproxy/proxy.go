// Package faultproxy is a TCP proxy between ZooKeeper clients and one
// server that injects real network faults: resets, silent partitions, a
// lost create reply, slow replies. The tests use it through zktest, and
// `speaker chaos` puts one in front of every speaker.
package faultproxy

import (
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// Proxy is a fault-injecting TCP proxy between ZooKeeper clients and one
// server. Faults are real: connections are reset with TCP RST, or bytes are
// silently dropped, as in a network partition.
type Proxy struct {
	target string
	ln     net.Listener

	mu       sync.Mutex
	links    map[*link]struct{}
	refusing bool
	healed   chan struct{} // closed unless the proxy is cut
	trap     string        // reset after forwarding a create under this prefix
	trapShut bool          // and refuse new connections then, until Restore
	fired    chan struct{} // closed when the trap fired
	conns    int

	latency    time.Duration // added to every frame from the server
	replyOp    int32         // NotifyReply's opcode
	replyFired chan struct{} // closed when the answer to a replyOp request passes; nil when unarmed
	holdArmed  chan struct{} // HoldReply's gate, until its answer arrives
	holding    chan struct{} // the gate every frame from the server waits at, once it has; nil when open

	wg sync.WaitGroup
}

// Listen listens on a free loopback port and forwards to target until
// Close.
func Listen(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{target: target, ln: ln, links: map[*link]struct{}{}, fired: make(chan struct{}), healed: make(chan struct{})}
	close(p.healed)
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address clients connect to.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Conns returns how many client connections the proxy accepted.
func (p *Proxy) Conns() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns
}

// Reset closes every connection with a TCP RST, and refuses new ones until
// Restore.
func (p *Proxy) Reset() {
	p.mu.Lock()
	p.refusing = true
	links := p.snapshot()
	p.mu.Unlock()
	for _, l := range links {
		l.reset()
	}
}

// Restore accepts connections again after Reset.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.refusing = false
	p.mu.Unlock()
}

// Cut is a silent partition: on open connections and new ones, no byte
// gets through either way until Heal, and no error says why. As in a real
// partition, where TCP retransmits once the network heals, the bytes are
// held back, not lost: Heal delivers them to whichever side still listens.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.healed:
		p.healed = make(chan struct{})
	default: // already cut
	}
}

// Heal ends a Cut.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.healed:
	default:
		close(p.healed)
	}
}

// ResetAfterCreate arms a one-shot trap: the next create request whose path
// starts with prefix is forwarded to the server; nothing more is passed back
// to the client, and once the server has answered that create (so it has
// surely applied it) the connection is reset. The client never learns that
// its create succeeded. Fired is closed when the trap has sprung.
func (p *Proxy) ResetAfterCreate(prefix string) { p.arm(prefix, false) }

// RefuseAfterCreate is ResetAfterCreate followed, at the same instant, by a
// Reset: the client can reconnect only after Restore. Wait longer than the
// session timeout before Restore, and the session expires while the client
// still waits for its create.
func (p *Proxy) RefuseAfterCreate(prefix string) { p.arm(prefix, true) }

// arm sets the trap; an empty prefix disarms it. A trap armed after one
// that sprang gets a Fired channel of its own.
func (p *Proxy) arm(prefix string, shut bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.trap, p.trapShut = prefix, shut
	select {
	case <-p.fired:
		p.fired = make(chan struct{})
	default:
	}
}

// Fired is closed once the trap armed last has sprung.
func (p *Proxy) Fired() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fired
}

func (p *Proxy) snapshot() []*link {
	out := make([]*link, 0, len(p.links))
	for l := range p.links {
		out = append(out, l)
	}
	return out
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.conns++
		refusing := p.refusing
		p.mu.Unlock()
		if refusing {
			rst(client)
			continue
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			rst(client)
			continue
		}
		l := &link{p: p, client: client, server: server, done: make(chan struct{})}
		p.mu.Lock()
		p.links[l] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go l.pipe(client, server, true)
		go l.pipe(server, client, false)
	}
}

// Close stops listening, resets every connection and waits for the
// proxy's goroutines. It is safe to call more than once.
func (p *Proxy) Close() {
	p.ln.Close()
	p.mu.Lock()
	links := p.snapshot()
	p.mu.Unlock()
	for _, l := range links {
		l.reset()
	}
	p.wg.Wait()
}

// whenHealed returns a channel that is closed while the proxy is not cut.
func (p *Proxy) whenHealed() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.healed
}

// springs reports whether a client frame is a create that the trap waits
// for, and disarms it if so. It returns the trap's Fired channel, for the
// caller to close once the create is on its way to the server.
func (p *Proxy) springs(frame []byte) (fired chan struct{}, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.trap == "" || !isCreateUnder(frame, p.trap) {
		return nil, false
	}
	p.trap = ""
	p.refusing = p.refusing || p.trapShut
	return p.fired, true
}

// isCreateUnder reports whether a request payload (xid, opcode, then the
// body) is a create of a path that starts with prefix.
func isCreateUnder(payload []byte, prefix string) bool {
	if len(payload) < 12 {
		return false
	}
	switch int32(binary.BigEndian.Uint32(payload[4:8])) {
	case 1, 15, 19, 21: // create, create2, createContainer, createTTL
	default:
		return false
	}
	n := int(int32(binary.BigEndian.Uint32(payload[8:12])))
	if n < 0 || len(payload) < 12+n {
		return false
	}
	return strings.HasPrefix(string(payload[12:12+n]), prefix)
}

// rst closes c so that the peer sees a TCP reset, not an orderly close.
func rst(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}
