package recoverable

import (
	"context"
	"sync"
	"time"

	"zkspeaker/internal/fourletter"
)

// modeProbeTimeout bounds the srvr question. Until it is answered the client
// syncs as if it talked to an ensemble, which is always safe.
const modeProbeTimeout = 2 * time.Second

// serverMode tracks the mode of the server the client is connected to.
// Every connection, and every loss of one, starts a new generation; a
// probe's answer counts only for the generation it was asked in, so that
// an answer about one connection never vouches for the next.
//
// A sync makes the server we talk to catch up with the ZooKeeper leader
// before it answers our next read, so that the read is as fresh as a write
// would be. A standalone server has no leader to catch up with: it applies
// every write itself before it acknowledges it to anyone, so each read it
// answers on our session already reflects every acknowledged write, and its
// answer proves our session alive there when the read arrived, exactly what
// the sync would have proved. On a standalone server the sync is a round
// trip's worth of nothing, and the failover's one round trip can be a plain
// read.
//
// The client cannot see the server's mode, so it asks, with the four-letter
// word srvr (allowed by default since ZooKeeper 3.5), once per connection.
// A server that does not answer, or answers anything but "standalone", is
// treated as a member of an ensemble: the sync stays. A leader of an
// ensemble is no exception: it may apply a commit a moment after a
// follower has acknowledged it to a client, and only a sync waits for that.
type serverMode struct {
	mu      sync.Mutex
	gen     uint64 // bumped at every connect and disconnect
	modeGen uint64 // the generation mode belongs to
	mode    string // what srvr said: "standalone", "leader", "follower"...
	wg      sync.WaitGroup
}

// connected starts a generation for a new connection to server and asks it,
// on a goroutine that ends by itself within modeProbeTimeout or when quit
// closes, what mode it runs in. It must not block: go-zookeeper's event
// callback calls it.
func (s *serverMode) connected(server string, quit <-chan struct{}) {
	s.mu.Lock()
	s.gen++
	gen := s.gen
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), modeProbeTimeout)
		defer cancel()
		go func() { // Close need not wait out the timeout
			select {
			case <-quit:
				cancel()
			case <-ctx.Done():
			}
		}()
		info := fourletter.Srvr(ctx, server)
		if info.Mode == "down" {
			return
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.gen == gen {
			s.modeGen, s.mode = gen, info.Mode
		}
	}()
}

// lost ends the current generation: whatever answers next comes over
// another connection, perhaps to another server.
func (s *serverMode) lost() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gen++
}

// current returns the current generation and the mode of its server, ""
// while unknown.
func (s *serverMode) current() (gen uint64, mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.modeGen != s.gen {
		return s.gen, ""
	}
	return s.gen, s.mode
}

// still reports whether gen is the current generation: no connection was
// lost or made since, so an answer came from the server gen asked.
func (s *serverMode) still(gen uint64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen == gen
}

// ServerMode returns what the server the client is connected to said of
// itself: "standalone", "leader", "follower" or "observer"; "" while it is
// unknown (no connection, the first moments of one, or a server that does
// not answer srvr). Only on a standalone server do reads skip the sync.
func (r *RecoverableZookeeper) ServerMode() string {
	_, mode := r.serverMode.current()
	return mode
}
