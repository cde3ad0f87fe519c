package live

import (
	"fmt"
	"time"
)

// lives tells each change in how a candidate's session stands, for the
// event log: its process gone, paused (stopped, or its server not
// answering), heard from again. The card shows the same, with the session
// counting down to its expiry.
func (h *Hub) lives(say sayer, before, next []Candidate) {
	for _, c := range next {
		was := find(before, c.Name)
		if was == nil || was.Life == c.Life {
			continue
		}
		switch c.Life {
		case "gone":
			say("gone", "%s's process is gone (not connected): %s", c.Name, h.expiry(c, "it comes back"))
		case "silent":
			say("paused", "%s is paused: no server has heard from it for %s (its process is stopped, or cut off): %s",
				c.Name, h.ago(c.Heard), h.expiry(c, "it speaks"))
		case "cut off":
			say("paused", "%s is paused: its server %s does not answer: %s", c.Name, c.Server, h.expiry(c, "it reaches another"))
		case "connected":
			// Not a session that was only not seen yet.
			if (was.Life != "unknown" && was.Life != "gone") || was.Timeout > 0 {
				say("back", "%s is heard from again, on %s", c.Name, c.Server)
			}
		}
	}
}

// expiry says when c's session expires, as of now.
func (h *Hub) expiry(c Candidate, unless string) string {
	if c.Timeout == 0 {
		return "ZooKeeper keeps its session, and its znode, until the session expires"
	}
	left := time.Duration((c.Heard+c.Timeout)*float64(time.Millisecond)) - time.Duration(h.now().UnixNano())
	if left <= 0 {
		return "its session expires now, at the servers' next tick"
	}
	return fmt.Sprintf("its session expires in %.1f s unless %s", left.Seconds(), unless)
}

// ago is how long ago the Unix milliseconds at were.
func (h *Hub) ago(at float64) string {
	ago := time.Duration(h.now().UnixNano()) - time.Duration(at*float64(time.Millisecond))
	return fmt.Sprintf("%.1f s", ago.Seconds())
}

// gone reports whether a candidate that left was last seen without a live
// connection: it left because its session expired.
func gone(c Candidate) bool {
	return c.Life == "gone" || c.Life == "silent" || c.Life == "cut off"
}
