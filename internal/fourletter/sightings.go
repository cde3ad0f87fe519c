package fourletter

import (
	"context"
	"slices"
	"sync"
	"time"
)

// Sightings is what the servers say about the ensemble's sessions, from the
// four-letter words: each server's mode (srvr), where each session is
// connected (cons), and what it watches (wchc). A server knows only its own
// connections, so Gather asks every server it knows of.
type Sightings struct {
	// Servers are the servers asked, with their modes.
	Servers []ServerInfo
	// Self is the asker's own session, which is no candidate.
	Self int64

	// At is when the servers were asked.
	At time.Time

	watches map[int64][]string // data watches, of sessions on servers that answered wchc
	where   map[int64]string   // the server of each session connected to one that answered both cons and wchc
	// complete is true when every server of the ensemble answered cons and
	// wchc: a session then missing from every answer has no connection.
	complete bool
	// heard is what the servers last said of each session's life: now for
	// the sessions connected, at an earlier look for the others, until
	// their sessions must have expired (see Life).
	heard    map[int64]Heard
	answered map[string]bool // the servers that answered cons and wchc
}

// Visibility says how much the servers can tell of one session.
type Visibility int

const (
	// Seen means the session is connected to a server that listed its
	// watches: those are all its data watches.
	Seen Visibility = iota
	// NotConnected means every server answered and none holds a connection
	// for the session: its process died (its session lives on until it
	// expires), or it is moving to another server.
	NotConnected
	// NotVisible means the session may be connected to a server that was
	// not asked, or did not answer: nothing can be said of its watches.
	NotVisible
)

// NewSightings is what the servers said: each session's data watches, the
// server each session is connected to, and whether every server answered.
// Gather makes them from the servers; tests make their own.
func NewSightings(watches map[int64][]string, where map[int64]string, complete bool) Sightings {
	return Sightings{watches: watches, where: where, complete: complete, At: time.Now()}
}

// Session returns the data watches of session id, and whether they can be
// known at all.
func (s Sightings) Session(id int64) ([]string, Visibility) {
	switch {
	case s.where[id] != "":
		return s.watches[id], Seen
	case s.complete:
		return nil, NotConnected
	default:
		return nil, NotVisible
	}
}

// Server returns the server that session id is connected to, or "" when
// none that answered holds it.
func (s Sightings) Server(id int64) string { return s.where[id] }

// Watchers returns the sessions seen watching path, each with all its data
// watches.
func (s Sightings) Watchers(path string) map[int64][]string {
	out := map[int64][]string{}
	for id, paths := range s.watches {
		if s.where[id] != "" && slices.Contains(paths, path) {
			out[id] = paths
		}
	}
	return out
}

// Complete reports whether every server of the ensemble answered, so that
// no session can hide on a server that was not heard.
func (s Sightings) Complete() bool { return s.complete }

// answer is one server's reply to the three words.
type answer struct {
	info    ServerInfo
	watches map[int64][]string
	conns   []Conn
	ok      bool // both cons and wchc answered
}

// A client that has just moved to another server (as all do while the
// ensemble elects a new leader) shows in cons a moment before its watches
// are back. So when a look catches such a session without a watch, gather
// looks again, rewatch later, up to relooks times: without that, a
// follower would flicker as "all (children)?". A session that still shows
// none watches only what wchc cannot list, or is very slow to come back.
const (
	rewatch = 300 * time.Millisecond
	relooks = 2
)

// Gather asks every member what it knows of the sessions; self is the
// asker's own, which needs no watch. before is what an earlier Gather
// returned (the zero Sightings for the first): what the servers said then
// of a session they no longer list tells when it was last heard from, and
// a session that had watches then and has none now is looked at again.
func Gather(ctx context.Context, m Members, self int64, before Sightings) Sightings {
	s := gatherOnce(ctx, m)
	s.remember(before)
	for i := 0; i < relooks && s.bare(self, before); i++ {
		select {
		case <-ctx.Done():
		case <-time.After(rewatch):
			next := gatherOnce(ctx, m)
			next.remember(s) // a session seen at the first look and gone since
			s = next
		}
	}
	s.Self = self
	return s
}

// bare reports whether a session seen, other than self, has no watch,
// though it had some at the look before, or is new since then: a session
// that never watches anything is no reason to look again.
func (s Sightings) bare(self int64, before Sightings) bool {
	for id := range s.where {
		if id == self || len(s.watches[id]) > 0 {
			continue
		}
		if _, known := before.where[id]; !known || len(before.watches[id]) > 0 {
			return true
		}
	}
	return false
}

// gatherOnce asks every member at once, and gives them a second in all: a
// server that is down or frozen must not hold up the picture of the rest.
func gatherOnce(ctx context.Context, m Members) Sightings {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	answers := make([]answer, len(m.Addrs))
	var wg sync.WaitGroup
	for i, addr := range m.Addrs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = askServer(ctx, addr)
		}()
	}
	wg.Wait()

	s := Sightings{watches: map[int64][]string{}, where: map[int64]string{}, complete: m.Complete,
		heard: map[int64]Heard{}, answered: map[string]bool{}, At: time.Now()}
	for _, a := range answers {
		s.Servers = append(s.Servers, a.info)
		if !a.ok {
			s.complete = false
			continue
		}
		s.answered[a.info.Addr] = true
		for _, c := range a.conns {
			s.where[c.ID] = a.info.Addr
			h := Heard{Timeout: c.Timeout, At: c.Heard, Server: a.info.Addr}
			if h.At.IsZero() {
				// Not on this machine's clock: a live client pings every
				// third of its timeout, so it was heard from since then.
				h.At, h.Guessed = s.At.Add(-c.Timeout/3), true
			}
			s.heard[c.ID] = h
		}
		for id, paths := range a.watches {
			for _, p := range paths {
				if !slices.Contains(s.watches[id], p) { // one server given twice
					s.watches[id] = append(s.watches[id], p)
				}
			}
		}
	}
	return s
}

// askServer asks one server for its mode, its connections and their
// watches.
func askServer(ctx context.Context, addr string) answer {
	info := Srvr(ctx, addr)
	a := answer{info: ServerInfo{Addr: info.Addr, Mode: info.Mode, Connections: info.Connections}} // what a picture of the ensemble shows
	if info.Mode == "down" {
		return a
	}
	conns, errC := Sessions(ctx, addr)
	watches, errW := Watches(ctx, addr)
	a.conns, a.watches, a.ok = conns, watches, errC == nil && errW == nil
	return a
}
