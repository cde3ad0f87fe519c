package fourletter

import "time"

// Heard is what the servers last said of one session's life: when one of
// them last heard from it, and how long the ensemble waits after that
// before it expires the session. ZooKeeper's leader expires a session once
// its timeout has passed with no word from it (a request or a ping), at
// the next tick: so Expires is the earliest the session can end, and a
// dead process's znodes go up to a tick or so after it.
type Heard struct {
	// Timeout is the session timeout the servers granted.
	Timeout time.Duration
	// At is when a server last heard from the session.
	At time.Time
	// Guessed is true when the server's clock could not be read on this
	// machine's (see heardAt): At is then a ping's time before the look
	// that last saw the session connected, the earliest it can have been.
	Guessed bool
	// Server is where the session was connected then.
	Server string
}

// Expires is when the session expires unless the servers hear from it
// again: the earliest its ephemeral znodes can go.
func (h Heard) Expires() time.Time { return h.At.Add(h.Timeout) }

// forget is how long after its expiry a session is remembered: by then
// its znodes are gone, and nobody asks about it any more.
const forget = time.Minute

// remember keeps, for each session not connected now, what an earlier
// look heard of it, until its session must have expired.
func (s *Sightings) remember(before Sightings) {
	for id, h := range before.heard {
		if _, now := s.heard[id]; !now && s.At.Before(h.Expires().Add(forget)) {
			s.heard[id] = h
		}
	}
}

// LifeState says how a session stands, as the servers tell it.
type LifeState int

const (
	// Alive means connected and heard from lately.
	Alive LifeState = iota
	// Silent means connected, but no server has heard from it for more
	// than half its timeout, though a live client pings every third: its
	// process is stopped (kill -STOP, Ctrl-Z, a long pause) or cut off
	// from its server. Its session expires unless it speaks in time.
	Silent
	// CutOff means its server does not answer now: the session has lost
	// its connection, and a candidate in it is paused until it reaches
	// another server before its session expires.
	CutOff
	// Gone means every server answered and none holds a connection for it:
	// its process died (or it is moving to another server). ZooKeeper
	// keeps its session, and its ephemeral znodes, until it expires.
	Gone
	// Unknown means it is on no server that answered, and a server did
	// not: nothing can be said.
	Unknown
)

// String names the state in a word or two, for a page's data attributes.
func (l LifeState) String() string {
	switch l {
	case Alive:
		return "connected"
	case Silent:
		return "silent"
	case CutOff:
		return "cut off"
	case Gone:
		return "gone"
	default:
		return "unknown"
	}
}

// Life is how session id stands, and what the servers last heard of it
// (known is false when no look saw it connected).
func (s Sightings) Life(id int64) (state LifeState, heard Heard, known bool) {
	heard, known = s.heard[id]
	switch {
	case s.where[id] != "":
		if known && !heard.Guessed && s.At.Sub(heard.At) > heard.Timeout/2 {
			return Silent, heard, true
		}
		return Alive, heard, known
	case known && !s.answered[heard.Server]:
		return CutOff, heard, true
	case s.complete:
		return Gone, heard, known
	default:
		return Unknown, heard, known
	}
}
